#!/usr/bin/env bash
# `pnpm test:browser`: the suites that need Chromium (Debian's: apt-get install -y
# --no-install-recommends chromium; another build where CHROMIUM_PATH says). Two vitest runs side
# by side, as in `pnpm test`: the vitest 3 projects of vitest.browser.config.ts (the Effect 3
# line in a page, and the `pnpm demo:browser` page), and the Effect 4 package's browser config
# (vitest 5 under Node 22). Each prints its own summary; the status is the first non-zero one. No
# step downloads a browser. Without Chromium the tests are skipped, saying so; with
# TEST_REQUIRE_BINARIES=1 that fails the run. The page's screenshot goes to a temporary file
# (`pnpm screenshot:browser` updates the committed one).
set -uo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/system-binaries.sh
. scripts/system-binaries.sh
need_binary chromium "$(chromium_found)" "the browser tests (test/browser of both lines and of the examples)" chromium

# shellcheck source=scripts/side-by-side.sh
. scripts/side-by-side.sh
side_by_side "--config vitest.browser.config.mts" ./node_modules/.bin/vitest run --config vitest.browser.config.ts "$@"
