/**
 * A circuit breaker per origin, with Polly's sampling semantics, built on Effect 4's own
 * `CircuitBreaker` (`effect/persistence`): this library's state machine is the store Effect's
 * breaker admits and records through, so the breaker is also usable wherever Effect takes one
 * (`HttpClient.withCircuitBreaker`). What this adds: a time-windowed sampling trip policy
 * (Effect's `rate` counts the last N calls), bounded defaults, a half-open probe re-armed after
 * each break (a hung probe cannot wedge it), manual isolation, state changes with manual ones,
 * and metrics.
 *
 * @since 0.1.0
 */
import * as Origin from "@effect-http-resilience/core/Origin"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import type * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as internal from "./internal/circuitBreakerService.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Polly's sampling trip policy: break when, over at least `minimumThroughput` attempts in the
 * last `samplingDuration`, the share that failed reaches `failureRatio`. [0.1, 100, 30 seconds]
 *
 * @example
 * ```ts
 * import type { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const options: CircuitBreaker.SamplingOptions = { failureRatio: 0.5, minimumThroughput: 20, samplingDuration: "10 seconds" }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface SamplingOptions {
  readonly failureRatio?: number | undefined
  readonly minimumThroughput?: number | undefined
  readonly samplingDuration?: Duration.Input | undefined
}

/**
 * What decides that the circuit must break: build it with {@link sampling} or {@link consecutive}.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const policy: CircuitBreaker.TripPolicy = CircuitBreaker.consecutive(5)
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type TripPolicy =
  | { readonly _tag: "Sampling"; readonly options: SamplingOptions }
  | { readonly _tag: "Consecutive"; readonly failures: number }

/**
 * Polly's sampling trip policy (the default).
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const layer = CircuitBreaker.layer({ tripPolicy: CircuitBreaker.sampling({ failureRatio: 0.5 }) })
 * ```
 *
 * @since 0.1.0
 * @category trip policies
 */
export const sampling: (options?: SamplingOptions) => TripPolicy = internal.sampling

/**
 * Break after this many failures in a row [5].
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const layer = CircuitBreaker.layer({ tripPolicy: CircuitBreaker.consecutive(3) })
 * ```
 *
 * @since 0.1.0
 * @category trip policies
 */
export const consecutive: (failures?: number) => TripPolicy = internal.consecutive

/**
 * The breaker's options; every one optional, defaults in brackets. `breakDuration` [5
 * seconds] is how long the circuit stays open (and how long a probe holds its slot);
 * `maxBreakDuration` [30 seconds] caps a break lengthened by the server's `Retry-After`;
 * `onStateChange` is called with every change.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const options: CircuitBreaker.Options = {
 *   breakDuration: "10 seconds",
 *   onStateChange: (change) => Effect.log(`${change.origin}: ${change.from} -> ${change.to}`)
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly tripPolicy?: TripPolicy | undefined
  readonly breakDuration?: Duration.Input | undefined
  readonly maxBreakDuration?: Duration.Input | undefined
  readonly onStateChange?: ((change: StateChange) => Effect.Effect<void>) | undefined
}

/**
 * The options, resolved.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const settings = Result.getOrThrow(CircuitBreaker.validate())
 * console.log(settings.tripPolicy._tag) // "Sampling"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly tripPolicy:
    | {
        readonly _tag: "Sampling"
        readonly failureRatio: number
        readonly minimumThroughput: number
        readonly samplingDuration: Duration.Duration
      }
    | { readonly _tag: "Consecutive"; readonly failures: number }
  readonly breakDuration: Duration.Duration
  readonly maxBreakDuration: Duration.Duration
}

/**
 * What an attempt says about the origin's health: Effect 4's own `CircuitBreaker.Outcome`.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const outcome: CircuitBreaker.Outcome = CircuitBreaker.failure({ retryAfter: "2 seconds" })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = EffectBreaker.Outcome

/**
 * The origin answered.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const classify = () => CircuitBreaker.success
 * ```
 *
 * @since 0.1.0
 * @category outcomes
 */
export const success: Outcome = EffectBreaker.success

/**
 * The origin failed to answer; a `retryAfter` lengthens the break it opens, up to `maxBreakDuration`.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const outcome = CircuitBreaker.failure({ retryAfter: "10 seconds" })
 * ```
 *
 * @since 0.1.0
 * @category outcomes
 */
export const failure: (options?: { readonly retryAfter?: Duration.Input | undefined }) => Outcome =
  EffectBreaker.failure

/**
 * Says nothing about the origin's health (a 429, an interruption).
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const classify = () => CircuitBreaker.ignored
 * ```
 *
 * @since 0.1.0
 * @category outcomes
 */
export const ignored: Outcome = EffectBreaker.ignored

/**
 * The state of one origin's circuit.
 *
 * @example
 * ```ts
 * import type { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const isOpen = (state: CircuitBreaker.State): boolean => state._tag === "Open" || state._tag === "Isolated"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type State =
  | { readonly _tag: "Closed"; readonly origin: string }
  | { readonly _tag: "Open"; readonly origin: string; readonly retryAfter: Duration.Duration }
  | {
      readonly _tag: "HalfOpen"
      readonly origin: string
      readonly probing: boolean
      /** While probing: until the probe's slot is re-armed. */
      readonly retryAfter: Duration.Duration
    }
  | { readonly _tag: "Isolated"; readonly origin: string }

/**
 * A change of one origin's state, manual (isolate, close) or not.
 *
 * @example
 * ```ts
 * import type { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const describe = (change: CircuitBreaker.StateChange): string => `${change.origin}: ${change.from} -> ${change.to}`
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type StateChange =
  | {
      readonly origin: string
      readonly from: "Closed" | "HalfOpen"
      readonly to: "Open"
      readonly breakDuration: Duration.Duration
      readonly manual: false
    }
  | { readonly origin: string; readonly from: "Open"; readonly to: "HalfOpen"; readonly manual: false }
  | {
      readonly origin: string
      readonly from: "Open" | "HalfOpen" | "Isolated"
      readonly to: "Closed"
      readonly manual: boolean
    }
  | {
      readonly origin: string
      readonly from: "Closed" | "Open" | "HalfOpen"
      readonly to: "Isolated"
      readonly manual: true
    }

/**
 * The right to send one attempt; its outcome must be reported once.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * declare const breaker: CircuitBreaker.CircuitBreaker.Service
 * const probeOnce = Effect.flatMap(breaker.acquire("https://api.example.com:443"), (permit) => permit.report(CircuitBreaker.success))
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Permit {
  readonly origin: string
  readonly probe: boolean
  readonly report: (outcome: Outcome) => Effect.Effect<void>
}

/**
 * An attempt the circuit rejected without sending it: `state` says why, `retryAfter` until when
 * (infinity while isolated).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * declare const call: Effect.Effect<string, CircuitBreaker.CircuitOpen>
 * const fallback = call.pipe(Effect.catchTag("CircuitOpen", () => Effect.succeed("cached")))
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export const CircuitOpen: typeof internal.CircuitOpen = internal.CircuitOpen

/**
 * The type of a {@link CircuitOpen} rejection.
 *
 * @since 0.1.0
 * @category errors
 */
export type CircuitOpen = internal.CircuitOpen

/**
 * The service: one circuit per origin, shared by whoever holds it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const program = Effect.gen(function* () {
 *   const breaker = yield* CircuitBreaker.CircuitBreaker
 *   return yield* breaker.state("https://api.example.com:443")
 * }).pipe(Effect.provide(CircuitBreaker.layer()))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class CircuitBreaker extends Context.Service<CircuitBreaker, CircuitBreaker.Service>()(
  "effect-http-resilience-effect4/CircuitBreaker"
) {}

/**
 * The types that belong to the {@link CircuitBreaker} service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace CircuitBreaker {
  /**
   * The breaker's operations, each for one origin key (see {@link originOf}).
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { CircuitBreaker } from "effect-http-resilience-effect4"
   *
   * declare const breaker: CircuitBreaker.CircuitBreaker.Service
   * declare const call: Effect.Effect<string>
   * const guarded = breaker.execute(call, "https://api.example.com:443")
   * ```
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The policy and its resolved options. */
    readonly settings: Settings
    /** This breaker as Effect 4's own `CircuitBreaker`, for `HttpClient.withCircuitBreaker` and the like. */
    readonly breaker: EffectBreaker.CircuitBreaker
    /** Asks to send one attempt: a {@link Permit}, or {@link CircuitOpen} at once. */
    readonly acquire: (origin: string) => Effect.Effect<Permit, CircuitOpen>
    /**
     * Runs one attempt through the circuit (Effect's `execute` over this breaker): rejected with
     * {@link CircuitOpen}, or run and its exit recorded as `classify` says (default: a success
     * is `Success`, any failure a `Failure`). An interruption is always `Ignored`.
     */
    readonly execute: {
      <A, E>(
        origin: string,
        classify?: (exit: Exit.Exit<A, E>) => Outcome
      ): <R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | CircuitOpen, R>
      <A, E, R>(
        self: Effect.Effect<A, E, R>,
        origin: string,
        classify?: (exit: Exit.Exit<A, E>) => Outcome
      ): Effect.Effect<A, E | CircuitOpen, R>
    }
    /** The circuit's state now. An origin never seen reads `Closed`. */
    readonly state: (origin: string) => Effect.Effect<State>
    /** Holds the circuit open until {@link Service.close}. */
    readonly isolate: (origin: string) => Effect.Effect<void>
    /** Closes the circuit by hand, from any state, and forgets its samples. */
    readonly close: (origin: string) => Effect.Effect<void>
    /** Every state change of every origin, from the moment the stream starts running. */
    readonly changes: Stream.Stream<StateChange>
    /** Subscribes now and gives the stream of every state change from this moment, for the scope's life. */
    readonly subscribe: Effect.Effect<Stream.Stream<StateChange>, never, Scope.Scope>
  }
}

/**
 * Makes a breaker. Bad options fail with `InvalidRetryPolicy`, naming the option.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const breaker = CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(3), breakDuration: "10 seconds" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<CircuitBreaker.Service, RetryPolicy.InvalidRetryPolicy> =
  internal.make

/**
 * The breaker as a layer, to share one between clients (pass the service as the policy's
 * `circuitBreaker`).
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const BreakerLive = CircuitBreaker.layer({ breakDuration: "10 seconds" })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<CircuitBreaker, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(CircuitBreaker, internal.make(options))

/**
 * Checks options without making a breaker.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * Result.isFailure(CircuitBreaker.validate({ breakDuration: "1 millis" })) // true: at least 500 millis
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (options?: Options) => Result.Result<Settings, RetryPolicy.InvalidRetryPolicy> =
  internal.validate

/**
 * The origin key of a URL (`scheme://host:port`), as the breaker keys its circuits.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * CircuitBreaker.originOf("https://api.example.com/items") // "https://api.example.com:443"
 * ```
 *
 * @since 0.1.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
