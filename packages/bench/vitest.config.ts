import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

// "slow-": run by `pnpm test:slow`, not `pnpm test` (scripts/test.sh): each test starts real
// servers and benchmark processes.
export default defineProject({
  test: {
    ...sharedTestOptions,
    name: "slow-bench",
    include: ["test/**/*.test.ts"]
  }
})
