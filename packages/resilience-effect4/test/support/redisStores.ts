// @generated from templates/test/support/redisStores.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Stores of the Redis suites, each as one process of a fleet would have it: built for the test's
 * scope, on a redis-server of the test's own (redisServer.ts) or on a Redis Cluster's client.
 */
import { NodeRedis } from "@effect/platform-node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as ResilienceStore from "../../src/ResilienceStore.js"

/** The options a test gives a store; where Redis is comes from the test's server or cluster. */
export type StoreOptions = Omit<ResilienceStore.RedisOptions, "client" | "cluster" | "cluster">

/** A store on the redis-server at `url`, for the scope's life; a bad option is a defect. */
export const storeOn = (
  url: string,
  prefix: string,
  options: StoreOptions = {}
): Effect.Effect<ResilienceStore.ResilienceStore.Service, never, Scope.Scope> =>
  Effect.map(
    Effect.orDie(
      Layer.build(ResilienceStore.layerRedis({ prefix, ...options }).pipe(Layer.provideMerge(NodeRedis.layer({ url }))))
    ),
    (context) => Context.get(context, ResilienceStore.ResilienceStore)
  )

/** A store on a Redis Cluster, through the cluster client given, for the scope's life. */
export const storeOnCluster = (
  cluster: ResilienceStore.RedisClusterClient,
  prefix: string,
  options: StoreOptions = {}
): Effect.Effect<ResilienceStore.ResilienceStore.Service, never, Scope.Scope> =>
  Effect.map(Effect.orDie(Layer.build(ResilienceStore.layerRedis({ cluster, prefix, ...options }))), (context) =>
    Context.get(context, ResilienceStore.ResilienceStore)
  )

/** Every message logged under `layer`, as one line each. */
export const capturedLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  return { lines, layer: Logger.layer([logger]) }
}
