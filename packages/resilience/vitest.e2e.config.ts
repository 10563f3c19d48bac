import { defineProject } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

// The suites over real loopback sockets against the chaos server, the README's examples, and the
// unit suites that fill process-wide tables (test/isolated: the metric label cap). Each file runs
// in a module graph of its own: @effect/vitest's `layer` with `excludeTestServices` leaves the
// next file in a shared worker without its TestClock.
export default defineProject({
  test: {
    ...sharedTestOptions,
    name: "resilience-e2e",
    include: ["test/e2e/**/*.test.ts", "test/readme/**/*.test.ts", "test/isolated/**/*.test.ts"]
  }
})
