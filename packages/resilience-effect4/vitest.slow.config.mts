// `pnpm test:slow` runs this too (scripts/test-slow.sh, under Node 22): the heap check of 20,000
// origins, in a process of its own (it turns on --expose-gc itself, as on Effect 3), and the fleets
// of OS processes sharing a real Redis (test/fleet). Not in
// vitest.config.mts, so `pnpm test` leaves it out.
import { defineConfig } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineConfig({
  test: {
    ...sharedTestOptions,
    name: "slow-resilience-effect4",
    include: ["test/slow/**/*.test.ts", "test/fleet/**/*.test.ts"],
    pool: "forks",
    testTimeout: 600_000
  }
})
