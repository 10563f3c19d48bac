import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

// The unit suites, on TestClock and scripted transports. Their files share no global state, so
// one worker loads the modules once for all of them. Over real sockets: vitest.e2e.config.ts.
export default defineProject({
  test: {
    ...sharedTestOptions,
    isolate: false,
    name: "resilience",
    include: ["test/*.test.ts"]
  }
})
