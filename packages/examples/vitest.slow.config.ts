import { defineProject } from "vitest/config"
import { vitest3TestOptions } from "../../vitest.shared.js"

// "slow-": run by `pnpm test:slow`: `pnpm demo` end to end on both lines, in processes of its own.
export default defineProject({
  test: {
    ...vitest3TestOptions,
    name: "slow-examples",
    include: ["test/slow/**/*.test.ts"]
  }
})
