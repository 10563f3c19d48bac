#!/usr/bin/env bash
# `pnpm test:slow`: the vitest 3 projects named "slow-*": the bench's tests (tiny runs of every
# benchmark section, with real servers and client processes), `pnpm demo` end to end on both
# lines, and the Effect 3 heap check of 100,000 origins; then the Effect 4 package's slow config
# (its heap check, vitest 5 under Node 22). CI runs it after `pnpm test`. Arguments go to the
# vitest 3 run. The status is the first non-zero one.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/system-binaries.sh
. scripts/system-binaries.sh
need_binary redis-server "$(redis_found)" "the bench's shared-store section (packages/bench/test/sharedStore.test.ts)" redis-server
pnpm exec vitest run --project 'slow-*' --maxWorkers="${TEST_WORKERS:-2}" --minWorkers=1 "$@"
effect3=$?
(cd packages/resilience-effect4 && bash ../../scripts/node22.sh node_modules/.bin/vitest run --config vitest.slow.config.mts)
effect4=$?
if [ "$effect3" -ne 0 ]; then
  exit "$effect3"
fi
exit "$effect4"
