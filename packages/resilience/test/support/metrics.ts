// @generated from templates/test/support/metrics.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/** The metrics the tests read back. */
import { Effect, Metric, MetricState } from "effect"

/** A counter's value summed over its series whose `server.address` is `host`. */
export const counterValue = (name: string, host: string): Effect.Effect<number> =>
  Effect.map(Metric.snapshot, (pairs) =>
    pairs
      .filter(
        (pair) =>
          pair.metricKey.name === name &&
          pair.metricKey.tags.some((tag) => tag.key === "server.address" && tag.value === host)
      )
      .reduce(
        (sum, pair) => sum + (MetricState.isCounterState(pair.metricState) ? Number(pair.metricState.count) : 0),
        0
      )
  )

/** A gauge's value on its series whose `server.address` is `host`, or `undefined` when it has none. */
export const gaugeValue = (name: string, host: string): Effect.Effect<number | undefined> =>
  Effect.map(Metric.snapshot, (pairs) => {
    const pair = pairs.find(
      (candidate) =>
        candidate.metricKey.name === name &&
        candidate.metricKey.tags.some((tag) => tag.key === "server.address" && tag.value === host)
    )
    return pair !== undefined && MetricState.isGaugeState(pair.metricState) ? Number(pair.metricState.value) : undefined
  })
