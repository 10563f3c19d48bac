/**
 * The programs from Debian's packages that some tests drive for real: `redis-server` (the Redis
 * store's tests start their own) and Chromium (the browser tests). A test file that needs one is
 * skipped where it is missing, so that the test commands are green on a fresh machine; with
 * `TEST_REQUIRE_BINARIES=1` (what CI sets) it runs, and fails saying how to install it.
 * scripts/system-binaries.sh prints the one line a run shows for each that is missing.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { chromiumPath } from "./chromium.js"

/** A program some tests need, and whether this machine has it. */
export interface SystemBinary {
  readonly name: string
  readonly found: boolean
  /** The Debian command that installs it. */
  readonly install: string
}

const isExecutable = (path: string): boolean => {
  try {
    Fs.accessSync(path, Fs.constants.X_OK)
    return Fs.statSync(path).isFile()
  } catch {
    return false
  }
}

const onPath = (command: string): boolean =>
  (process.env.PATH ?? "").split(Path.delimiter).some((dir) => dir !== "" && isExecutable(Path.join(dir, command)))

/** `redis-server` on the PATH. */
export const redisServer: SystemBinary = {
  name: "redis-server",
  found: onPath("redis-server"),
  install: "apt-get install -y --no-install-recommends redis-server"
}

/** Debian's Chromium, or the build `CHROMIUM_PATH` names. */
export const chromium: SystemBinary = {
  name: `chromium (${chromiumPath})`,
  found: isExecutable(chromiumPath),
  install: "apt-get install -y --no-install-recommends chromium"
}

/** `TEST_REQUIRE_BINARIES=1`: a missing program fails the tests that need it instead of skipping them. */
const required: boolean = process.env.TEST_REQUIRE_BINARIES === "1"

/** Whether the tests that need `binary` are skipped here: it is missing, and not required. */
export const skipWithout = (binary: SystemBinary): boolean => !binary.found && !required
