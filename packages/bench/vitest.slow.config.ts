import { defineProject } from "vitest/config"
import { vitest3TestOptions } from "../../vitest.shared.js"

// "slow-": run by `pnpm test:slow`, not `pnpm test` (scripts/test.sh): each test starts real
// servers and benchmark processes.
export default defineProject({
  test: {
    ...vitest3TestOptions,
    name: "slow-bench",
    include: ["test/**/*.test.ts"]
  }
})
