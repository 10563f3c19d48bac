import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import { globalValue } from "effect/GlobalValue"
import * as MetricLabel from "effect/MetricLabel"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as metrics from "./metrics.js"
import { monotonicMillis } from "./retryBudgetService.js"
import { durationCodec, fromChecked, type Validated } from "./invalidOption.js"
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
export const success: CircuitBreaker.Outcome = { _tag: "Success" }

/** @internal */
export const ignored: CircuitBreaker.Outcome = { _tag: "Ignored" }

/** @internal */
export const failure = (options?: {
  readonly retryAfter?: Duration.DurationInput | undefined
}): CircuitBreaker.Outcome =>
  options?.retryAfter === undefined
    ? { _tag: "Failure" }
    : { _tag: "Failure", retryAfter: Duration.decode(options.retryAfter) }

// ---------------------------------------------------------------------------------------------
// Options: the shared core's checks; the callback is only ours to call.

interface Resolved {
  readonly settings: CircuitBreakerCore.BreakerSettings
  readonly onStateChange: ((change: CircuitBreaker.StateChange) => Effect.Effect<void>) | undefined
}

/** @internal */
export const resolve = (options: CircuitBreaker.Options | undefined): Validated<Resolved> =>
  Either.map(fromChecked(CircuitBreakerCore.resolveOptions(options, durationCodec)), (settings) => ({
    settings,
    onStateChange: options?.onStateChange
  }))

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

/** @internal */
export const validate = (
  options?: CircuitBreaker.Options
): Either.Either<CircuitBreaker.Settings, RetryPolicy.InvalidRetryPolicy> =>
  Either.map(resolve(options), (resolved) => toPublicSettings(resolved.settings))

// ---------------------------------------------------------------------------------------------
// The service

/**
 * The time limit (milliseconds) of the attempt `execute` or `acquire` is about to admit, as the
 * attempt loop sets it: a probe with one keeps its slot until it reports, or a break past that
 * limit, however long it takes to go out (see the core's `tryAcquire`); without one, a break
 * past its admission.
 *
 * @internal
 */
export const currentProbeTimeLimit: FiberRef.FiberRef<number | undefined> = globalValue(
  Symbol.for("effect-http-resilience/currentProbeTimeLimit"),
  () => FiberRef.unsafeMake<number | undefined>(undefined)
)

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
  Exit.isSuccess(exit) ? success : failure()

interface Entry {
  readonly origin: string
  readonly machine: CircuitBreakerCore.CircuitBreakerMachine
  readonly labels: ReadonlyArray<MetricLabel.MetricLabel>
  /** Dropped from the table: its late reports must not reach anyone. */
  retired: boolean
}

const stateLabel = (state: CircuitBreakerCore.StateTag): MetricLabel.MetricLabel =>
  MetricLabel.make(metrics.attribute.circuitState, metrics.circuitStateValue[state])

const previousStateLabel = (state: CircuitBreakerCore.StateTag): MetricLabel.MetricLabel =>
  MetricLabel.make(metrics.attribute.circuitPreviousState, metrics.circuitStateValue[state])

// The state gauge of origins past the label cap is not kept: their states summed mean nothing.
const setState = (
  labels: ReadonlyArray<MetricLabel.MetricLabel>,
  state: CircuitBreakerCore.StateTag,
  value: 0 | 1
): void => {
  if (!metrics.isOverflow(labels)) metrics.circuitBreakerState.unsafeUpdate(value, [...labels, stateLabel(state)])
}

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
  resolved: Resolved,
  changes: PubSub.PubSub<CircuitBreaker.StateChange>
): CircuitBreaker.CircuitBreaker.Service => {
  const { settings, onStateChange } = resolved
  const observers = stateObservers.make(onStateChange, changesCapacity)
  let onOpen: ((origin: string, breakMillis: number) => Effect.Effect<void>) | undefined
  // Idle circuits are forgotten, and at most `Origin.maxOriginsDefault` are kept (see the core's
  // `CircuitBreakerMachine.isIdle`); an isolated one is kept until closed by hand.
  const table = new OriginTable<Entry>(
    (origin) => {
      const labels = metrics.originLabels(origin)
      setState(labels, "Closed", 1)
      return { origin, machine: new CircuitBreakerCore.CircuitBreakerMachine(settings), labels, retired: false }
    },
    (entry, nowMillis, lastUsedMillis) => entry.machine.isIdle(nowMillis, lastUsedMillis),
    {
      onEvict: (entry) => {
        entry.retired = true
      },
      isPinned: (entry) => entry.machine.isIsolated()
    }
  )

  // Runs inside the synchronous step that made the change, so that the stream, the gauge, the
  // counters and the observers' queue see changes in the order they happened even when fibers
  // race. (The metric updates carry the origin's attributes, not the calling fiber's metric
  // tags.) The observers themselves run later, in a fiber of their own: see `notify`.
  const announce = (entry: Entry, transition: CircuitBreakerCore.Transition): void => {
    setState(entry.labels, transition.from, 0)
    setState(entry.labels, transition.to, 1)
    metrics.circuitBreakerTransitions.unsafeUpdate(1, [
      ...entry.labels,
      previousStateLabel(transition.from),
      stateLabel(transition.to)
    ])
    const change = toStateChange(entry.origin, transition)
    changes.unsafeOffer(change)
    observers.push(change)
  }

  // Announces a committed change, and starts its delivery to `onStateChange` outside the
  // critical section: the caller does not wait for it, and what it does is logged, never
  // rethrown. Callers run this uninterruptibly, so that the delivery is always started. An
  // opening of the breaker's own (not `forced`) is also handed to `onOpen`, if set.
  const notify = (
    entry: Entry,
    transition: CircuitBreakerCore.Transition | undefined,
    forced = false
  ): Effect.Effect<void> => {
    if (transition === undefined) return Effect.void
    announce(entry, transition)
    if (forced || transition.to !== "Open" || onOpen === undefined) return observers.deliver
    return Effect.zipRight(observers.deliver, onOpen(entry.origin, transition.breakMillis))
  }

  const withEntry = <A, E>(
    origin: string,
    f: (entry: Entry, nowMillis: number) => Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.clockWith((clock) =>
      Effect.suspend(() => {
        const nowMillis = monotonicMillis(clock)
        return f(table.get(origin, nowMillis), nowMillis)
      })
    )

  const makePermit = (entry: Entry, permit: CircuitBreakerCore.Permit): CircuitBreaker.Permit => {
    let reported = false
    return {
      origin: entry.origin,
      probe: permit.probe,
      report: (outcome) =>
        Effect.uninterruptible(
          Effect.clockWith((clock) =>
            Effect.suspend(() => {
              if (reported || entry.retired) return Effect.void
              reported = true
              return notify(entry, entry.machine.report(monotonicMillis(clock), permit, toCoreOutcome(outcome)))
            })
          )
        )
    }
  }

  const acquire = (origin: string): Effect.Effect<CircuitBreaker.Permit, CircuitBreaker.CircuitOpen> =>
    Effect.uninterruptible(
      FiberRef.getWith(currentProbeTimeLimit, (probeLimitMillis) =>
        withEntry(origin, (entry, nowMillis) => {
          const admission = entry.machine.tryAcquire(nowMillis, probeLimitMillis)
          if (admission._tag === "Rejected") {
            metrics.circuitBreakerRejections.unsafeUpdate(1, [...entry.labels, stateLabel(admission.state)])
            return Effect.fail(
              new CircuitOpen({
                origin,
                state: admission.state,
                retryAfter: millisToDuration(admission.retryAfterMillis)
              })
            )
          }
          const permit = makePermit(entry, admission.permit)
          if (admission.transition === undefined) return Effect.succeed(permit)
          return Effect.as(notify(entry, admission.transition), permit)
        })
      )
    )

  const execute = <A, E, R>(
    self: Effect.Effect<A, E, R>,
    origin: string,
    classify: (exit: Exit.Exit<A, E>) => CircuitBreaker.Outcome = defaultClassify
  ): Effect.Effect<A, E | CircuitBreaker.CircuitOpen, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(acquire(origin), (permit) =>
        Effect.flatMap(Effect.exit(restore(self)), (exit) => {
          // An interruption says nothing about the origin's health, and must free a probe's slot.
          if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))
            return Effect.zipRight(permit.report(ignored), exit)
          let outcome: CircuitBreaker.Outcome
          try {
            outcome = classify(exit)
          } catch (defect) {
            return Effect.zipRight(permit.report(ignored), Effect.die(defect))
          }
          return Effect.zipRight(permit.report(outcome), exit)
        })
      )
    )

  const manual =
    (apply: (machine: CircuitBreakerCore.CircuitBreakerMachine) => CircuitBreakerCore.Transition | undefined) =>
    (origin: string): Effect.Effect<void> =>
      Effect.uninterruptible(withEntry(origin, (entry) => notify(entry, apply(entry.machine))))

  const service: CircuitBreaker.CircuitBreaker.Service = {
    settings: toPublicSettings(settings),
    acquire,
    execute: dual((args) => Effect.isEffect(args[0]), execute),
    state: (origin) =>
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
      ),
    isolate: manual((machine) => machine.isolate()),
    close: manual((machine) => machine.close()),
    changes: Stream.fromPubSub(changes),
    subscribe: Stream.fromPubSub(changes, { scoped: true })
  }
  controls.set(service, {
    settings,
    forceOpen: (origin, breakMillis) =>
      Effect.uninterruptible(
        withEntry(origin, (entry, nowMillis) => notify(entry, entry.machine.forceOpen(nowMillis, breakMillis), true))
      ),
    setOnOpen: (set) => {
      onOpen = set
    }
  })
  return service
}

/** How many state changes a slow subscriber may fall behind before the oldest are dropped. @internal */
export const changesCapacity = 1024

/** @internal */
export const make = (
  options?: CircuitBreaker.Options
): Effect.Effect<CircuitBreaker.CircuitBreaker.Service, RetryPolicy.InvalidRetryPolicy> =>
  Effect.suspend(() =>
    Either.match(resolve(options), {
      onLeft: Effect.fail,
      onRight: (resolved) =>
        Effect.map(PubSub.sliding<CircuitBreaker.StateChange>(changesCapacity), (changes) =>
          makeService(resolved, changes)
        )
    })
  )
