#!/usr/bin/env bash
# `pnpm test:slow`: what needs wall time, in two vitest runs side by side, as in `pnpm test`: the
# vitest 3 projects "slow" (the bench's tests: a tiny run of every benchmark section with real
# servers and client processes; `pnpm demo` end to end on both lines) and "slow-heap" (the Effect 3
# heap check of 20,000 origins), and the Effect 4 package's slow config (its heap check, vitest 5
# under Node 22). CI runs it after `pnpm test`. Arguments go to the vitest 3 run. The status is the
# first non-zero one. Without redis-server, the bench's shared-store section is skipped, saying so.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/system-binaries.sh
. scripts/system-binaries.sh
need_binary redis-server "$(redis_found)" "the bench's shared-store section (packages/bench/test/sharedStore.test.ts)" redis-server

# shellcheck source=scripts/side-by-side.sh
. scripts/side-by-side.sh
side_by_side "--config vitest.slow.config.mts" ./node_modules/.bin/vitest run --project 'slow*' --maxWorkers="${TEST_WORKERS:-2}" --minWorkers=1 "$@"
