// The library in headless Chromium (Debian's), as on Effect 3: test/browser/*.test.ts run in
// Node (vitest 5 under Node 22), bundle test/browser/scenarios.ts for a page and drive it with
// playwright (test/support/browserPage.ts). Run by `pnpm test:browser`, apart from `pnpm test`.
import { defineConfig } from "vitest/config"
import { sharedTestOptions } from "../../vitest.shared.js"

export default defineConfig({
  test: {
    ...sharedTestOptions,
    name: "browser-effect4",
    include: ["test/browser/**/*.test.ts"]
  }
})
