/**
 * What Effect 3 does its own way, in one place: the templates both lines share (templates/src)
 * call these where Effect 3's API and Effect 4's differ, never where behaviour does. Effect 4's
 * twin, `packages/resilience-effect4/src/internal/line.ts`, exports the same names. Hand-written,
 * not generated.
 *
 * @internal
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import { NodeInspectSymbol } from "effect/Inspectable"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"

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
 * A schedule made of its first state and a step, which answers its next state, its output and
 * the wait before the next attempt (`undefined`: done, with this output as the last).
 * Effect 3's shape: a state, an output, an interval; the first state is made once.
 *
 * @internal
 */
export const scheduleFromStep = <S, In, Out>(
  initial: () => S,
  step: (
    nowMillis: number,
    input: In,
    state: S
  ) => Effect.Effect<{ readonly state: S; readonly out: Out; readonly delayMillis: number | undefined }>
): Schedule.Schedule<Out, In> =>
  Schedule.makeWithState<S, In, Out>(initial(), (now, input, state) =>
    Effect.map(step(now, input, state), (next) =>
      next.delayMillis === undefined
        ? [next.state, next.out, ScheduleDecision.done]
        : [next.state, next.out, ScheduleDecision.continueWith(ScheduleInterval.after(now + next.delayMillis))]
    )
  )

/**
 * What a schedule answers an input: its output, and the wait before the next attempt
 * (`undefined`: the schedule is done).
 */
interface Stepped {
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

// Clients and responses.

/** @internal */
export const isHttpClient = (u: unknown): u is HttpClient.HttpClient.With<unknown, unknown> =>
  Predicate.hasProperty(u, HttpClient.TypeId)

/**
 * `self` with `rewrite` applied to every request before a transform reads it: Effect 3's client
 * gives a transform no public way to send another request than the one it read.
 *
 * @internal
 */
export const beforeTransform = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  rewrite: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
): HttpClient.HttpClient.With<E, R> => HttpClient.mapRequest(self, rewrite)

/**
 * How a transform sends another request than the one it read: no way on Effect 3 (see
 * `beforeTransform`).
 *
 * @internal
 */
export const resend = <E, R>(
  _self: HttpClient.HttpClient.With<E, R>,
  _request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, E, R> | undefined => undefined

/**
 * A response body read as JSON.
 *
 * @internal
 */
export type Json = unknown

/**
 * What a response wrapping another has that only this line's responses have: nothing on Effect 3.
 *
 * @internal
 */
export abstract class ResponseExtras {
  abstract readonly inner: HttpClientResponse.HttpClientResponse
  protected abstract taking<A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E>
}

/**
 * A duration as Effect 3 reads one (`Duration.decodeUnknown`), or `undefined`.
 *
 * @internal
 */
export const decodeDuration = (input: unknown): Duration.Duration | undefined =>
  Option.getOrUndefined(Duration.decodeUnknown(input))

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
 * The error itself: inside a span, Effect 3 fails with a Proxy of the error (it answers the
 * span's symbol) in place of the error itself.
 *
 * @internal
 */
export const originalError = <E>(error: E): E => Cause.originalError(error)

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

/**
 * A stream that runs `onTimeout` (which fails) when one pull waits longer than `duration` for its
 * next element: the timer runs only while the reader waits.
 *
 * @internal
 */
export const streamTimeoutFail = <A, E, R, E1>(
  self: Stream.Stream<A, E, R>,
  duration: Duration.Duration,
  onTimeout: Effect.Effect<never, E1>
): Stream.Stream<A, E | E1, R> => Stream.timeoutTo(self, duration, Stream.fromEffect(onTimeout))

// Redaction.

/** Names to redact, as the platform and the core take them. */
type Names = ReadonlyArray<string | RegExp>

/**
 * The header names the platform redacts, and the transport's span with them.
 *
 * @internal
 */
export const redactedHeaderNames: Local<Names> = Headers.currentRedactedNames

/**
 * The query parameter names the library redacts: its own on Effect 3, whose platform redacts none.
 * The global key shares them between two copies of this module.
 *
 * @internal
 */
export const redactedUrlParamNames: Local<Names> = local(
  "effect-http-resilience/currentRedactedUrlParams",
  (): Names => Redaction.defaultUrlParamNames
)

/**
 * The names the library redacts, given the value of `redactedUrlParamNames`: that value on Effect 3.
 *
 * @internal
 */
export const libraryUrlParamNames = (names: Names): Names => names

/**
 * `local`'s value in the current fiber; `orElse` outside any fiber (a message built where it is read).
 *
 * @internal
 */
export const currentOr = <A>(local: Local<A>, orElse: A): A =>
  Option.match(Fiber.getCurrentFiber(), { onNone: () => orElse, onSome: (fiber) => fiber.getFiberRef(local) })

/**
 * `f` given the values of two locals.
 *
 * @internal
 */
export const withLocals = <V, W, A, E, R>(
  first: Local<V>,
  second: Local<W>,
  f: (first: V, second: W) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withFiberRuntime((fiber) => f(fiber.getFiberRef(first), fiber.getFiberRef(second)))

/** @internal */
export const urlParamCount = (request: HttpClientRequest.HttpClientRequest): number => request.urlParams.length

/**
 * Whether the transport's span would show user info in this URL: Effect 3's writes the URL as it is.
 *
 * @internal
 */
export const spanShowsUserinfo = (url: string): boolean => url.includes("@")

/**
 * A URL as the platform writes it into its errors' messages: as it is on Effect 3.
 *
 * @internal
 */
export const asPlatformWritesUrl = (url: string): string => url

// The transport's span (the platform's `http.client`) writes `url.full` and `url.query` as they
// are: a request whose URL has something to redact is sent under a tracer whose spans write
// them redacted, by the names of the fiber that sends it.
const redactedAttribute = (key: string, value: unknown, names: Names): unknown =>
  typeof value !== "string"
    ? value
    : key === "url.full"
      ? Redaction.redactUrl(value, names)
      : key === "url.query"
        ? Redaction.redactUrl(`?${value}`, names).slice(1)
        : value

const redactingSpan = (span: Tracer.Span, names: Names): Tracer.Span => ({
  _tag: "Span",
  name: span.name,
  spanId: span.spanId,
  traceId: span.traceId,
  parent: span.parent,
  context: span.context,
  get status() {
    return span.status
  },
  get attributes() {
    return span.attributes
  },
  get links() {
    return span.links
  },
  sampled: span.sampled,
  kind: span.kind,
  end: (endTime, exit) => span.end(endTime, exit),
  attribute: (key, value) => span.attribute(key, redactedAttribute(key, value, names)),
  event: (name, startTime, attributes) => span.event(name, startTime, attributes),
  addLinks: (links) => span.addLinks(links)
})

const redactingTracer = (tracer: Tracer.Tracer, names: Names): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      redactingSpan(tracer.span(name, parent, context, links, startTime, kind, options), names),
    context: (f, fiber) => tracer.context(f, fiber)
  })

const hasSomethingToRedact = (request: HttpClientRequest.HttpClientRequest, names: Names): boolean =>
  request.url.includes("@") ||
  Redaction.redactsQuery(request.url, names) ||
  request.urlParams.some(([key]) => Redaction.isRedactedName(key, names))

/**
 * `sent` with the transport's span writing the URL redacted by `names` (the library's): Effect 3's
 * span writes `url.full` and `url.query` as they are, so a request with something to redact is
 * sent under a tracer whose spans write them redacted.
 *
 * @internal
 */
export const spanRedactingUrl = <A, E, R>(
  sent: Effect.Effect<A, E, R>,
  request: HttpClientRequest.HttpClientRequest,
  _query: boolean,
  names: Names
): Effect.Effect<A, E, R> =>
  hasSomethingToRedact(request, names)
    ? Effect.tracerWith((tracer) => Effect.withTracer(sent, redactingTracer(tracer, names)))
    : sent
