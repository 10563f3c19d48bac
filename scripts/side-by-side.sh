# Sourced by scripts/test.sh, scripts/test-slow.sh and scripts/test-browser.sh: runs the Effect 4 package's vitest 5
# (under Node 22) in the background and a vitest 3 command in the foreground, then prints the
# Effect 4 run's output after the vitest 3 run's, so that the two never interleave, and exits with
# the first non-zero status. Straight to the binaries, not through pnpm: two pnpm processes started
# together race on the workspace's state file ("Unexpected end of JSON input").
#
# usage: side_by_side "<vitest 5 arguments>" <vitest 3 command and arguments...>
side_by_side() {
  local effect4_args="$1"
  shift
  local effect4_log
  effect4_log="$(mktemp)"
  # shellcheck disable=SC2086 # the vitest 5 arguments are words
  (cd packages/resilience-effect4 && bash ../../scripts/node22.sh ./node_modules/.bin/vitest run $effect4_args) >"$effect4_log" 2>&1 &
  local effect4_pid=$!
  "$@"
  local effect3=$?
  wait "$effect4_pid"
  local effect4=$?
  cat "$effect4_log"
  rm -f "$effect4_log"
  if [ "$effect3" -ne 0 ]; then
    exit "$effect3"
  fi
  exit "$effect4"
}
