import { fileURLToPath } from "node:url"
import { defineProject } from "vitest/config"
import { vitest3TestOptions } from "../../vitest.shared.js"

// The browser page of `pnpm demo:browser` in Chromium (Debian's, at /usr/bin/chromium), with its
// screenshot for the README: `vitest run --config packages/examples/vitest.browser.config.ts`.
// Not in vitest.workspace.ts: it needs that Chromium, which `pnpm test` does not.
export default defineProject({
  // Run from the repository's root as from here: the paths below are this package's.
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: {
    ...vitest3TestOptions,
    name: "browser-page",
    environment: "node",
    include: ["test/browser/**/*.test.ts"],
    // The scenarios wait about 11 s for real, and on two busy cores Chromium is slow to start.
    testTimeout: 180_000,
    hookTimeout: 120_000
  }
})
