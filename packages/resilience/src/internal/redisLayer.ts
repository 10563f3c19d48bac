// @generated from templates/src/internal/redisLayer.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// `ResilienceStore.layerRedis`: its options read by the shared core, then the store over
// Effect 3's Redis client.
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Settings from "@effect-http-resilience/core/Settings"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as ResilienceStore from "../ResilienceStore.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy } from "./invalidOption.js"
import * as redisCommands from "./redisCommands.js"
import * as redisStore from "./redisStore.js"

const isClient = (u: unknown): u is ResilienceStore.RedisClient =>
  typeof u === "object" && u !== null && "sendCommand" in u && "duplicate" in u

const checked = (options: ResilienceStore.RedisOptions | undefined) =>
  Settings.andThen(SharedStore.resolveStoreSettings(options, durationCodec, ["url", "client"]), (settings) => {
    if (options?.url !== undefined && (typeof options.url !== "string" || !/^rediss?:\/\//.test(options.url))) {
      return Settings.invalid("layerRedis.url", "must be a redis:// or rediss:// URL", options.url)
    }
    if (options?.client !== undefined && !isClient(options.client)) {
      return Settings.invalid(
        "layerRedis.client",
        "must be a node-redis client (createClient() of redis 5 or later)",
        options.client
      )
    }
    if (options?.url !== undefined && options.client !== undefined) {
      return Settings.invalid("layerRedis.client", "cannot be given with url: give one of them", "a client and a url")
    }
    return Settings.valid(settings)
  })

/** @internal */
export const make = (
  options: ResilienceStore.RedisOptions | undefined
): Effect.Effect<ResilienceStore.ResilienceStore.Service, InvalidRetryPolicy, Scope.Scope> =>
  Effect.gen(function* () {
    const settings = yield* fromChecked(checked(options))
    const commands = yield* redisCommands.make({
      url: options?.url,
      client: options?.client,
      readyWithinMillis: SharedStore.readyWithinMillis(settings)
    })
    return yield* redisStore.make(commands, settings)
  })
