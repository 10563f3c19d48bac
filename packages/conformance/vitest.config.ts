import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

// The scenarios' own checks (well-formed, consistent with their scripts). The scenarios run
// against each line in that line's test/conformance.test.ts.
export default defineProject({
  test: {
    ...sharedTestOptions,
    isolate: false,
    name: "conformance",
    include: ["test/**/*.test.ts"]
  }
})
