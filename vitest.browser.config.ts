import { defineConfig } from "vitest/config"

// The vitest 3 projects that need Chromium (Debian's, /usr/bin/chromium): the Effect 3 line in a
// page (packages/resilience/vitest.browser.config.ts) and the `pnpm demo:browser` page with its
// screenshot (packages/examples/vitest.browser.config.ts). `pnpm test:browser` runs them, and the
// Effect 4 line's (vitest 5), apart from `pnpm test`: `vitest run --config vitest.browser.config.ts`.
export default defineConfig({
  test: {
    projects: ["packages/resilience/vitest.browser.config.ts", "packages/examples/vitest.browser.config.ts"]
  }
})
