import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import { dual } from "effect/Function"
import * as Metric from "effect/Metric"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import * as PubSub from "effect/PubSub"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy, type Validated } from "./invalidOption.js"
import * as metrics from "./metrics.js"
import { monotonicMillis } from "./retryBudgetService.js"
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

/** @internal */
export const toPublicSettings = (settings: CircuitBreakerCore.BreakerSettings): CircuitBreaker.Settings => ({
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
  maxBreakDuration: Duration.millis(settings.maxBreakDurationMillis)
})

const resolve = (options: unknown): Validated<CircuitBreakerCore.BreakerSettings> =>
  fromChecked(CircuitBreakerCore.resolveOptions(options, durationCodec))

/** @internal */
export const validate = (options?: unknown): Validated<CircuitBreaker.Settings> =>
  Result.map(resolve(options), toPublicSettings)

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

// Effect's transitions know no isolation: a manual change is ours alone (see `changes`).
const toEffectTransition = (
  origin: string,
  transition: CircuitBreakerCore.Transition
): EffectBreaker.Transition | undefined => {
  if (transition.manual) return undefined
  switch (transition.to) {
    case "Open":
      return {
        key: origin,
        from: transition.from,
        to: "Open",
        retryAfter: Duration.millis(transition.breakMillis),
        consecutiveOpenings: 1
      }
    case "HalfOpen":
      return { key: origin, from: "Open", to: "HalfOpen" }
    case "Closed":
      return transition.from === "HalfOpen" ? { key: origin, from: "HalfOpen", to: "Closed" } : undefined
    default:
      return undefined
  }
}

interface Entry {
  readonly origin: string
  readonly machine: CircuitBreakerCore.CircuitBreakerMachine
  readonly attributes: Readonly<Record<string, string>>
}

/** The richer rejection behind each `CircuitBreakerError` our store fails with. */
const rejections = new WeakMap<EffectBreaker.CircuitBreakerError, CircuitOpen>()

const toCircuitOpen = (error: EffectBreaker.CircuitBreakerError): CircuitOpen =>
  rejections.get(error) ??
  new CircuitOpen({
    origin: error.reason._tag === "CircuitBreakerStoreError" ? "" : error.reason.key,
    state: error.reason._tag === "CircuitHalfOpen" ? "HalfOpen" : "Open",
    retryAfter: error.reason._tag === "CircuitOpen" ? error.reason.retryAfter : Duration.zero
  })

const isBreakerError = (u: unknown): u is EffectBreaker.CircuitBreakerError =>
  u instanceof EffectBreaker.CircuitBreakerError

const defaultClassify = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome =>
  exit._tag === "Success" ? EffectBreaker.success : EffectBreaker.failure()

/**
 * The time limit (milliseconds) of the attempt about to be admitted, as the attempt loop sets it
 * around `execute`: a probe with one keeps its slot until it reports, or a break past that limit,
 * however long it takes to go out (see the core's `tryAcquire`); without one, a break past its
 * admission. Read by the store's `admit`, which Effect's breaker runs in the caller's fiber.
 *
 * @internal
 */
export const ProbeTimeLimit = Context.Reference<number | undefined>("effect-http-resilience-effect4/ProbeTimeLimit", {
  defaultValue: () => undefined
})

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
   * Effect's own breaker (`breaker`) learns it from the next admission, as it does an isolation.
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

const makeService = (
  settings: CircuitBreakerCore.BreakerSettings,
  onStateChange: ((change: CircuitBreaker.StateChange) => Effect.Effect<void>) | undefined,
  changes: PubSub.PubSub<CircuitBreaker.StateChange>,
  scope: Scope.Scope
): Effect.Effect<CircuitBreaker.CircuitBreaker.Service> => {
  // Idle circuits are forgotten, and at most `Origin.maxOriginsDefault` are kept (see the core's
  // `CircuitBreakerMachine.isIdle`); an isolated one is kept until closed by hand. Effect's
  // breaker keeps nothing per key of its own: its state is this store's.
  const table = new OriginTable<Entry>(
    (origin) => ({
      origin,
      machine: new CircuitBreakerCore.CircuitBreakerMachine(settings),
      attributes: metrics.originAttributes(origin)
    }),
    (entry, nowMillis, lastUsedMillis) => entry.machine.isIdle(nowMillis, lastUsedMillis),
    { isPinned: (entry) => entry.machine.isIsolated() }
  )

  // The state gauge of origins past the label cap is not kept: their states summed mean nothing.
  const setState = (entry: Entry, state: CircuitBreakerCore.StateTag, value: 0 | 1): Effect.Effect<void> =>
    metrics.isOverflow(entry.attributes)
      ? Effect.void
      : Metric.update(
          Metric.withAttributes(metrics.circuitBreakerState, {
            ...entry.attributes,
            [metrics.attribute.circuitState]: metrics.circuitStateValue[state]
          }),
          value
        )

  const observers = stateObservers.make(onStateChange, changesCapacity)
  let onOpen: ((origin: string, breakMillis: number) => Effect.Effect<void>) | undefined

  // After the step that made the change: the gauge, the counter and the stream; then the
  // delivery to `onStateChange` starts, outside the critical section (the caller does not wait
  // for it, and what it does is logged, never rethrown). The change joins the observers' queue
  // in that very step, so that they see changes in the order they happened. An opening of the
  // breaker's own (not `forced`) is also handed to `onOpen`, if set.
  const announce = (
    entry: Entry,
    transition: CircuitBreakerCore.Transition | undefined,
    forced = false
  ): Effect.Effect<void> => {
    if (transition === undefined) return Effect.void
    const change = toStateChange(entry.origin, transition)
    observers.push(change)
    const transitions = Metric.withAttributes(metrics.circuitBreakerTransitions, {
      ...entry.attributes,
      [metrics.attribute.circuitPreviousState]: metrics.circuitStateValue[transition.from],
      [metrics.attribute.circuitState]: metrics.circuitStateValue[transition.to]
    })
    return Effect.all(
      [
        setState(entry, transition.from, 0),
        setState(entry, transition.to, 1),
        Metric.update(transitions, 1),
        PubSub.publish(changes, change),
        observers.deliver,
        forced || transition.to !== "Open" || onOpen === undefined
          ? Effect.void
          : onOpen(entry.origin, transition.breakMillis)
      ],
      { discard: true }
    )
  }

  // Uninterruptible: a change made in `f`'s step is always announced, and its delivery started.
  const withEntry = <A, E>(
    origin: string,
    f: (entry: Entry, nowMillis: number, probeLimitMillis: number | undefined) => Effect.Effect<A, E>
  ) =>
    Effect.uninterruptible(
      Effect.withFiber((fiber) => {
        const nowMillis = monotonicMillis(fiber.getRef(Clock.Clock))
        const fresh = table.peek(origin) === undefined
        const entry = table.get(origin, nowMillis)
        const run = f(entry, nowMillis, fiber.getRef(ProbeTimeLimit))
        return fresh ? Effect.andThen(setState(entry, "Closed", 1), run) : run
      })
    )

  // Admits or rejects one attempt: our rejection, and Effect's error carrying it.
  const admit = (
    origin: string
  ): Effect.Effect<
    CircuitBreakerCore.Permit & { readonly transition: CircuitBreakerCore.Transition | undefined },
    CircuitOpen
  > =>
    withEntry(origin, (entry, nowMillis, probeLimitMillis) => {
      const admission = entry.machine.tryAcquire(nowMillis, probeLimitMillis)
      if (admission._tag === "Rejected") {
        const rejections = Metric.withAttributes(metrics.circuitBreakerRejections, {
          ...entry.attributes,
          [metrics.attribute.circuitState]: metrics.circuitStateValue[admission.state]
        })
        const error = new CircuitOpen({
          origin,
          state: admission.state,
          retryAfter: millisToDuration(admission.retryAfterMillis)
        })
        return Effect.andThen(Metric.update(rejections, 1), Effect.fail(error))
      }
      return Effect.as(announce(entry, admission.transition), {
        ...admission.permit,
        transition: admission.transition
      })
    })

  const report = (origin: string, generation: number, outcome: CircuitBreakerCore.Outcome) =>
    withEntry(origin, (entry, nowMillis) => {
      const transition = entry.machine.reportGeneration(nowMillis, generation, outcome)
      return Effect.as(announce(entry, transition), transition)
    })

  // Our machines as Effect 4's store: its CircuitBreaker admits, runs, classifies and records
  // through them.
  const store = EffectBreaker.CircuitBreakerStore.of({
    admit: (key) =>
      Effect.mapError(
        Effect.map(admit(key), (permit) => ({
          generation: permit.generation,
          probe: permit.probe,
          consecutiveOpenings: 0,
          transition: permit.transition === undefined ? undefined : toEffectTransition(key, permit.transition)
        })),
        (rejection) => {
          const reason =
            rejection.state === "HalfOpen"
              ? new EffectBreaker.CircuitHalfOpen({ key })
              : new EffectBreaker.CircuitOpen({ key, retryAfter: rejection.retryAfter })
          const error = new EffectBreaker.CircuitBreakerError({ reason })
          rejections.set(error, rejection)
          return error
        }
      ),
    record: ({ key, generation, outcome, openFor }) =>
      Effect.map(
        report(
          key,
          generation,
          // Effect folds a failure's Retry-After into `openFor` (capped at maxOpenDuration,
          // which is our maxBreakDuration): the machine reads it back as the hint.
          outcome === "Failure" ? { _tag: "Failure", retryAfterMillis: Duration.toMillis(openFor) } : { _tag: outcome }
        ),
        (transition) => (transition === undefined ? undefined : toEffectTransition(key, transition))
      ),
    state: (key) =>
      Effect.map(state(key), (current): EffectBreaker.State => {
        switch (current._tag) {
          case "Closed":
            return { _tag: "Closed", key }
          case "HalfOpen":
            return { _tag: "HalfOpen", key, probing: current.probing, consecutiveOpenings: 0 }
          case "Open":
            return { _tag: "Open", key, retryAfter: current.retryAfter, consecutiveOpenings: 0 }
          case "Isolated":
            return { _tag: "Open", key, retryAfter: Duration.infinity, consecutiveOpenings: 0 }
        }
      })
  })

  const state = (origin: string): Effect.Effect<CircuitBreaker.State> =>
    Effect.clockWith((clock) =>
      Effect.sync((): CircuitBreaker.State => {
        const entry = table.peek(origin)
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

  const toEffectOutcome = (outcome: CircuitBreaker.Outcome): EffectBreaker.Outcome =>
    outcome._tag === "Failure" ? EffectBreaker.failure({ retryAfter: outcome.retryAfter }) : outcome

  const manual =
    (apply: (machine: CircuitBreakerCore.CircuitBreakerMachine) => CircuitBreakerCore.Transition | undefined) =>
    (origin: string) =>
      withEntry(origin, (entry) => announce(entry, apply(entry.machine)))

  return Effect.map(
    EffectBreaker.make({
      tripPolicy:
        settings.tripPolicy._tag === "Consecutive"
          ? EffectBreaker.consecutive(settings.tripPolicy.failures)
          : // Effect's own rate policy counts the last N calls; ours samples a time window. The
            // store is ours, so this only describes the policy to Effect.
            EffectBreaker.rate({
              threshold: settings.tripPolicy.failureRatio,
              size: settings.tripPolicy.minimumThroughput
            }),
      openDuration: Duration.millis(settings.breakDurationMillis),
      maxOpenDuration: Duration.millis(settings.maxBreakDurationMillis),
      onStoreError: "fail"
    }).pipe(Effect.provideService(EffectBreaker.CircuitBreakerStore, store), Scope.provide(scope)),
    (breaker): CircuitBreaker.CircuitBreaker.Service => {
      const execute = <A, E, R>(
        self: Effect.Effect<A, E, R>,
        origin: string,
        classify: (exit: Exit.Exit<A, E>) => CircuitBreaker.Outcome = defaultClassify
      ): Effect.Effect<A, E | CircuitOpen, R> =>
        Effect.mapError(
          breaker.execute(self, { key: origin, classify: (exit) => toEffectOutcome(classify(exit)) }),
          (error) => (isBreakerError(error) ? toCircuitOpen(error) : error)
        )
      const service: CircuitBreaker.CircuitBreaker.Service = {
        settings: toPublicSettings(settings),
        breaker,
        acquire: (origin) =>
          Effect.map(admit(origin), (permit) => {
            let reported = false
            return {
              origin,
              probe: permit.probe,
              report: (outcome) =>
                Effect.suspend(() => {
                  if (reported) return Effect.void
                  reported = true
                  const coreOutcome: CircuitBreakerCore.Outcome =
                    outcome._tag === "Failure" && outcome.retryAfter !== undefined
                      ? { _tag: "Failure", retryAfterMillis: Duration.toMillis(outcome.retryAfter) }
                      : { _tag: outcome._tag }
                  return Effect.asVoid(report(origin, permit.generation, coreOutcome))
                })
            }
          }),
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
        >((args) => Effect.isEffect(args[0]), execute),
        state,
        isolate: manual((machine) => machine.isolate()),
        close: manual((machine) => machine.close()),
        changes: Stream.fromPubSub(changes),
        subscribe: Effect.map(PubSub.subscribe(changes), Stream.fromSubscription)
      }
      controls.set(service, {
        settings,
        forceOpen: (origin, breakMillis) =>
          withEntry(origin, (entry, nowMillis) =>
            announce(entry, entry.machine.forceOpen(nowMillis, breakMillis), true)
          ),
        setOnOpen: (set) => {
          onOpen = set
        }
      })
      return service
    }
  )
}

/** How many state changes a slow subscriber may fall behind before the oldest are dropped. @internal */
export const changesCapacity = 1024

/** @internal */
export const make = (
  options?: CircuitBreaker.Options
): Effect.Effect<CircuitBreaker.CircuitBreaker.Service, InvalidRetryPolicy> =>
  Effect.suspend(() =>
    Result.match(resolve(options), {
      onFailure: Effect.fail,
      onSuccess: (settings) =>
        Effect.flatMap(PubSub.sliding<CircuitBreaker.StateChange>(changesCapacity), (changes) =>
          // Effect's breaker needs a scope for its transitions stream; ours lives as long as
          // the breaker does (a breaker is made where no scope is at hand, by a policy).
          makeService(settings, options?.onStateChange, changes, Scope.makeUnsafe())
        )
    })
  )
