#!/usr/bin/env bash
# `pnpm test:slow`: the vitest 3 projects named "slow-*": the bench's tests (tiny runs of every
# benchmark section, with real servers and client processes) and `pnpm demo` end to end on both
# lines. CI runs it after `pnpm test`. Arguments go to vitest.
set -uo pipefail
cd "$(dirname "$0")/.."
exec pnpm exec vitest run --project 'slow-*' --maxWorkers="${TEST_WORKERS:-2}" --minWorkers=1 "$@"
