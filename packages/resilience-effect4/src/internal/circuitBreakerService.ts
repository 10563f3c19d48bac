// @generated from templates/src/internal/circuitBreakerService.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The circuit breaker service: one core `CircuitBreakerMachine` per origin, kept in an
// `OriginTable`. Each operation is a module-level function over one `Breaker` record; a change of
// state is announced (gauge, counter, `changes`, the observers' queue) in the synchronous step
// that made it, so that they all see changes in the order they happened even when fibers race.
// On Effect 4, `effectBreaker.ts` makes these circuits the store of Effect's own breaker.
import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import { dual } from "effect/Function"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type { Send } from "./attemptLoop.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy, orThrow, type Validated } from "./invalidOption.js"
import * as metrics from "./metrics.js"
import { serverDelayMillis } from "./retryPolicy.js"
import { monotonicMillis } from "./retryBudgetService.js"
import * as line from "./line.js"
import * as stateObservers from "./stateObservers.js"

/** @internal */
export class CircuitOpen extends Data.TaggedError("CircuitOpen")<{
  readonly origin: string
  readonly state: "Open" | "HalfOpen" | "Isolated"
  readonly retryAfter: Duration.Duration
}> {
  override get message(): string {
    return CircuitBreakerCore.rejectionMessage(this.origin, this.state, Duration.format(this.retryAfter))
  }
}

/** @internal */
export const sampling = (options: CircuitBreaker.SamplingOptions = {}): CircuitBreaker.TripPolicy => ({
  _tag: "Sampling",
  options
})

/** @internal */
export const consecutive = (
  failures: number = CircuitBreakerCore.consecutiveDefaults.failures
): CircuitBreaker.TripPolicy => ({
  _tag: "Consecutive",
  failures
})

// The outcomes as plain records, so that a call's path needs no outcome constructor of Effect's.

/** @internal */
export const success: CircuitBreaker.Outcome = { _tag: "Success" }

/** @internal */
export const ignored: CircuitBreaker.Outcome = { _tag: "Ignored" }

/** A failure without a `Retry-After`. @internal */
const failed: CircuitBreaker.Outcome = { _tag: "Failure" }

/** @internal */
export const failure = (options?: { readonly retryAfter?: Duration.Input | undefined }): CircuitBreaker.Outcome =>
  options?.retryAfter === undefined
    ? failed
    : { _tag: "Failure", retryAfter: Duration.fromInputUnsafe(options.retryAfter) }

// ---------------------------------------------------------------------------------------------
// Options: the shared core's checks; the callback is only ours to call.

/** @internal */
const toPublicSettings = (settings: CircuitBreakerCore.BreakerSettings): CircuitBreaker.Settings => ({
  tripPolicy:
    settings.tripPolicy._tag === "Consecutive"
      ? settings.tripPolicy
      : {
          _tag: "Sampling",
          failureRatio: settings.tripPolicy.failureRatio,
          minimumThroughput: settings.tripPolicy.minimumThroughput,
          samplingDuration: Duration.millis(settings.tripPolicy.samplingDurationMillis)
        },
  breakDuration: Duration.millis(settings.breakDurationMillis),
  maxBreakDuration: Duration.millis(settings.maxBreakDurationMillis),
  slowCalls:
    settings.slowCalls === undefined
      ? undefined
      : {
          duration: Duration.millis(settings.slowCalls.durationMillis),
          ratio: settings.slowCalls.ratio,
          minimumThroughput: settings.slowCalls.minimumThroughput,
          samplingDuration: Duration.millis(settings.slowCalls.samplingDurationMillis)
        },
  halfOpen: settings.halfOpen ?? CircuitBreakerCore.halfOpenDefaults
})

const resolve = (options: CircuitBreaker.Options | undefined): Validated<CircuitBreakerCore.BreakerSettings> =>
  fromChecked(CircuitBreakerCore.resolveOptions(options, durationCodec))

/** @internal */
export const validate = (options?: CircuitBreaker.Options): Validated<CircuitBreaker.Settings> =>
  Result.map(resolve(options), toPublicSettings)

// ---------------------------------------------------------------------------------------------
// A step: what it reads of the calling fiber.

/**
 * The time limit (milliseconds) of the attempt about to be admitted, as the attempt loop sets it
 * around `execute` or `acquire`: a probe with one keeps its slot until it reports, or a break
 * past that limit, however long it takes to go out (see the core's `tryAcquire`); without one, a
 * break past its admission.
 * On Effect 4, read by the store's `admit` too, which Effect's breaker runs in the caller's fiber.
 *
 * @internal
 */
const probeTimeLimit = line.local<number | undefined>("effect-http-resilience-effect4/ProbeTimeLimit", () => undefined)

/** Runs `f` uninterruptibly with the fiber's monotonic time, probe time limit and context. */
const inStep = <A, E>(
  f: (nowMillis: number, probeLimitMillis: number | undefined, context: Context.Context<never>) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.uninterruptible(
    Effect.clockWith((clock) =>
      line.withLocalAndContext(probeTimeLimit, (probeLimitMillis, context) =>
        f(monotonicMillis(clock), probeLimitMillis, context)
      )
    )
  )

// ---------------------------------------------------------------------------------------------
// The service

/** The queues of a breaker's subscribers to its state changes (see `subscribeChanges`). */
type Changes = Set<Queue.Queue<CircuitBreaker.StateChange>>

/** One breaker: its settings and circuits, and where their changes go. @internal @oneLine */
export interface Breaker {
  readonly settings: CircuitBreakerCore.BreakerSettings
  readonly table: OriginTable<Entry>
  readonly changes: Changes
  readonly observers: stateObservers.StateObservers
  /** Told of each opening the breaker decided itself (see `Controls.setOnOpen`). */
  onOpen: ((origin: string, breakMillis: number) => Effect.Effect<void>) | undefined
}

/** @internal @oneLine */
export interface Entry {
  readonly origin: string
  readonly machine: CircuitBreakerCore.CircuitBreakerMachine
  readonly labels: metrics.OriginLabels
  /** Whether the state gauge shows this circuit yet: it starts closed at its first step. */
  shown: boolean
  /** Dropped from the table: its late reports must not reach anyone. */
  retired: boolean
}

const makeBreaker = (
  settings: CircuitBreakerCore.BreakerSettings,
  onStateChange: ((change: CircuitBreaker.StateChange) => Effect.Effect<void>) | undefined
): Breaker => ({
  settings,
  // Idle circuits are forgotten, and at most `Origin.maxOriginsDefault` are kept (see the core's
  // `CircuitBreakerMachine.isIdle`); an isolated one is kept until closed by hand.
  table: new OriginTable<Entry>(
    (origin) => ({
      origin,
      machine: new CircuitBreakerCore.CircuitBreakerMachine(settings),
      labels: metrics.originAttributes(origin),
      shown: false,
      retired: false
    }),
    (entry, nowMillis, lastUsedMillis) => entry.machine.isIdle(nowMillis, lastUsedMillis),
    {
      onEvict: (entry) => {
        entry.retired = true
      },
      isPinned: (entry) => entry.machine.isIsolated()
    }
  ),
  changes: new Set(),
  observers: stateObservers.make(onStateChange, changesCapacity),
  onOpen: undefined
})

const millisToDuration = (millis: number): Duration.Duration =>
  Number.isFinite(millis) ? Duration.millis(millis) : Duration.infinity

const toStateChange = (origin: string, transition: CircuitBreakerCore.Transition): CircuitBreaker.StateChange =>
  transition.to === "Open"
    ? {
        origin,
        from: transition.from,
        to: "Open",
        breakDuration: Duration.millis(transition.breakMillis),
        manual: false
      }
    : { ...transition, origin }

const toCoreOutcome = (outcome: CircuitBreaker.Outcome): CircuitBreakerCore.Outcome =>
  outcome._tag === "Failure" && outcome.retryAfter !== undefined
    ? { _tag: "Failure", retryAfterMillis: Duration.toMillis(outcome.retryAfter) }
    : outcome._tag === "Failure"
      ? { _tag: "Failure" }
      : outcome

const defaultClassify = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome =>
  Exit.isSuccess(exit) ? success : failed

// The state gauge of origins past the label cap is not kept: their states summed mean nothing.
const setState = (entry: Entry, state: CircuitBreakerCore.StateTag, value: 0 | 1, context: Context.Context<never>) => {
  if (!metrics.isOverflow(entry.labels))
    line.updateNow(metrics.circuitBreakerState, value, metrics.withCircuitStates(entry.labels, state), context)
}

// In the synchronous step that made the change: the gauge, the counter, the stream and the
// observers' queue. (The metric updates carry the origin's attributes, not the calling fiber's
// metric tags.) The observers themselves run later, in a fiber of their own: see `notify`.
const announce = (
  breaker: Breaker,
  entry: Entry,
  transition: CircuitBreakerCore.Transition,
  context: Context.Context<never>
): void => {
  setState(entry, transition.from, 0, context)
  setState(entry, transition.to, 1, context)
  line.updateNow(
    metrics.circuitBreakerTransitions,
    1,
    metrics.withCircuitStates(entry.labels, transition.to, transition.from),
    context
  )
  const change = toStateChange(entry.origin, transition)
  for (const queue of breaker.changes) Queue.offerUnsafe(queue, change)
  breaker.observers.push(change)
}

// Announces a committed change, and starts its delivery to `onStateChange` outside the
// critical section: the caller does not wait for it, and what it does is logged, never
// rethrown. Callers run this uninterruptibly, so that the delivery is always started. An
// opening of the breaker's own (not `forced`) is also handed to `onOpen`, if set.
/** @internal @oneLine */
export const notify = (
  breaker: Breaker,
  entry: Entry,
  transition: CircuitBreakerCore.Transition | undefined,
  context: Context.Context<never>,
  forced = false
): Effect.Effect<void> => {
  if (transition === undefined) return Effect.void
  announce(breaker, entry, transition, context)
  if (forced || transition.to !== "Open" || breaker.onOpen === undefined) return breaker.observers.deliver
  return Effect.andThen(breaker.observers.deliver, breaker.onOpen(entry.origin, transition.breakMillis))
}

// One step on the circuit of `origin`, uninterruptible: a change made in it is always announced,
// and its delivery started.
/** @internal @oneLine */
export const withEntry = <A, E>(
  breaker: Breaker,
  origin: string,
  f: (
    entry: Entry,
    nowMillis: number,
    probeLimitMillis: number | undefined,
    context: Context.Context<never>
  ) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  inStep((nowMillis, probeLimitMillis, context) => {
    const entry = breaker.table.get(origin, nowMillis)
    if (!entry.shown) {
      entry.shown = true
      setState(entry, "Closed", 1, context)
    }
    return f(entry, nowMillis, probeLimitMillis, context)
  })

/** Admits one attempt (`permitted` makes what the caller gets of it), or rejects it with `CircuitOpen`. @internal @oneLine */
export const admit = <A>(
  breaker: Breaker,
  origin: string,
  permitted: (
    entry: Entry,
    permit: CircuitBreakerCore.Permit,
    transition: CircuitBreakerCore.Transition | undefined
  ) => A
): Effect.Effect<A, CircuitOpen> =>
  withEntry(breaker, origin, (entry, nowMillis, probeLimitMillis, context) => {
    const admission = entry.machine.tryAcquire(nowMillis, probeLimitMillis)
    if (admission._tag === "Rejected") {
      line.updateNow(
        metrics.circuitBreakerRefusals,
        1,
        metrics.withCircuitStates(entry.labels, admission.state),
        context
      )
      return Effect.fail(
        new CircuitOpen({ origin, state: admission.state, retryAfter: millisToDuration(admission.retryAfterMillis) })
      )
    }
    const admitted = permitted(entry, admission.permit, admission.transition)
    if (admission.transition === undefined) return Effect.succeed(admitted)
    return Effect.as(notify(breaker, entry, admission.transition, context), admitted)
  })

// A permit reports once, to the circuit that issued it, unless that circuit was dropped since.
const makePermit = (breaker: Breaker, entry: Entry, permit: CircuitBreakerCore.Permit): CircuitBreaker.Permit => {
  let reported = false
  return {
    origin: entry.origin,
    probe: permit.probe,
    report: (outcome) =>
      inStep((nowMillis, _, context) => {
        if (reported || entry.retired) return Effect.void
        reported = true
        return notify(breaker, entry, entry.machine.report(nowMillis, permit, toCoreOutcome(outcome)), context)
      })
  }
}

const acquire = (breaker: Breaker, origin: string): Effect.Effect<CircuitBreaker.Permit, CircuitOpen> =>
  admit(breaker, origin, (entry, permit) => makePermit(breaker, entry, permit))

/** @internal @oneLine */
export const stateOf = (breaker: Breaker, origin: string): Effect.Effect<CircuitBreaker.State> =>
  Effect.clockWith((clock) =>
    Effect.sync((): CircuitBreaker.State => {
      const entry = breaker.table.peek(origin)
      if (entry === undefined) return { _tag: "Closed", origin }
      const snapshot = entry.machine.snapshot(monotonicMillis(clock))
      switch (snapshot._tag) {
        case "Closed":
        case "Isolated":
          return { _tag: snapshot._tag, origin }
        case "Open":
          return { _tag: "Open", origin, retryAfter: Duration.millis(snapshot.retryAfterMillis) }
        case "HalfOpen":
          return {
            _tag: "HalfOpen",
            origin,
            probing: snapshot.probing,
            retryAfter: Duration.millis(snapshot.retryAfterMillis)
          }
      }
    })
  )

const manual =
  (apply: (machine: CircuitBreakerCore.CircuitBreakerMachine) => CircuitBreakerCore.Transition | undefined) =>
  (breaker: Breaker, origin: string): Effect.Effect<void> =>
    withEntry(breaker, origin, (entry, _nowMillis, _probeLimitMillis, context) =>
      notify(breaker, entry, apply(entry.machine), context)
    )

const isolate = manual((machine) => machine.isolate())

const close = manual((machine) => machine.close())

const forceOpen = (breaker: Breaker, origin: string, breakMillis: number): Effect.Effect<void> =>
  withEntry(breaker, origin, (entry, nowMillis, _probeLimitMillis, context) =>
    notify(breaker, entry, entry.machine.forceOpen(nowMillis, breakMillis), context, true)
  )

const execute = <A, E, R>(
  breaker: Breaker,
  self: Effect.Effect<A, E, R>,
  origin: string,
  classify: (exit: Exit.Exit<A, E>) => CircuitBreaker.Outcome = defaultClassify
): Effect.Effect<A, E | CircuitOpen, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(acquire(breaker, origin), (permit) =>
      Effect.flatMap(Effect.exit(restore(self)), (exit) => {
        // An interruption says nothing about the origin's health, and must free a probe's slot.
        if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))
          return Effect.andThen(permit.report(ignored), exit)
        let outcome: CircuitBreaker.Outcome
        try {
          outcome = classify(exit)
        } catch (defect) {
          return Effect.andThen(permit.report(ignored), Effect.die(defect))
        }
        return Effect.andThen(permit.report(outcome), exit)
      })
    )
  )

/**
 * What a shared store does with a breaker it made, beyond the public service.
 *
 * @internal
 */
export interface Controls {
  /** The breaker's settings, as the core checked them. */
  readonly settings: CircuitBreakerCore.BreakerSettings
  /**
   * Opens the origin's circuit for `breakMillis` (within `breakDuration` and `maxBreakDuration`)
   * when it is closed or half-open: the metrics, `changes` and `onStateChange` see it as any
   * opening; `onOpen` does not, so that an opening learned from elsewhere is not told again.
   * On Effect 4, Effect's own breaker (`toEffectBreaker`) learns it from the next admission, as it does an isolation.
   */
  readonly forceOpen: (origin: string, breakMillis: number) => Effect.Effect<void>
  /**
   * Sets what runs after each opening the breaker decided itself (a failure, a failed probe;
   * not a forced one), in the step that made it and uninterruptibly: it must not wait (fork
   * what takes time).
   */
  readonly setOnOpen: (onOpen: ((origin: string, breakMillis: number) => Effect.Effect<void>) | undefined) => void
}

const controls = new WeakMap<CircuitBreaker.CircuitBreaker.Service, Controls>()

/**
 * The controls of a breaker made by {@link make}; `undefined` for any other service.
 *
 * @internal
 */
export const controlsOf = (service: CircuitBreaker.CircuitBreaker.Service): Controls | undefined =>
  controls.get(service)

// The breaker behind each service made by `make`: Effect 4's `toEffectBreaker` keeps its circuits.
const breakers = new WeakMap<CircuitBreaker.CircuitBreaker.Service, Breaker>()

/**
 * The breaker behind a service made by {@link make}; `undefined` for any other service.
 *
 * @internal
 * @oneLine
 */
export const breakerOf = (service: CircuitBreaker.CircuitBreaker.Service): Breaker | undefined => breakers.get(service)

const makeService = (breaker: Breaker): CircuitBreaker.CircuitBreaker.Service => {
  const service: CircuitBreaker.CircuitBreaker.Service = {
    settings: toPublicSettings(breaker.settings),
    acquire: (origin) => acquire(breaker, origin),
    execute: dual<
      <A, E>(
        origin: string,
        classify?: (exit: Exit.Exit<A, E>) => CircuitBreaker.Outcome
      ) => <R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | CircuitOpen, R>,
      <A, E, R>(
        self: Effect.Effect<A, E, R>,
        origin: string,
        classify?: (exit: Exit.Exit<A, E>) => CircuitBreaker.Outcome
      ) => Effect.Effect<A, E | CircuitOpen, R>
    >(
      (args) => Effect.isEffect(args[0]),
      (self, origin, classify) => execute(breaker, self, origin, classify)
    ),
    state: (origin) => stateOf(breaker, origin),
    isolate: (origin) => isolate(breaker, origin),
    close: (origin) => close(breaker, origin),
    changes: line.scopedQueueStream(subscribeChanges(breaker.changes)),
    subscribe: Effect.map(subscribeChanges(breaker.changes), line.queueStream)
  }
  breakers.set(service, breaker)
  controls.set(service, {
    settings: breaker.settings,
    forceOpen: (origin, breakMillis) => forceOpen(breaker, origin, breakMillis),
    setOnOpen: (onOpen) => {
      breaker.onOpen = onOpen
    }
  })
  return service
}

/** How many state changes a slow subscriber may fall behind before the oldest are dropped. @internal */
const changesCapacity = 1024

/**
 * A subscriber's own queue of state changes, dropping its oldest past `changesCapacity`, in
 * `changes` for the scope's life: what a sliding `PubSub` would give, without its machinery.
 */
const subscribeChanges = (
  changes: Changes
): Effect.Effect<Queue.Queue<CircuitBreaker.StateChange>, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tap(Queue.sliding<CircuitBreaker.StateChange>(changesCapacity), (queue) =>
      Effect.sync(() => {
        changes.add(queue)
      })
    ),
    (queue) =>
      Effect.andThen(
        Effect.sync(() => {
          changes.delete(queue)
        }),
        Queue.shutdown(queue)
      )
  )

/** @internal */
export const make = (
  options?: CircuitBreaker.Options
): Effect.Effect<CircuitBreaker.CircuitBreaker.Service, InvalidRetryPolicy> =>
  Effect.suspend(() =>
    Result.match(resolve(options), {
      onFailure: Effect.fail,
      onSuccess: (settings) => {
        return Effect.succeed(makeService(makeBreaker(settings, options?.onStateChange)))
      }
    })
  )

// ---------------------------------------------------------------------------------------------
// The breaker stage

// A callback's identity is part of a breaker's settings: two clients with different observers
// do not share a breaker, so neither misses its own state changes.
const callbackIds = new WeakMap<object, number>()
let nextCallbackId = 0
const callbackId = (callback: object | undefined): number => {
  if (callback === undefined) return 0
  let id = callbackIds.get(callback)
  if (id === undefined) {
    id = ++nextCallbackId
    callbackIds.set(callback, id)
  }
  return id
}

const isService = (input: unknown): input is CircuitBreaker.CircuitBreaker.Service =>
  Predicate.hasProperty(input, "acquire") && typeof input.acquire === "function"

// What an attempt tells the breaker (the shared core's rule, in this line's `Outcome`): anything
// but an `HttpFailure` (an interruption, another error) says nothing about the origin.
const breakerOutcome = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome => {
  if (exit._tag === "Success") return success
  const failure = line.onlyFailure(exit.cause)
  if (!HttpFailure.isHttpFailure(failure)) return ignored
  const outcome = CircuitBreakerCore.outcomeOfFailure(failure, serverDelayMillis(failure))
  if (outcome._tag !== "Failure") return outcome
  return outcome.retryAfterMillis === undefined
    ? failed
    : { _tag: "Failure", retryAfter: Duration.millis(outcome.retryAfterMillis) }
}

/**
 * The breaker stage: each attempt below it goes through its origin's circuit, which may reject it
 * unsent; the breaker hears the attempt's time limit, so that a probe keeps its slot while within
 * it. With options, the store keeps one breaker per settings (and `onStateChange`), shared by
 * every policy with the same; with a service, that service.
 *
 * @internal
 */
export const perOrigin = (
  input?: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service
): CircuitBreaker.PerOrigin => {
  let breakerIn: (
    store: ResilienceStore.ResilienceStore.Service
  ) => Effect.Effect<CircuitBreaker.CircuitBreaker.Service>
  if (isService(input)) {
    const given = Effect.succeed(input)
    breakerIn = () => given
  } else {
    const settings = orThrow(CircuitBreakerCore.resolveOptions(input, durationCodec), "circuitBreaker")
    const key = `circuitBreaker ${callbackId(input?.onStateChange)} ${JSON.stringify(settings)}`
    const make = () => makeService(makeBreaker(settings, input?.onStateChange))
    breakerIn = (store) =>
      Effect.suspend(() => {
        const breaker = store.keep(key, make)
        const share = store.shareCircuitBreaker
        return share === undefined ? Effect.succeed(breaker) : Effect.as(share(breaker), breaker)
      })
  }
  const wrap =
    (next: Send): Send =>
    (call, attempt, limitMillis, kind) =>
      Effect.flatMap(breakerIn(call.store), (circuits) =>
        line.withLocal(
          circuits.execute(
            Effect.suspend(() => next(call, attempt, limitMillis, kind)),
            call.origin.key,
            breakerOutcome
          ),
          probeTimeLimit,
          limitMillis
        )
      )
  return {
    [StageTypeId]: "circuitBreaker",
    breakerIn,
    isClosed: (store, origin) =>
      Effect.flatMap(breakerIn(store), (circuits) =>
        Effect.map(circuits.state(origin), (state) => state._tag === "Closed")
      ),
    wrap
  }
}
