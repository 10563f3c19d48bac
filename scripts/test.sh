#!/usr/bin/env bash
# `pnpm test`: every suite but the slow ones, in two vitest runs side by side: the vitest 3
# projects on the system's Node (vitest.workspace.ts: core, the Effect 3 library, chaos server,
# examples), and the Effect 4 package's vitest 5 under Node 22 (`pnpm test:effect4`, through
# scripts/node22.sh). `pnpm test:slow` runs the projects named "slow-*" (the bench's tests, the
# demo end to end); CI runs both.
#
# Side by side because most of the suites' time is waiting (sockets, child processes, timers), not
# CPU. The Effect 4 run's output is held back and printed after the vitest 3 run's, so the two never
# interleave. Each ends with its own summary (`Tests  N passed`), which .ci/run adds up. The status
# is the first non-zero one.
#
# Arguments go to the vitest 3 run only, e.g. `pnpm test -- --project resilience`.
set -uo pipefail
cd "$(dirname "$0")/.."

# vitest 3 runs one worker per core less one: a single worker on two cores, so every file waits for
# the last. Three workers overlap the waits.
workers="${TEST_WORKERS:-3}"

# shellcheck source=scripts/side-by-side.sh
. scripts/side-by-side.sh
side_by_side "" ./node_modules/.bin/vitest run --project '!slow-*' --maxWorkers="$workers" --minWorkers="$workers" "$@"
