import type { TestProjectConfiguration } from "vitest/config"
import { vitest3TestOptions } from "./vitest.shared.js"

// The vitest 3 projects (`pnpm test`, `pnpm test:slow`), read by the root's vitest.config.ts (vitest
// 3 takes them as `test.projects`; a workspace file of its own is deprecated there). One project per
// kind of run, every package's tests in them:
// - "effect3": the suites that leave nothing behind that another file could see, in one shared
//   module graph per worker. Loading Effect and the library in a process per file, as vitest
//   does by default, was most of the run's time.
// - "effect3-isolated": the suites that need a process to themselves, each file in a fresh
//   worker: those that fill process-wide tables (10,000 origins' state, whose metric series stay
//   in Effect's global registry) and those that read the OpenTelemetry export, which keeps at most
//   2,000 series per metric.
// - "slow" (`pnpm test:slow`): the bench's tests (a tiny run of every benchmark section, with real
//   servers and client processes), `pnpm demo` end to end on both lines, and the fleets of OS
//   processes sharing a real Redis (test/fleet: each process loads the library anew);
// - "slow-heap": the heap check of many origins, in a worker of its own (it turns on --expose-gc
//   itself), beside "slow" (vitest runs the threads pool and the forks pool at once).
// The Effect 4 package has its own vitest 5 configs (packages/resilience-effect4/vitest.config.mts);
// the browser suites are vitest.browser.config.ts's.
const isolatedFiles = [
  "packages/resilience/test/isolated/**/*.test.ts",
  "packages/resilience/test/readme/examples.test.ts",
  "packages/examples/test/Metrics.test.ts"
]

const projects: Array<TestProjectConfiguration> = [
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
      include: [
        "packages/bench/test/**/*.test.ts",
        "packages/examples/test/slow/**/*.test.ts",
        "packages/resilience/test/fleet/**/*.test.ts"
      ]
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
]

export default projects
