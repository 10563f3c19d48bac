// @generated from templates/src/internal/latencyWindows.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The origins' latency windows, kept per Clock as the default store is: the process's in
// production, a test's own under TestClock. Hedging reads a percentile from them for its delay,
// an adaptive concurrency limit the median, the origin's usual RTT. They are this
// process's observation, never shared by a store.
import * as Hedging from "@effect-http-resilience/core/Hedging"
import type { OriginTable } from "@effect-http-resilience/core/Origin"
import type * as Clock from "effect/Clock"

const windowsByClock = new WeakMap<Clock.Clock, OriginTable<Hedging.LatencyWindow>>()

/**
 * The latency windows of the origins called under `clock`.
 *
 * @internal
 */
export const latencyWindows = (clock: Clock.Clock): OriginTable<Hedging.LatencyWindow> => {
  let windows = windowsByClock.get(clock)
  if (windows === undefined) {
    windows = Hedging.makeLatencyTable()
    windowsByClock.set(clock, windows)
  }
  return windows
}
