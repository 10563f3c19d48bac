// vitest 5 under Node 22 (`pnpm test` runs it through scripts/node22.sh, beside the root's
// vitest 3 run, which leaves this package out). Named .mts, as vitest finds it by default.
import { defineConfig } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineConfig({
  test: {
    ...sharedTestOptions,
    // Most of the e2e suites' time is waiting on sockets and timers: more workers than cores
    // overlap the waits (vitest's default is one worker on two cores).
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        // The unit suites (TestClock, scripted transports), the suites over real sockets and the
        // README's examples that need no process of their own: their files leave nothing behind
        // that another could see, so a worker loads the modules once for all of its files.
        test: {
          name: "effect4",
          include: ["test/*.test.ts", "test/e2e/**/*.test.ts", "test/readme/**/*.test.ts"],
          exclude: ["test/readme/examples.test.ts"],
          isolate: false
        }
      },
      {
        extends: true,
        // A worker per file: the suites that fill process-wide tables (test/isolated: 10,000
        // origins' state, whose metric series stay in Effect's global registry), and the README's
        // examples, whose OpenTelemetry export keeps at most 2,000 series per metric.
        test: {
          name: "effect4-isolated",
          include: ["test/isolated/**/*.test.ts", "test/readme/examples.test.ts"]
        }
      }
    ]
  }
})
