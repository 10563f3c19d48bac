import { defineProject } from "vitest/config"
import { vitest3TestOptions } from "../../vitest.shared.js"

// The library in headless Chromium (Debian's): test/browser/*.test.ts run in Node, bundle
// test/browser/scenarios.ts for a page and drive it with playwright (test/support/browserPage.ts).
// Run by `pnpm test:browser`, apart from `pnpm test`: it needs Chromium installed.
export default defineProject({
  test: {
    ...vitest3TestOptions,
    name: "browser-effect3",
    include: ["test/browser/**/*.test.ts"]
  }
})
