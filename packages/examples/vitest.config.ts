import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineProject({
  test: {
    ...sharedTestOptions,
    // Its files share no global state, so one worker loads the modules once for all of them: the
    // loading, not the tests, was most of this project's time.
    isolate: false,
    name: "examples",
    include: ["test/**/*.test.ts"],
    // The browser page has its own project (vitest.browser.config.ts): it needs Chromium.
    exclude: ["test/slow/**", "test/browser/**"]
  }
})
