# Sourced by the test scripts: the programs from Debian's packages that some tests drive for real
# (packages/conformance/src/systemBinaries.ts skips those tests where one is missing). For each
# that is missing, one line says what is skipped and how to install it; with
# TEST_REQUIRE_BINARIES=1 (what CI sets) a missing one fails the run at once instead.
#
# usage: need_binary <name> <found: 0 or 1> <what is skipped> <Debian package>
need_binary() {
  local name="$1" found="$2" skipped="$3" package="$4"
  [ "$found" = 1 ] && return 0
  local install="apt-get install -y --no-install-recommends $package"
  if [ "${TEST_REQUIRE_BINARIES:-}" = 1 ]; then
    echo "$name is missing and TEST_REQUIRE_BINARIES=1: $skipped cannot run; install it: $install"
    exit 1
  fi
  echo "$name is missing: skipping $skipped; install it: $install"
}

redis_found() { command -v redis-server >/dev/null 2>&1 && echo 1 || echo 0; }
chromium_found() { [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] && echo 1 || echo 0; }
