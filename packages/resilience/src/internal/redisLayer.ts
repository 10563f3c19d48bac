// @generated from templates/src/internal/redisLayer.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// `layerRedis` (ResilienceStoreRedis.ts): its options read by the shared core, then the store over
// Effect 3's Redis client, or over a node-redis cluster client (`cluster`).
import * as Settings from "@effect-http-resilience/core/Settings"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as ResilienceStore from "../ResilienceStore.js"
import type * as ResilienceStoreRedis from "../ResilienceStoreRedis.js"
import { durationCodec, fromChecked, InvalidRetryPolicy } from "./invalidOption.js"
import * as redisCluster from "./redisCluster.js"
import * as redisCommands from "./redisCommands.js"
import * as redisStore from "./redisStore.js"

type Service = ResilienceStore.ResilienceStore.Service

const isCluster = (u: unknown): u is ResilienceStoreRedis.RedisClusterClient =>
  typeof u === "object" &&
  u !== null &&
  "sendCommand" in u &&
  "subscribe" in u &&
  "unsubscribe" in u &&
  "masters" in u &&
  "on" in u &&
  "off" in u

const checkedCluster = (cluster: unknown): Settings.Checked<ResilienceStoreRedis.RedisClusterClient | undefined> =>
  cluster === undefined || isCluster(cluster)
    ? Settings.valid(cluster)
    : Settings.invalid(
        "layerRedis.cluster",
        "must be a node-redis cluster client (createCluster() of redis 5 or later)",
        // Not shown: the cluster's options, with their password, may have come in its place.
        Settings.withheld(cluster)
      )

// A client of one node cannot serve a cluster: the prefix's slot may be on another master, which
// answers MOVED to every command. Refused while the layer starts, not met at the first call; a
// Redis that does not answer then cannot be asked, and the store starts degraded as ever.
const refuseClusterNode = (
  commands: redisStore.RedisCommands,
  withinMillis: number
): Effect.Effect<void, InvalidRetryPolicy> =>
  Effect.flatMap(
    Effect.option(Effect.timeout(commands.send("INFO", ["cluster"]), Duration.millis(withinMillis))),
    (reply) =>
      Option.isSome(reply) && SharedStore.isClusterNode(reply.value)
        ? Effect.fail(
            new InvalidRetryPolicy({
              option: "layerRedis.cluster",
              reason:
                "must be given for a Redis Cluster: Redis answers as a cluster node (cluster_enabled:1), and a client of one node cannot follow the prefix's hash slot to its master",
              value: undefined
            })
          )
        : Effect.void
  )

// The store on a cluster: the user's client, routed by the prefix's hash tag.
const onCluster = (cluster: ResilienceStoreRedis.RedisClusterClient, settings: SharedStore.StoreSettings) =>
  redisStore.make(redisCluster.make(cluster, SharedStore.keysFor(settings.prefix).slot), settings)

const isClient = (u: unknown): u is ResilienceStoreRedis.RedisClient =>
  typeof u === "object" && u !== null && "sendCommand" in u && "duplicate" in u

// A URL node-redis could not read fails here, named, never in node-redis as a defect; neither
// shows its password (SharedStore.redactRedisUrl), nor do a client's options given as the client.
const checked = (options: ResilienceStoreRedis.RedisOptions | undefined) =>
  Settings.andThen(
    SharedStore.resolveStoreSettings(options, durationCodec, ["url", "client", "cluster"]),
    (settings) => {
      if (options?.url !== undefined) {
        const url = SharedStore.checkRedisUrl("layerRedis.url", options.url)
        if (url._tag === "Invalid") return url
      }
      if (options?.client !== undefined && !isClient(options.client)) {
        return Settings.invalid(
          "layerRedis.client",
          "must be a node-redis client (createClient() of redis 5 or later)",
          Settings.withheld(options.client)
        )
      }
      if (options?.url !== undefined && options.client !== undefined) {
        return Settings.invalid("layerRedis.client", "cannot be given with url: give one of them", "a client and a url")
      }
      if (options?.cluster !== undefined && (options.url !== undefined || options.client !== undefined)) {
        return Settings.invalid(
          "layerRedis.cluster",
          "cannot be given with url or client: give one of them",
          "a cluster and a url or client"
        )
      }
      return Settings.andThen(checkedCluster(options?.cluster), (cluster) => Settings.valid({ settings, cluster }))
    }
  )

/** @internal */
export const make = (
  options: ResilienceStoreRedis.RedisOptions | undefined
): Effect.Effect<Service, InvalidRetryPolicy, Scope.Scope> =>
  Effect.gen(function* () {
    const { cluster, settings } = yield* fromChecked(checked(options))
    if (cluster !== undefined) return yield* onCluster(cluster, settings)
    const readyWithinMillis = SharedStore.readyWithinMillis(settings)
    const commands = yield* redisCommands.make({ url: options?.url, client: options?.client, readyWithinMillis })
    yield* refuseClusterNode(commands, readyWithinMillis)
    return yield* redisStore.make(commands, settings)
  })
