// @generated from templates/src/CircuitBreaker.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A circuit breaker per origin with Polly v8's sampling semantics and defaults: an open circuit
 * rejects attempts at once with {@link CircuitOpen}, then lets one probe through (or
 * `halfOpen.probes`). With `slowCalls`, calls that turn slow break it too. A policy's
 * `circuitBreaker` option takes {@link perOrigin}; left out, there is no breaker.
 *
 * @example
 * ```ts
 * import { CircuitBreaker, RetryPolicy } from "effect-http-resilience"
 *
 * const options: CircuitBreaker.SamplingOptions = { failureRatio: 0.5, minimumThroughput: 20, samplingDuration: "10 seconds" }
 * const policy = RetryPolicy.make({ circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.sampling(options) }) })
 * const BreakerLive = CircuitBreaker.layer({ tripPolicy: CircuitBreaker.consecutive(5) })
 * ```
 *
 * @since 0.2.0
 */
import * as Origin from "@effect-http-resilience/core/Origin"
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { Send } from "./internal/attemptLoop.js"
import * as internal from "./internal/circuitBreakerService.js"
import * as line from "./internal/line.js"
import type * as ResilienceStore from "./ResilienceStore.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * The options of Polly's sampling policy, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface SamplingOptions {
  /** Break when this share of the sampled attempts failed; above 0, at most 1. [0.1] */
  readonly failureRatio?: number | undefined
  /** … and at least this many were sampled; a whole number of at least 2. [100] */
  readonly minimumThroughput?: number | undefined
  /** How far back samples count, in 10 parts; 0.5 s to 1 day. [30 seconds] */
  readonly samplingDuration?: Duration.DurationInput | undefined
}

/**
 * resilience4j's slow-call trigger, each option optional, its default in brackets: a call slower
 * than `duration` is slow, and the circuit breaks once slow calls reach `ratio` of at least
 * `minimumThroughput` calls in `samplingDuration` (a window and a minimum of its own, whatever the
 * trip policy). A slow half-open probe counts as a failed one.
 *
 * @since 0.2.0
 * @category models
 */
export interface SlowCallOptions {
  /** A call (to its response headers) slower than this is slow; 1 ms to 1 day. [5 seconds] */
  readonly duration?: Duration.DurationInput | undefined
  /** Break when this share of the sampled calls was slow; above 0, at most 1. [0.5] */
  readonly ratio?: number | undefined
  /** … and at least this many calls were sampled; a whole number of at least 1. [100] */
  readonly minimumThroughput?: number | undefined
  /** How far back calls count, in 10 parts; 0.5 s to 1 day. [30 seconds] */
  readonly samplingDuration?: Duration.DurationInput | undefined
}

/**
 * How a half-open circuit decides (cockatiel's `halfOpenSampling`), each option optional, its
 * default in brackets: it lets `probes` attempts through (at once, if they come at once) and
 * closes on the `successes`-th success, or reopens once that many can no longer succeed.
 *
 * @since 0.2.0
 * @category models
 */
export interface HalfOpenOptions {
  /** Probes let through; a whole number from 1 to 1000. [1] */
  readonly probes?: number | undefined
  /** Successful probes that close the circuit; a whole number from 1 to `probes`. [`probes`: all of them] */
  readonly successes?: number | undefined
}

/**
 * When a closed circuit breaks: {@link sampling} (the default) or {@link consecutive}.
 *
 * @since 0.2.0
 * @category models
 */
export type TripPolicy =
  | { readonly _tag: "Sampling"; readonly options: SamplingOptions }
  | { readonly _tag: "Consecutive"; readonly failures: number }

/**
 * Polly's sampling policy: break once `failureRatio` of the recent attempts failed.
 *
 * @since 0.2.0
 * @category constructors
 */
export const sampling: (options?: SamplingOptions) => TripPolicy = internal.sampling

/**
 * Break after `failures` failed attempts in a row; only a success resets the count. [5]
 *
 * @since 0.2.0
 * @category constructors
 */
export const consecutive: (failures?: number) => TripPolicy = internal.consecutive

/**
 * The options of a breaker, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** When a closed circuit breaks. [`sampling()`: 10% of at least 100 attempts in 30 s] */
  readonly tripPolicy?: TripPolicy | undefined
  /** How long an open circuit rejects attempts before a probe; 0.5 s to 1 day. [5 seconds] */
  readonly breakDuration?: Duration.DurationInput | undefined
  /** Cap on a break lengthened by a `Retry-After`, up to 1 day. [the larger of 30 seconds and `breakDuration`] */
  readonly maxBreakDuration?: Duration.DurationInput | undefined
  /** Also break when calls turn slow. [none: only failures count] */
  readonly slowCalls?: SlowCallOptions | undefined
  /** Probes a half-open circuit lets through, and how many must succeed. [one, which must succeed] */
  readonly halfOpen?: HalfOpenOptions | undefined
  /** Runs on every state change, in order, in a fiber of its own; its failures are logged. */
  readonly onStateChange?: ((change: StateChange) => Effect.Effect<void>) | undefined
}

/**
 * A validated breaker configuration: every option resolved.
 *
 * @since 0.2.0
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
  /** `undefined` when calls are not timed. */
  readonly slowCalls:
    | {
        readonly duration: Duration.Duration
        readonly ratio: number
        readonly minimumThroughput: number
        readonly samplingDuration: Duration.Duration
      }
    | undefined
  readonly halfOpen: { readonly probes: number; readonly successes: number }
}

/**
 * What an attempt says about its origin's health (Effect 4's vocabulary).
 *
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Success" }
  | { readonly _tag: "Failure"; readonly retryAfter?: Duration.Duration | undefined }
  | { readonly _tag: "Ignored" }

/**
 * The attempt shows the origin is healthy; a probe's success closes the circuit.
 *
 * @since 0.2.0
 * @category outcomes
 */
export const success: Outcome = internal.success

/**
 * The attempt counts against the origin; a `retryAfter` may lengthen the break it opens.
 *
 * @since 0.2.0
 * @category outcomes
 */
export const failure: (options?: { readonly retryAfter?: Duration.DurationInput | undefined }) => Outcome =
  internal.failure

/**
 * The attempt says nothing about the origin (a 429, an interruption): not a sample.
 *
 * @since 0.2.0
 * @category outcomes
 */
export const ignored: Outcome = internal.ignored

/**
 * The states of a circuit: `Closed`, `Open` (for `retryAfter`), `HalfOpen` (a probe) or `Isolated` (by hand).
 *
 * @since 0.2.0
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
 * A state change; `manual` for one made by `isolate` or `close`.
 *
 * @since 0.2.0
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
 * Permission for one attempt, whose outcome is reported once.
 *
 * @since 0.2.0
 * @category models
 */
export interface Permit {
  readonly origin: string
  /** Whether this attempt is the half-open probe: its outcome closes or reopens the circuit. */
  readonly probe: boolean
  readonly report: (outcome: Outcome) => Effect.Effect<void>
}

/**
 * An attempt rejected by the circuit, unsent: its `state`, and `retryAfter` until a probe may go.
 *
 * @since 0.2.0
 * @category errors
 */
export const CircuitOpen: typeof internal.CircuitOpen = internal.CircuitOpen

/**
 * @since 0.2.0
 * @category errors
 */
export type CircuitOpen = internal.CircuitOpen

/**
 * The breaker service: one circuit per origin ({@link originOf}).
 *
 * @since 0.2.0
 * @category tags
 */
export class CircuitBreaker extends line.Service<CircuitBreaker, CircuitBreaker.Service>()(
  "effect-http-resilience/CircuitBreaker"
) {}

/**
 * The types that belong to the {@link CircuitBreaker} tag.
 *
 * @since 0.2.0
 * @category models
 */
export declare namespace CircuitBreaker {
  /**
   * The breaker's operations, each for one origin key.
   *
   * @since 0.2.0
   * @category models
   */
  export interface Service {
    /** The policy and its resolved options. */
    readonly settings: Settings
    /** Asks to send one attempt: a {@link Permit}, or {@link CircuitOpen} at once. */
    readonly acquire: (origin: string) => Effect.Effect<Permit, CircuitOpen>
    /** Runs one attempt through the circuit, its exit reported as `classify` says. */
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
    /** The circuit's state now. */
    readonly state: (origin: string) => Effect.Effect<State>
    /** Holds the circuit open (Polly's isolate) until {@link Service.close}. */
    readonly isolate: (origin: string) => Effect.Effect<void>
    /** Closes the circuit by hand, from any state, and forgets its samples. */
    readonly close: (origin: string) => Effect.Effect<void>
    /** Every state change of every origin, from when the stream starts running. */
    readonly changes: Stream.Stream<StateChange>
    /** {@link Service.changes} from the moment of subscribing, for as long as the scope lasts. */
    readonly subscribe: Effect.Effect<Stream.Stream<StateChange>, never, Scope.Scope>
  }
}

/**
 * Validates the options and makes a breaker with its own circuits.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<CircuitBreaker.Service, RetryPolicy.InvalidRetryPolicy> =
  internal.make

/**
 * The breaker stage, for a policy's `circuitBreaker` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface PerOrigin {
  readonly [StageTypeId]: "circuitBreaker"
  /** @internal */
  readonly breakerIn: (store: ResilienceStore.ResilienceStore.Service) => Effect.Effect<CircuitBreaker.Service>
  /** @internal */
  readonly isClosed: (store: ResilienceStore.ResilienceStore.Service, origin: string) => Effect.Effect<boolean>
  /** @internal */
  readonly wrap: (next: Send) => Send
}

/**
 * A breaker per origin for a policy: with options, the one the store keeps for them (shared by
 * every policy with the same options and `onStateChange`); with a service, that service. Bad
 * options throw `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const perOrigin: (options?: Options | CircuitBreaker.Service) => PerOrigin = internal.perOrigin

/**
 * The breaker a {@link perOrigin} stage uses in `store`: the circuits its calls go through.
 *
 * @since 0.2.0
 * @category accessors
 */
export const fromStore = (
  store: ResilienceStore.ResilienceStore.Service,
  stage: PerOrigin
): Effect.Effect<CircuitBreaker.Service> => stage.breakerIn(store)

/**
 * The service as a layer: what one built layer provides shares its circuits.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<CircuitBreaker, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(CircuitBreaker, internal.make(options))

/**
 * Validates the options into settings, or the first bad option.
 *
 * @since 0.2.0
 * @category constructors
 */
export const validate: (options?: Options) => Either.Either<Settings, RetryPolicy.InvalidRetryPolicy> =
  internal.validate

/**
 * The key a circuit is kept under: `scheme://host:port`, lower-cased, default port filled in.
 *
 * @since 0.2.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
