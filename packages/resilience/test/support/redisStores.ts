// @generated from templates/test/support/redisStores.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Stores of the Redis suites, each as one process of a fleet would have it: built for the test's
 * scope, on a redis-server of the test's own (redisServer.ts) or on a Redis Cluster's client, and
 * what the tests read of them: their log lines, the degraded gauge, the values they rejected. A
 * real Redis, never a mock.
 */
import { Context, Effect, Layer, Logger, Metric, MetricState, type Scope } from "effect"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilienceStoreRedis from "../../src/ResilienceStoreRedis.js"

/** The options a test gives a store; where Redis is comes from the test's server or cluster. */
export type StoreOptions = Omit<ResilienceStoreRedis.RedisOptions, "url" | "client" | "cluster">

/**
 * One store, as one process of the fleet has it, for the scope's life, with its own client.
 */
export const storeOn = (
  url: string,
  prefix: string,
  options: StoreOptions = {}
): Effect.Effect<ResilienceStore.ResilienceStore.Service, never, Scope.Scope> =>
  Effect.map(Effect.orDie(Layer.build(ResilienceStoreRedis.layerRedis({ url, prefix, ...options }))), (context) =>
    Context.get(context, ResilienceStore.ResilienceStore)
  )

/** A store on a Redis Cluster, through the cluster client given, for the scope's life. */
export const storeOnCluster = (
  cluster: ResilienceStoreRedis.RedisClusterClient,
  prefix: string,
  options: StoreOptions = {}
): Effect.Effect<ResilienceStore.ResilienceStore.Service, never, Scope.Scope> =>
  Effect.map(Effect.orDie(Layer.build(ResilienceStoreRedis.layerRedis({ cluster, prefix, ...options }))), (context) =>
    Context.get(context, ResilienceStore.ResilienceStore)
  )

/** The gauge `http.client.resilience.store.degraded`, as every store of the process sets it. */
export const degradedGauge: Effect.Effect<number | undefined> = Effect.map(Metric.snapshot, (snapshots) => {
  const pair = snapshots.find((pair) => pair.metricKey.name === "http.client.resilience.store.degraded")
  return pair !== undefined && MetricState.isGaugeState(pair.metricState) ? Number(pair.metricState.value) : undefined
})

/** The counter `http.client.resilience.store.rejected_values` of one `kind`, over every store of the process. */
export const rejectedValues = (kind: string): Effect.Effect<number> =>
  Effect.map(Metric.snapshot, (snapshots) => {
    for (const pair of snapshots) {
      if (
        pair.metricKey.name === "http.client.resilience.store.rejected_values" &&
        pair.metricKey.tags.some((tag) => tag.key === "kind" && tag.value === kind) &&
        MetricState.isCounterState(pair.metricState)
      ) {
        return Number(pair.metricState.count)
      }
    }
    return 0
  })

/** Every log line of the effects the layer is provided to, as text. */
export const capturedLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  const count = (start: string) => lines.filter((line) => line.startsWith(start)).length
  return {
    lines,
    /** "ResilienceStore on Redis is degraded" warnings so far. */
    degraded: () => count("ResilienceStore on Redis is degraded"),
    /** "ResilienceStore on Redis answers again" lines so far. */
    resumed: () => count("ResilienceStore on Redis answers again"),
    layer: Logger.replace(Logger.defaultLogger, logger)
  }
}
