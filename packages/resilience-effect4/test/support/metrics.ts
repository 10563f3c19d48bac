// @generated from templates/test/support/metrics.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/** The metrics the tests read back. */
import { Effect, Metric } from "effect"

/** A counter's value summed over its series whose `server.address` is `host`. */
export const counterValue = (name: string, host: string): Effect.Effect<number> =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter(
        (snapshot) =>
          snapshot.id === name && snapshot.type === "Counter" && snapshot.attributes?.["server.address"] === host
      )
      .reduce((sum, snapshot) => sum + (snapshot.type === "Counter" ? Number(snapshot.state.count) : 0), 0)
  )

/** A gauge's value on its series whose `server.address` is `host`, or `undefined` when it has none. */
export const gaugeValue = (name: string, host: string): Effect.Effect<number | undefined> =>
  Effect.map(Metric.snapshot, (snapshots) => {
    const snapshot = snapshots.find(
      (candidate) => candidate.id === name && candidate.attributes?.["server.address"] === host
    )
    return snapshot !== undefined && snapshot.type === "Gauge" ? Number(snapshot.state.value) : undefined
  })
