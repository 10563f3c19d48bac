import { defineProject } from "vitest/config"
import { vitest3TestOptions } from "../../vitest.shared.js"

// "slow-": run by `pnpm test:slow`: the heap check of 100,000 origins, in a process of its own
// (it turns on --expose-gc itself: vitest 3 takes no execArgv from a project).
export default defineProject({
  test: {
    ...vitest3TestOptions,
    name: "slow-resilience",
    include: ["test/slow/**/*.test.ts"],
    pool: "forks",
    testTimeout: 1_800_000
  }
})
