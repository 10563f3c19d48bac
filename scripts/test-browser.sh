#!/usr/bin/env bash
# `pnpm test:browser`: the suites that need Chromium (Debian's: apt-get install -y
# --no-install-recommends chromium; another build where CHROMIUM_PATH says). Two vitest runs side
# by side, as in `pnpm test`: the vitest 3 projects of vitest.browser.workspace.ts (the Effect 3
# line in a page, and the `pnpm demo:browser` page with its screenshot), and the Effect 4
# package's browser config (vitest 5 under Node 22). Each prints its own summary; the status is
# the first non-zero one. No step downloads a browser.
set -uo pipefail
cd "$(dirname "$0")/.."

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "test:browser needs Chromium at $chromium: apt-get install -y --no-install-recommends chromium (or set CHROMIUM_PATH)"
  exit 1
fi

# shellcheck source=scripts/side-by-side.sh
. scripts/side-by-side.sh
side_by_side "--config vitest.browser.config.mts" ./node_modules/.bin/vitest run --workspace vitest.browser.workspace.ts "$@"
