// @generated from templates/src/ResilienceStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Where overload state lives: per origin, the retry budget, the circuit breaker, the
 * `Retry-After` cool-down, the concurrency limit and the rate limit, in memory unless a layer provides another store (docs/overload.md).
 *
 * A store given to the client's layer with `Layer.provide` is the store of that client's calls; one
 * provided around the program reaches the clients built without one. Given both, the layer's decides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilienceStore } from "effect-http-resilience-effect4"
 *
 * // What is left of an origin's cool-down, in the store calls use.
 * const left = Effect.flatMap(ResilienceStore.ResilienceStore, (store) =>
 *   store.coolDownLeft("https://api.example.com:443")
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as ConcurrencyLimit from "@effect-http-resilience/core/ConcurrencyLimit"
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as TokenBucket from "@effect-http-resilience/core/TokenBucket"
import type * as CircuitBreaker from "./CircuitBreaker.js"
import * as internal from "./internal/resilienceStore.js"
import type * as RetryBudget from "./RetryBudget.js"

/**
 * The store service; a call without one in its context uses one in-memory store per `Clock`. A client
 * built with one in context (its layer's, given with `Layer.provide`) uses that one for every call.
 *
 * @since 0.1.0
 * @category tags
 */
export const ResilienceStore: Context.Reference<ResilienceStore.Service> = Context.Reference<ResilienceStore.Service>(
  "effect-http-resilience-effect4/ResilienceStore",
  { defaultValue: () => internal.processDefault }
)

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace ResilienceStore {
  /**
   * What a store keeps, as operations a shared store (on Redis, say) implements too.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The retry budget with these settings, shared by every client of the store. */
    readonly retryBudget: (settings: RetryBudget.Settings) => RetryBudget.RetryBudget.Service
    /** Starts, or lengthens, the origin's cool-down: `millis` from now. */
    readonly coolDown: (origin: string, millis: number) => Effect.Effect<void>
    /** Milliseconds left of the origin's cool-down; 0 when there is none. */
    readonly coolDownLeft: (origin: string) => Effect.Effect<number>
    /**
     * What an opt-in stage keeps in this store under `key` (a breaker, a concurrency limit, rate-limit
     * buckets), made by `make` the first time it is asked; this process's, in any store. The stage brings
     * its own code: a store carries none of a stage it is never asked for.
     */
    readonly keep: <S>(key: string, make: () => S) => S
    /** The rate limit's operations, when the store shares them (on Redis); without, each process keeps its own. */
    readonly rateLimit?: RateLimitOperations | undefined
    /** Tells the fleet of a breaker's openings and applies theirs to it, when the store shares breakers. */
    readonly shareCircuitBreaker?: ((breaker: CircuitBreaker.CircuitBreaker.Service) => Effect.Effect<void>) | undefined
  }

  /**
   * The rate limit's operations on its buckets, blocks and budgets, per key.
   *
   * @since 0.1.0
   * @category models
   */
  export interface RateLimitOperations {
    /**
     * Takes a token of `key`'s bucket (`limit` undefined: only a block or a budget holds it) within
     * `maxWaitMillis`. A granted take counts in the key's budget (`budget` says where, for `rateLimitEnded`):
     * always with `counted` (a call that reads rate-limit headers), otherwise once such a call counted the key.
     */
    readonly rateLimitTake: (
      key: string,
      limit: TokenBucket.Limit | undefined,
      maxWaitMillis: number,
      counted?: boolean
    ) => Effect.Effect<RateLimitTake>
    /**
     * Gives back a token taken and not sent, that was due `leftMillis` from now: kept when a later one is
     * reserved, which would otherwise go at the same time as the next take's.
     */
    readonly rateLimitRefund: (key: string, limit: TokenBucket.Limit, leftMillis: number) => Effect.Effect<void>
    /** No token for `key` for `millis` from now (at most a day): a server said none is left until then. */
    readonly rateLimitBlock: (key: string, millis: number) => Effect.Effect<void>
    /**
     * An attempt counted in `key`'s budget ended: with a response that announced what is left (`remaining` for
     * `millis` from now), one that did not, or none. The lowest remaining heard then holds `key`'s attempts
     * once those in flight spend it, until its reset (this process's, in any store).
     */
    readonly rateLimitEnded: (key: string, budget: number, ending: RateLimitEnding) => Effect.Effect<void>
  }

  /**
   * One `concurrencyLimit` setting's limits, per origin, forgotten after an hour idle.
   *
   * @since 0.1.0
   * @category models
   */
  export interface ConcurrencyLimits {
    readonly settings: ConcurrencyLimit.Resolved
    /** The origin's limit; `nowMillis` is the monotonic clock's. */
    readonly forOrigin: (origin: string, nowMillis: number) => OriginConcurrency
  }

  /**
   * One origin's permits and queue and, when adaptive, what learns from a sample.
   *
   * @since 0.1.0
   * @category models
   */
  export interface OriginConcurrency {
    readonly bulkhead: ConcurrencyLimit.Bulkhead<Deferred.Deferred<void>>
    /** Teaches an adaptive limit a sample, with the origin's usual RTT when known; answers the waiters a higher limit grants. */
    readonly learn:
      | ((
          sample: ConcurrencyLimit.Sample,
          baselineRttMillis?: () => number | undefined
        ) => ReadonlyArray<Deferred.Deferred<void>>)
      | undefined
  }

  /**
   * A rate limit's answer: a token to use after `waitMillis`, or none within the wait asked.
   *
   * @since 0.1.0
   * @category models
   */
  export interface RateLimitTake {
    readonly granted: boolean
    readonly waitMillis: number
    /** Where the attempt counts in its key's budget, when it does (see `rateLimitTake`). */
    readonly budget?: number | undefined
  }

  /**
   * How an attempt counted in a rate-limit budget ended (see `rateLimitEnded`). `sent: false`: it never
   * left, so the server cannot have counted it.
   *
   * @since 0.1.0
   * @category models
   */
  export type RateLimitEnding =
    | { readonly _tag: "Answered"; readonly remaining: number; readonly millis: number; readonly sentMillisAgo: number }
    | { readonly _tag: "Silent" }
    | { readonly _tag: "Unanswered"; readonly sent: boolean }
}

/**
 * A new, empty in-memory store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: () => ResilienceStore.Service = internal.makeMemory

/**
 * An in-memory store of its own for what runs under the layer: a test, a tenant.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (): Layer.Layer<never> => Layer.sync(ResilienceStore, makeMemory)
