/**
 * How the browser tests start Chromium: Debian's build (`apt-get install -y
 * --no-install-recommends chromium`), or another where `CHROMIUM_PATH` says, never a downloaded
 * one. One place for the flags that every browser test of the workspace launches it with.
 */

/** Debian's Chromium, or another build where `CHROMIUM_PATH` says. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/**
 * As root and on a machine with no network: no sandbox, no GPU, and none of Chromium's own
 * background connections, which the closed network refuses noisily (and, without these flags,
 * many at a time).
 */
export const chromiumArgs: ReadonlyArray<string> = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
