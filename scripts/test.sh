#!/usr/bin/env bash
# `pnpm test`: every suite but the slow and the browser ones, in two vitest runs side by side: the
# vitest 3 projects on the system's Node (vitest.config.ts: the Effect 3 line, core, the chaos
# server, the conformance scenarios, the examples), and the Effect 4 package's vitest 5 under
# Node 22 (packages/resilience-effect4/vitest.config.mts, through scripts/node22.sh).
# `pnpm test:slow` runs what needs wall time, `pnpm test:browser` what needs Chromium.
#
# Side by side because much of the suites' time is waiting (sockets, child processes, timers). The
# Effect 4 run's output is held back and printed after the vitest 3 run's, so the two never
# interleave. Each ends with its own summary (`Tests  N passed`), which .ci/run adds up. The status
# is the first non-zero one. Without redis-server, the Redis store's tests are skipped, saying so
# (scripts/system-binaries.sh); TEST_REQUIRE_BINARIES=1 makes that a failure.
#
# Arguments go to the vitest 3 run only, e.g. `pnpm test -- --project effect3`.
set -uo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/system-binaries.sh
. scripts/system-binaries.sh
need_binary redis-server "$(redis_found)" "the Redis store's tests (test/e2e/redis*.e2e.test.ts of both lines)" redis-server

# vitest 3 runs one worker per core less one: a single worker on two cores, so every file waits for
# the last. Three workers overlap the waits.
workers="${TEST_WORKERS:-3}"

# shellcheck source=scripts/side-by-side.sh
. scripts/side-by-side.sh
side_by_side "" ./node_modules/.bin/vitest run --project '!slow*' --maxWorkers="$workers" --minWorkers="$workers" "$@"
