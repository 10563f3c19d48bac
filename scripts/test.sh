#!/usr/bin/env bash
# `pnpm test`: every suite in the repository, in two vitest runs. First the vitest 3 projects on the
# system's Node (vitest.workspace.ts: the Effect 3 library, chaos server, examples, bench), then the
# Effect 4 package's vitest 5 under Node 22 (`pnpm test:effect4`, through scripts/node22.sh). Both
# always run, so one run reports every failure; the status is the first non-zero one. Each run ends
# with its own vitest summary (`Tests  N passed`), which .ci/run adds up.
#
# Arguments go to the vitest 3 run only, e.g. `pnpm test -- --project resilience`.
set -uo pipefail
cd "$(dirname "$0")/.."

pnpm exec vitest run "$@"
effect3=$?
pnpm test:effect4
effect4=$?

if [ "$effect3" -ne 0 ]; then
  exit "$effect3"
fi
exit "$effect4"
