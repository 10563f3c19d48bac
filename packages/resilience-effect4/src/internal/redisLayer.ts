// @generated from templates/src/internal/redisLayer.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// `ResilienceStore.layerRedis`: its options read by the shared core, then the store over
// Effect 4's Redis client.
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import type * as Scope from "effect/Scope"
import type * as ResilienceStore from "../ResilienceStore.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy } from "./invalidOption.js"
import * as redisCommands from "./redisCommands.js"
import * as redisStore from "./redisStore.js"

/** @internal */
export const make = (
  options: ResilienceStore.RedisOptions | undefined
): Effect.Effect<ResilienceStore.ResilienceStore.Service, InvalidRetryPolicy, Redis.Redis | Scope.Scope> =>
  Effect.gen(function* () {
    const settings = yield* Effect.fromResult(fromChecked(SharedStore.resolveStoreSettings(options, durationCodec, [])))
    const redis = yield* Redis.Redis
    return yield* redisStore.make(yield* redisCommands.make(redis), settings)
  })
