// @generated from templates/src/CircuitBreaker.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A circuit breaker per origin (scheme, host, port), with Polly v8's semantics and defaults:
 * it breaks when at least 10% of the attempts sampled in the last 30 seconds failed, once there
 * were at least 100 of them, and then rejects attempts at once for 5 seconds. After the break,
 * one attempt (the probe) is let through: its success closes the circuit, its failure opens it
 * again. A consecutive-failures policy is the alternative.
 *
 * The breaker never waits and never retries: an open circuit fails the attempt with
 * {@link CircuitOpen}, which says when the circuit will let a probe through.
 *
 * Works with Effect 4's own `CircuitBreaker` (`effect/persistence`): {@link toEffectBreaker} makes
 * one whose store is this library's state machine, for wherever Effect takes one
 * (`HttpClient.withCircuitBreaker`). What this adds: a time-windowed
 * sampling trip policy (Effect's `rate` counts the last N calls), bounded defaults, a half-open
 * probe that keeps its slot through its own time limit and gives it up a break past it (a hung
 * probe cannot wedge it), manual isolation, state changes with manual ones, observers run
 * outside the breaker's critical section, and metrics.
 *
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience-effect4"
 *
 * const options: CircuitBreaker.SamplingOptions = { failureRatio: 0.5, minimumThroughput: 20, samplingDuration: "10 seconds" }
 * const BreakerLive = CircuitBreaker.layer({ tripPolicy: CircuitBreaker.sampling(options) })
 * ```
 *
 * @since 0.1.0
 */
import * as Origin from "@effect-http-resilience/core/Origin"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as EffectBreaker from "effect/persistence/CircuitBreaker"
import type * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as internal from "./internal/circuitBreakerService.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * The options of Polly's sampling policy. Every one is optional; the defaults are in brackets.
 *
 * @since 0.1.0
 * @category models
 */
export interface SamplingOptions {
  /** Break when this share of the sampled attempts failed; above 0, at most 1. [0.1] */
  readonly failureRatio?: number | undefined
  /** … and at least this many were sampled; a whole number of at least 2. [100] */
  readonly minimumThroughput?: number | undefined
  /**
   * How far back samples count; 0.5 s to 1 day. The window is kept in 10 parts, each started
   * by the first sample at least a tenth of it after the previous one, and a part is forgotten
   * as a whole once it started this long ago. [30 seconds]
   */
  readonly samplingDuration?: Duration.Input | undefined
}

/**
 * When a closed circuit breaks: {@link sampling} (the default) or {@link consecutive}.
 *
 * @since 0.1.0
 * @category models
 */
export type TripPolicy =
  | { readonly _tag: "Sampling"; readonly options: SamplingOptions }
  | { readonly _tag: "Consecutive"; readonly failures: number }

/**
 * Polly's sampling policy: break when `failureRatio` of the attempts sampled in the last
 * `samplingDuration` failed, once at least `minimumThroughput` were sampled. The check is made
 * on each failure, so a ratio equal to `failureRatio` breaks.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sampling: (options?: SamplingOptions) => TripPolicy = internal.sampling

/**
 * Break after `failures` failed attempts in a row, in the order they completed; only a success
 * resets the count (an ignored attempt leaves it). [5]
 *
 * @since 0.1.0
 * @category constructors
 */
export const consecutive: (failures?: number) => TripPolicy = internal.consecutive

/**
 * The options of a breaker. Every one is optional; the defaults are in brackets.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** When a closed circuit breaks. [`sampling()`: 10% of at least 100 attempts in 30 s] */
  readonly tripPolicy?: TripPolicy | undefined
  /**
   * How long an open circuit rejects attempts before it lets a probe through; 0.5 s to 1 day.
   * Also how long a probe may stay silent past its own time limit before the next caller takes
   * its place: a probe sent by a client keeps its slot through its attempt's time limit
   * (`attemptTimeout`), however long it takes to go out, and a break more; one admitted by
   * `acquire` or `execute` on their own, a break past its admission. [5 seconds]
   */
  readonly breakDuration?: Duration.Input | undefined
  /**
   * Cap on a break lengthened by the `retryAfter` of the failure that opened the circuit; from
   * `breakDuration` to 1 day. [the larger of 30 seconds and `breakDuration`; 30 seconds as
   * `RetryPolicy`'s `maxDelay`: a server asking for longer still gets one probe every 30
   * seconds, a negligible load]
   */
  readonly maxBreakDuration?: Duration.Input | undefined
  /**
   * Runs on every state change, outside the breaker's critical section: after the change is in
   * effect (`state` reads it), in a fiber of its own, so that no call waits for it (a caller's
   * own timeout holds). One change at a time, in the order they happened, for each breaker; an
   * observer more than 1024 changes behind loses the oldest (a warning says how many). What it
   * throws or dies with is logged as a warning naming the origin and the change, and never
   * changes the circuit or the call.
   */
  readonly onStateChange?: ((change: StateChange) => Effect.Effect<void>) | undefined
}

/**
 * A validated breaker configuration: every option resolved to its value or default.
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
 * @since 0.1.0
 * @category models
 */
export type Outcome = EffectBreaker.Outcome

/**
 * The attempt shows the origin is healthy: a sample that counts for the circuit; a probe's
 * success closes it.
 *
 * @since 0.1.0
 * @category outcomes
 */
export const success: Outcome = internal.success

/**
 * The attempt counts against the origin. `retryAfter` (a server's `Retry-After`) lengthens the
 * break when this failure opens the circuit, up to `maxBreakDuration`; it never shortens it.
 *
 * @since 0.1.0
 * @category outcomes
 */
export const failure: (options?: { readonly retryAfter?: Duration.Input | undefined }) => Outcome = internal.failure

/**
 * The attempt says nothing about the origin's health (a 429, an interruption): not a sample; a
 * probe that ends so frees its slot for the next caller.
 *
 * @since 0.1.0
 * @category outcomes
 */
export const ignored: Outcome = internal.ignored

/**
 * The states of a circuit: `Closed` (attempts pass, samples count), `Open` (attempts are
 * rejected until `retryAfter` has passed; the next attempt then half-opens it), `HalfOpen` (one
 * probe in flight, others rejected; `probing` false once its slot is free or re-armed) and
 * `Isolated` (held open by hand until closed by hand). A circuit whose break has ended reads
 * `Open` with `retryAfter` zero until the next attempt.
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
 * A state change. `manual` tells a change made by `isolate` or `close` from one the breaker
 * made; an opening carries how long its break lasts.
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
 * Permission for one attempt. Report its outcome exactly once (later reports are ignored); an
 * attempt that is interrupted reports {@link ignored}, so that a probe frees its slot.
 *
 * @since 0.1.0
 * @category models
 */
export interface Permit {
  readonly origin: string
  /** Whether this attempt is the half-open probe: its outcome closes or reopens the circuit. */
  readonly probe: boolean
  readonly report: (outcome: Outcome) => Effect.Effect<void>
}

/**
 * An attempt rejected by the circuit without being sent. `state`: `"Open"` (the break is on),
 * `"HalfOpen"` (another caller's probe is in flight) or `"Isolated"` (held open by hand);
 * `retryAfter`: how long until the circuit lets a probe through (for `"HalfOpen"`, until a
 * silent probe's slot is re-armed; infinity when isolated).
 *
 * @since 0.1.0
 * @category errors
 */
export const CircuitOpen: typeof internal.CircuitOpen = internal.CircuitOpen

/**
 * The type of a {@link CircuitOpen} error: `origin`, `state` and `retryAfter`.
 *
 * @since 0.1.0
 * @category errors
 */
export type CircuitOpen = internal.CircuitOpen

/**
 * The breaker service: one circuit per origin key (see {@link originOf}), shared by every
 * attempt that uses this instance.
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
   * The breaker's operations, each for one origin key.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The policy and its resolved options. */
    readonly settings: Settings
    /** Asks to send one attempt: a {@link Permit}, or {@link CircuitOpen} at once. */
    readonly acquire: (origin: string) => Effect.Effect<Permit, CircuitOpen>
    /**
     * Runs one attempt through the circuit: rejected with {@link CircuitOpen}, or run and its
     * exit reported as `classify` says (default: a success is `Success`, any failure a
     * `Failure`). An interruption is always `Ignored`; a `classify` that throws reports
     * `Ignored` and the attempt dies with what it threw.
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
    /** Holds the circuit open (Polly's isolate) until {@link Service.close}. */
    readonly isolate: (origin: string) => Effect.Effect<void>
    /** Closes the circuit by hand, from any state, and forgets its samples. */
    readonly close: (origin: string) => Effect.Effect<void>
    /**
     * Every state change of every origin, in order, from the moment the stream starts running
     * (a forked stream may start a little later than the fork). A subscriber more than 1024
     * changes behind loses the oldest. Never ends by itself.
     */
    readonly changes: Stream.Stream<StateChange>
    /**
     * Subscribes now and gives the stream of every state change from this moment, for as long
     * as the scope lasts: nothing between subscribing and running the stream is missed.
     */
    readonly subscribe: Effect.Effect<Stream.Stream<StateChange>, never, Scope.Scope>
  }
}

/**
 * Validates the options and makes a breaker with its own circuits. A bad option fails with
 * `InvalidRetryPolicy`, naming it (`"circuitBreaker.breakDuration"`,
 * `"circuitBreaker.tripPolicy.failureRatio"`, …).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<CircuitBreaker.Service, RetryPolicy.InvalidRetryPolicy> =
  internal.make

/**
 * The service as a layer: everything provided with one built layer shares its circuits.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<CircuitBreaker, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(CircuitBreaker, internal.make(options))

/**
 * The breaker as Effect 4's own `CircuitBreaker`, for `HttpClient.withCircuitBreaker` and the
 * like: the same circuits, made once per service. Only this reaches `effect/persistence`, so a
 * program that does not call it does not carry Effect's breaker.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toEffectBreaker: (service: CircuitBreaker.Service) => Effect.Effect<EffectBreaker.CircuitBreaker> =
  internal.toEffectBreaker

/**
 * Validates the options into settings, or the first bad option.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (options?: Options) => Result.Result<Settings, RetryPolicy.InvalidRetryPolicy> =
  internal.validate

/**
 * The key a circuit is kept under: `scheme://host:port`, lower-cased, default port filled in.
 * The same function as `RetryBudget.originOf`.
 *
 * @since 0.1.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
