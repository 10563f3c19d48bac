import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineProject({
  test: {
    ...sharedTestOptions,
    // Its files share no global state, so one worker loads the modules once for all of them: the
    // loading, not the tests, was most of this project's time.
    isolate: false,
    name: "chaos-server",
    include: ["test/**/*.test.ts"]
  }
})
