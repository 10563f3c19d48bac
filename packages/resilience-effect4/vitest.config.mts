// vitest 5 under Node 22 (`pnpm test` here runs it through scripts/node22.sh). Named .mts so
// that the root vitest.workspace.ts glob (packages/*/vitest.config.ts, vitest 3 on Node 20)
// leaves this package out; vitest still finds it by default.
import { defineConfig } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineConfig({
  test: {
    ...sharedTestOptions,
    projects: [
      {
        extends: true,
        // The unit suites share no global state: one worker loads the modules once for all.
        test: { name: "resilience-effect4", include: ["test/*.test.ts"], isolate: false }
      },
      {
        extends: true,
        // Over real sockets, the README's examples, and suites that fill process-wide tables
        // (test/isolated: the metric label cap): a module graph per file, as on Effect 3.
        test: {
          name: "resilience-effect4-e2e",
          include: ["test/e2e/**/*.test.ts", "test/readme/**/*.test.ts", "test/isolated/**/*.test.ts"]
        }
      }
    ]
  }
})
