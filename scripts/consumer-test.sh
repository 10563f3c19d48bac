#!/usr/bin/env bash
# Consumer test: installs the packed packages in fresh projects outside the workspace with plain
# npm and the READMEs' own install lines (our package names replaced by the tarballs), then runs
# an ESM program against the packed chaos server and type-checks a TypeScript program with
# moduleResolution NodeNext and Bundler: an Effect 3 project, an Effect 4 project, and a project
# without Effect that has only the chaos server. Any failure fails the run.
#
# Environment: CONSUMER_TEST_TIMEOUT (seconds, default 900: npm installs in four projects, on busy cores) bounds the whole run;
# CONSUMER_TEST_KEEP=1 keeps the temporary project for inspection; CONSUMER_TEST_BUILT=1 packs what
# `pnpm build` left (.ci/run builds just before) instead of building again.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

# Bound the whole run: re-run this script under `timeout`, which signals the process group.
if [ -z "${CONSUMER_TEST_BOUNDED:-}" ]; then
  CONSUMER_TEST_BOUNDED=1 exec timeout --kill-after=15 "${CONSUMER_TEST_TIMEOUT:-900}" bash "$0" "$@"
fi

PNPM="npx -y pnpm@10.34.9"
started=$(date +%s)
work="$(mktemp -d "${TMPDIR:-/tmp}/effect-http-resilience-consumer.XXXXXX")"
cleanup() {
  status=$?
  if [ "${CONSUMER_TEST_KEEP:-}" = "1" ]; then
    echo "consumer test: kept $work"
  else
    rm -rf "$work"
  fi
  if [ "$status" -eq 124 ] || [ "$status" -eq 143 ]; then
    echo "consumer test: timed out or terminated"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

case "$work" in
  "$root"/*)
    echo "consumer test: the temporary project must be outside the workspace ($work)"
    exit 1
    ;;
esac

# The peers are installed with the READMEs' own install lines (scripts/install-from-readme.ts), so
# this test breaks when those lines break. Only the tools of the test itself are pinned: the
# versions the workspace uses (and pnpm-lock.yaml locks).
pinned() {
  node -e 'const [file, name] = process.argv.slice(1); const m = require(file);
    const v = (m.devDependencies ?? {})[name] ?? (m.dependencies ?? {})[name];
    if (!/^\d+\.\d+\.\d+/.test(v ?? "")) { console.error(`${name} is not pinned in ${file}`); process.exit(1) }
    console.log(v)' "$root/$1" "$2"
}
types_node_version=$(pinned package.json @types/node)
types_node22_version=$(pinned packages/resilience-effect4/package.json @types/node)
typescript_version=$(pinned package.json typescript)
for locked in "@types/node@$types_node_version" "@types/node@$types_node22_version" "typescript@$typescript_version"; do
  if ! grep -qF "  '$locked':" pnpm-lock.yaml && ! grep -qF "  $locked:" pnpm-lock.yaml; then
    echo "consumer test: $locked is not in pnpm-lock.yaml"
    exit 1
  fi
done

if [ "${CONSUMER_TEST_BUILT:-}" = 1 ]; then
  echo "== consumer test: built already (CONSUMER_TEST_BUILT=1)"
else
  echo "== consumer test: build"
  $PNPM build
fi

echo "== consumer test: pack"
mkdir -p "$work/tarballs" "$work/project"
# The four at once: each is mostly pnpm starting up.
packs=()
for package in core resilience resilience-effect4 chaos-server; do
  (cd "packages/$package" && $PNPM pack --pack-destination "$work/tarballs" >/dev/null) &
  packs+=("$!")
done
for pack in "${packs[@]}"; do
  wait "$pack"
done
ls -1 "$work/tarballs"
resilience_tgz=$(ls "$work"/tarballs/effect-http-resilience-[0-9]*.tgz)
chaos_tgz=$(ls "$work"/tarballs/effect-http-resilience-chaos-server-*.tgz)
core_tgz=$(ls "$work"/tarballs/effect-http-resilience-core-*.tgz)
effect4_tgz=$(ls "$work"/tarballs/effect-http-resilience-effect4-*.tgz)

echo "== consumer test: npm install in $work/project"
cp scripts/consumer/main.mjs scripts/consumer/redisEntryPoint.mjs scripts/consumer/types.ts scripts/consumer/tsconfig.nodenext.json \
  scripts/consumer/tsconfig.bundler.json "$work/project/"
cd "$work/project"
# The library depends on the shared core (@effect-http-resilience/core), which is not on the
# registry before release either: an override makes npm take it from its tarball wherever it is
# needed, so the README lines still run as written and the core is not a direct dependency.
cat > package.json <<JSON
{ "name": "consumer", "version": "1.0.0", "private": true, "type": "module",
  "overrides": { "@effect-http-resilience/core": "file:$core_tgz" } }
JSON
# The install lines of the root README, checked equal in the package README npm shows, then the
# chaos server's own for an Effect 3 project; our two package names stand for their tarballs.
"$root/node_modules/.bin/tsx" "$root/scripts/install-from-readme.ts" --cwd "$work/project" --project effect3 \
  --tarball "effect-http-resilience=$resilience_tgz" \
  --tarball "@effect-http-resilience/chaos-server=$chaos_tgz" \
  --same-as-first "$root/packages/resilience/README.md" \
  "$root/README.md" "$root/packages/chaos-server/README.md"
echo "== consumer test: npm install the tools of this test"
timeout 300 npm install --no-audit --no-fund --loglevel=error --save-dev \
  "typescript@$typescript_version" "@types/node@$types_node_version"
npm ls --depth=0
echo "== consumer test: the shared core, installed with the library from its tarball"
npm ls --all @effect-http-resilience/core

echo "== consumer test: ESM program"
timeout 60 node main.mjs

echo "== consumer test: chaos-server CLI (the bin runs with plain node)"
usage=$(timeout 30 ./node_modules/.bin/chaos-server --help)
case "$usage" in
  "usage: chaos-server"*) echo "${usage%%$'\n'*}" ;;
  *)
    echo "consumer test: unexpected output of chaos-server --help: $usage"
    exit 1
    ;;
esac

# Each configuration is checked twice: as a consumer usually does (skipLibCheck), which must be
# clean, and with every declaration file checked, where only errors in our packages count (the
# peers' own declarations need DOM typings and @types/ws, which are not ours to require).
typecheck() {
  local config=$1 output status full
  # The two checks at once: tsc uses one core.
  echo "== consumer test: tsc --noEmit -p $config, and with --skipLibCheck false (errors in our declarations)"
  full="$(mktemp)"
  (
    code=0
    timeout 120 ./node_modules/.bin/tsc -p "$config" --skipLibCheck false >"$full" 2>&1 || code=$?
    echo "$code" >"$full.status"
  ) &
  local checking=$!
  status=0
  timeout 120 ./node_modules/.bin/tsc -p "$config" || status=$?
  wait "$checking"
  if [ "$status" -ne 0 ]; then
    rm -f "$full" "$full.status"
    exit "$status"
  fi
  output=$(cat "$full")
  status=$(cat "$full.status")
  rm -f "$full" "$full.status"
  # tsc exits 1 or 2 when it found errors; anything else (a timeout, a crash) is a failure.
  if [ "$status" -gt 2 ]; then
    echo "$output"
    echo "consumer test: tsc failed with status $status"
    exit 1
  fi
  if echo "$output" | grep -E '^(types\.ts|node_modules/(effect-http-resilience|@effect-http-resilience)/)'; then
    echo "consumer test: our declaration files do not type-check under $config"
    exit 1
  fi
}
typecheck tsconfig.nodenext.json
typecheck tsconfig.bundler.json

# The Effect 4 line, in a project of its own (one `effect` per project), installed with its
# package README's lines and the chaos server README's lines for an Effect 4 project; it runs
# under Node 22 (scripts/node22.sh), as @effect/platform-node 4 needs. Its dependency on the core
# comes from the core's tarball, as above.
echo "== consumer test (Effect 4): npm install in $work/project-effect4"
mkdir -p "$work/project-effect4"
cp "$root/scripts/consumer/effect4/main.mjs" "$root/scripts/consumer/effect4/node20.mjs" "$root/scripts/consumer/redisEntryPoint.mjs" \
  "$root/scripts/consumer/effect4/types.ts" "$root/scripts/consumer/tsconfig.nodenext.json" "$work/project-effect4/"
cd "$work/project-effect4"
cat > package.json <<JSON
{ "name": "consumer-effect4", "version": "1.0.0", "private": true, "type": "module",
  "overrides": { "@effect-http-resilience/core": "file:$core_tgz" } }
JSON
"$root/node_modules/.bin/tsx" "$root/scripts/install-from-readme.ts" --cwd "$work/project-effect4" --project effect4 \
  --tarball "effect-http-resilience-effect4=$effect4_tgz" \
  --tarball "@effect-http-resilience/chaos-server=$chaos_tgz" \
  "$root/packages/resilience-effect4/README.md" "$root/packages/chaos-server/README.md"
timeout 300 npm install --no-audit --no-fund --loglevel=error --save-dev \
  "typescript@$typescript_version" "@types/node@$types_node22_version"
npm ls --depth=0
npm ls --all @effect-http-resilience/core

echo "== consumer test (Effect 4): ESM program under Node 22"
timeout 120 bash "$root/scripts/node22.sh" node main.mjs

# The README's way on older Node: the library over FetchHttpClient, with the system's Node.
echo "== consumer test (Effect 4): FetchHttpClient under the system's Node ($(node --version))"
timeout 120 node node20.mjs

typecheck tsconfig.nodenext.json

# The chaos server alone, installed with its README's lines for a project without Effect: its root
# entry point and its CLI must run with no `effect` installed.
echo "== consumer test (no Effect): npm install in $work/project-plain"
mkdir -p "$work/project-plain"
cp "$root/scripts/consumer/plain/main.mjs" "$work/project-plain/"
cd "$work/project-plain"
echo '{ "name": "consumer-plain", "version": "1.0.0", "private": true, "type": "module" }' > package.json
"$root/node_modules/.bin/tsx" "$root/scripts/install-from-readme.ts" --cwd "$work/project-plain" --project no-effect \
  --tarball "@effect-http-resilience/chaos-server=$chaos_tgz" \
  "$root/packages/chaos-server/README.md"
npm ls --depth=0

echo "== consumer test (no Effect): ESM program"
timeout 60 node main.mjs

echo "== consumer test (no Effect): chaos-server CLI"
usage=$(timeout 30 ./node_modules/.bin/chaos-server --help)
case "$usage" in
  "usage: chaos-server"*) echo "${usage%%$'\n'*}" ;;
  *)
    echo "consumer test: unexpected output of chaos-server --help without Effect: $usage"
    exit 1
    ;;
esac

echo "consumer test: passed in $(($(date +%s) - started)) s"
