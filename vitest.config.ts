import { defineConfig } from "vitest/config"
import { vitest3TestOptions } from "./vitest.shared.js"

// The vitest 3 run (`pnpm test`, scripts/test.sh): the Effect 3 line and the packages both lines
// share (core, chaos server, conformance scenarios, examples). Two projects:
// - "effect3": the suites that leave nothing behind that another file could see, in one shared
//   module graph per worker. Loading Effect and the library in a process per file, as vitest
//   does by default, was most of the run's time.
// - "effect3-isolated": the suites that need a process to themselves, each file in a fresh
//   worker: those that fill process-wide tables (10,000 origins' state, whose metric series stay
//   in Effect's global registry) and those that read the OpenTelemetry export, which keeps at most
//   2,000 series per metric.
// `pnpm test:slow` (scripts/test-slow.sh) runs the "slow" projects, what needs wall time:
// - "slow": the bench's tests (a tiny run of every benchmark section, with real servers and
//   client processes) and `pnpm demo` end to end on both lines;
// - "slow-heap": the heap check of many origins, in a worker of its own (it turns on --expose-gc
//   itself), beside "slow" (vitest runs the threads pool and the forks pool at once).
// The browser suites: `pnpm test:browser` (vitest.browser.config.ts).
const isolatedFiles = [
  "packages/resilience/test/isolated/**/*.test.ts",
  "packages/resilience/test/readme/examples.test.ts",
  "packages/examples/test/Metrics.test.ts"
]

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...vitest3TestOptions,
          name: "effect3",
          isolate: false,
          include: [
            "packages/{core,conformance,chaos-server}/test/**/*.test.ts",
            "packages/examples/test/*.test.ts",
            "packages/resilience/test/{,e2e/**/,readme/**/}*.test.ts"
          ],
          exclude: isolatedFiles
        }
      },
      {
        test: { ...vitest3TestOptions, name: "effect3-isolated", include: isolatedFiles, pool: "threads" }
      },
      {
        test: {
          ...vitest3TestOptions,
          name: "slow",
          isolate: false,
          include: ["packages/bench/test/**/*.test.ts", "packages/examples/test/slow/**/*.test.ts"]
        }
      },
      {
        test: {
          ...vitest3TestOptions,
          name: "slow-heap",
          include: ["packages/resilience/test/slow/**/*.test.ts"],
          pool: "threads",
          testTimeout: 600_000
        }
      }
    ],
    // vitest 3 reads these from the root config only: a forks worker runs file after file ("effect3",
    // "slow"), a threads worker one file ("effect3-isolated", "slow-heap").
    poolOptions: { forks: { isolate: false }, threads: { isolate: true } }
  }
})
