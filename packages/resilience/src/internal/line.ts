/**
 * What Effect 3 does its own way, in one place: the templates both lines share (templates/src)
 * call these where Effect 3's API and Effect 4's differ, never where behaviour does. Effect 4's
 * twin, `packages/resilience-effect4/src/internal/line.ts`, exports the same names. Hand-written,
 * not generated.
 *
 * @internal
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import { NodeInspectSymbol } from "effect/Inspectable"
import * as LogLevel from "effect/LogLevel"
import type * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"

// Fiber-local values.

/**
 * A value each fiber sees, with a default when none was set: a `FiberRef` on Effect 3.
 *
 * @internal
 */
export type Local<A> = FiberRef.FiberRef<A>

/**
 * A fiber-local value; the key is its identity, so two copies of the library share it.
 *
 * @internal
 */
export const local = <A>(key: string, initial: () => A): Local<A> =>
  globalValue(Symbol.for(key), () => FiberRef.unsafeMake(initial()))

/** @internal */
export const getLocal: <A>(local: Local<A>) => Effect.Effect<A> = FiberRef.get

/**
 * `effect` with `local` set to `value`.
 *
 * @internal
 */
export const withLocal = <A, E, R, V>(
  effect: Effect.Effect<A, E, R>,
  local: Local<V>,
  value: V
): Effect.Effect<A, E, R> => Effect.locally(effect, local, value)

/**
 * `f` given `local`'s value and the fiber's context.
 *
 * @internal
 */
export const withLocalAndContext = <V, A, E, R>(
  local: Local<V>,
  f: (value: V, context: Context.Context<never>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withFiberRuntime((fiber) => f(fiber.getFiberRef(local), fiber.currentContext))

/**
 * What a report reads of the fiber it runs in: its locals, whether debug logs are written, the
 * current span and whether tracing headers are propagated.
 *
 * @internal
 */
export interface FiberView {
  readonly get: <A>(local: Local<A>) => A
  readonly debugLogged: boolean
  readonly span: Tracer.AnySpan | undefined
  readonly tracerPropagation: boolean
}

/** @internal */
export const withFiberView = <A, E, R>(f: (view: FiberView) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) =>
    f({
      get: (local) => fiber.getFiberRef(local),
      debugLogged: LogLevel.lessThanEqual(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), LogLevel.Debug),
      span: fiber.currentSpan,
      tracerPropagation: fiber.getFiberRef(HttpClient.currentTracerPropagation)
    })
  )

/**
 * How a program turns the platform's tracing headers off, as a hint says it.
 *
 * @internal
 */
export const turnOffTracing = "HttpClient.withTracerPropagation(false)"

// Schedules.

/**
 * `self`, its every wait replaced by `f(input, wait)`; it ends, with its last output, where `f`
 * answers `undefined` (which must not depend on the wait).
 *
 * @internal
 */
export const stopOrDelay = <Out, In, R>(
  self: Schedule.Schedule<Out, In, R>,
  f: (input: In, delayMillis: number) => number | undefined
): Schedule.Schedule<Out, In, R> =>
  Schedule.intersect(self, Schedule.identity<In>()).pipe(
    Schedule.whileInput((input: In) => f(input, 0) !== undefined),
    Schedule.modifyDelay(([, input], delay) => Duration.millis(f(input, Duration.toMillis(delay)) ?? 0)),
    Schedule.map(([out]) => out)
  )

/**
 * What a schedule answers an input: its output, and the wait before the next attempt
 * (`undefined`: the schedule is done).
 *
 * @internal
 */
export interface Stepped {
  readonly out: unknown
  readonly delayMillis: number | undefined
}

/**
 * One run of a schedule, stepped at each input: the run keeps its state.
 *
 * @internal
 */
export type ScheduleRun<In> = (nowMillis: number, input: In) => Effect.Effect<Stepped>

/** @internal */
export const runSchedule = <In>(schedule: Schedule.Schedule<unknown, In>): ScheduleRun<In> => {
  let state = schedule.initial
  return (nowMillis, input) =>
    Effect.map(schedule.step(nowMillis, input, state), ([next, out, decision]): Stepped => {
      state = next
      return ScheduleDecision.isDone(decision)
        ? { out, delayMillis: undefined }
        : { out, delayMillis: ScheduleIntervals.start(decision.intervals) - nowMillis }
    })
}

// Services and errors.

/**
 * A service's class, `class X extends line.Service<X, X.Service>()("key") {}`: a `Context.Tag` on
 * Effect 3.
 *
 * @internal
 */
export const Service =
  <Self, Shape>() =>
  <const Key extends string>(key: Key) =>
    Context.Tag(key)<Self, Shape>()

/**
 * The platform's failure of a request that got no response.
 *
 * @internal
 */
export const transportError = (
  request: HttpClientRequest.HttpClientRequest,
  cause: unknown
): HttpClientError.HttpClientError => new HttpClientError.RequestError({ request, reason: "Transport", cause })

/**
 * Node's inspect writes these errors as their JSON, as Effect 4 writes its errors: Effect 3's own
 * inspect shows every field as it is (a request's URL and headers unredacted).
 *
 * @internal
 */
export const inspectAsJson = (...errors: ReadonlyArray<{ readonly prototype: { toJSON(): unknown } }>): void => {
  for (const error of errors) {
    Object.defineProperty(error.prototype, NodeInspectSymbol, {
      value(this: { toJSON(): unknown }): unknown {
        return this.toJSON()
      },
      configurable: true,
      writable: true
    })
  }
}

// Causes and queues.

/**
 * The error of a cause that is one failure and nothing else; `undefined` for any other.
 *
 * @internal
 */
export const onlyFailure = <E>(cause: Cause.Cause<E>): E | undefined =>
  cause._tag === "Fail" ? cause.error : undefined

/**
 * Every failure's error in a cause, in order.
 *
 * @internal
 */
export const failures = <E>(cause: Cause.Cause<E>): Array<E> => Array.from(Cause.failures(cause))

/**
 * A subscriber's queue as a stream that shuts the queue down when it ends.
 *
 * @internal
 */
export const queueStream = <A>(queue: Queue.Dequeue<A>): Stream.Stream<A> => Stream.fromQueue(queue, { shutdown: true })

/**
 * A stream of the queue `subscribe` makes, for as long as the stream runs.
 *
 * @internal
 */
export const scopedQueueStream = <A>(
  subscribe: Effect.Effect<Queue.Dequeue<A>, never, Scope.Scope>
): Stream.Stream<A> => Stream.flatMap(Stream.scoped(subscribe), (queue) => Stream.fromQueue(queue))

// Metrics.

/**
 * Attributes as a metric update takes them: labels on Effect 3. Made once per series: a
 * counter's hook is cached by its labels array's identity.
 *
 * @internal
 */
export type Attributes = ReadonlyArray<MetricLabel.MetricLabel>

/** @internal */
export const attributesOf = (record: Readonly<Record<string, string>>): Attributes =>
  Object.entries(record).map(([key, value]) => MetricLabel.make(key, value))

/**
 * `attributes` and `more` after them.
 *
 * @internal
 */
export const withAttributes = (attributes: Attributes, more: Readonly<Record<string, string>>): Attributes => [
  ...attributes,
  ...attributesOf(more)
]

/**
 * Updates `metric` with `attributes` by `value`.
 *
 * @internal
 */
export const update = <Type, Out>(
  metric: Metric.Metric<Type, number, Out>,
  value: number,
  attributes: Attributes
): Effect.Effect<void> => Effect.sync(() => metric.unsafeUpdate(value, attributes))

/**
 * Updates `metric` with `attributes` now, within a synchronous step. Effect 3's metrics live in
 * one global registry: `context` plays no part.
 *
 * @internal
 */
export const updateNow = <Type, Out>(
  metric: Metric.Metric<Type, number, Out>,
  value: number,
  attributes: Attributes,
  _context: Context.Context<never>
): void => metric.unsafeUpdate(value, attributes)

/**
 * A count as a call makes it: Effect 3's counters update without an Effect, so a count is done
 * as it is asked for (`undefined`: nothing left to run).
 *
 * @internal
 */
export type Count = Effect.Effect<void> | undefined

/**
 * What counts one into `metric` with `attributes`, made once per series.
 *
 * @internal
 */
export const counter = (metric: Metric.Metric.Counter<number>, attributes: Attributes) => (): Count => {
  metric.unsafeUpdate(1, attributes)
  return undefined
}

/**
 * Both counts, `first` first.
 *
 * @internal
 */
export const bothCounts = (first: () => Count, second: () => Count) => (): Count => {
  first()
  return second()
}

// Fibers and time limits.

/**
 * Forks `effect` as a child of the calling fiber: on Effect 3 it starts on a later scheduler
 * turn, and Effect 3's `TestClock` waits for every fiber to suspend.
 *
 * @internal
 */
export const forkNow: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.RuntimeFiber<A, E>, never, R> =
  Effect.fork

/**
 * `self`, failing with `onTimeout()` past `duration`: on time, `self`'s exit; too late, `self` is
 * interrupted (and waited for) and `onTimeout()` fails. Interrupting the platform's exchange
 * aborts its request, every hop of it. Bounds every attempt, the snippet of a permanent status
 * and the release of a response left unread.
 *
 * Effect's own race, public API only: it forks `self`, and a sleep beside it. Under `TestClock`
 * the limit passes when the clock says.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => Effect.timeoutFail(self, { duration, onTimeout })
