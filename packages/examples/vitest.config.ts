import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineProject({
  test: {
    ...sharedTestOptions,
    name: "examples",
    include: ["test/**/*.test.ts"],
    exclude: ["test/slow/**"]
  }
})
