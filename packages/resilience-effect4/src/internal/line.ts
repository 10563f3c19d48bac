/**
 * What Effect 4 does its own way, in one place: the templates both lines share (templates/src)
 * call these where Effect 3's API and Effect 4's differ, never where behaviour does. Effect 3's
 * twin, `packages/resilience/src/internal/line.ts`, exports the same names. Hand-written, not
 * generated.
 *
 * @internal
 */
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as UrlParams from "effect/http/UrlParams"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { pipeArguments } from "effect/Pipeable"
import * as Metric from "effect/Metric"
import * as Pull from "effect/Pull"
import * as References from "effect/References"
import type * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import type * as Socket from "effect/socket/Socket"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"

// Fiber-local values.

/**
 * A value each fiber sees, with a default when none was set: a `Context.Reference` on Effect 4.
 *
 * @internal
 */
export type Local<A> = Context.Reference<A>

/**
 * A fiber-local value; the key is its identity, so two copies of the library share it.
 *
 * @internal
 */
export const local = <A>(key: string, initial: () => A): Local<A> =>
  Context.Reference<A>(key, { defaultValue: initial })

/** @internal */
export const getLocal = <A>(local: Local<A>): Effect.Effect<A> =>
  Effect.withFiber((fiber) => Effect.succeed(fiber.getRef(local)))

/**
 * `effect` with `local` set to `value`.
 *
 * @internal
 */
export const withLocal = <A, E, R, V>(
  effect: Effect.Effect<A, E, R>,
  local: Local<V>,
  value: V
): Effect.Effect<A, E, R> => Effect.provideService(effect, local, value)

/**
 * `f` given `local`'s value and the fiber's context.
 *
 * @internal
 */
export const withLocalAndContext = <V, A, E, R>(
  local: Local<V>,
  f: (value: V, context: Context.Context<never>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withFiber((fiber) => f(fiber.getRef(local), fiber.context))

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
  Effect.withFiber((fiber) =>
    f({
      get: (local) => fiber.getRef(local),
      debugLogged: LogLevel.isLessThanOrEqualTo(fiber.getRef(References.MinimumLogLevel), "Debug"),
      span: Context.getOrUndefined(fiber.context, Tracer.ParentSpan),
      tracerPropagation: fiber.getRef(HttpClient.TracerPropagationEnabled)
    })
  )

/**
 * How a program turns the platform's tracing headers off, as a hint says it.
 *
 * @internal
 */
export const turnOffTracing = "Effect.provideService(HttpClient.TracerPropagationEnabled, false)"

// Schedules.

/**
 * `self`, its every wait replaced by `f(input, wait)`; it ends, with its last output, where `f`
 * answers `undefined` (which must not depend on the wait).
 *
 * @internal
 */
export const stopOrDelay = <Out, In, E, R>(
  self: Schedule.Schedule<Out, In, E, R>,
  f: (input: In, delayMillis: number) => number | undefined
): Schedule.Schedule<Out, In, E, R> =>
  Schedule.fromStep(
    Effect.map(
      Schedule.toStep(self),
      (step) => (now: number, input: In) =>
        Effect.flatMap(step(now, input), ([out, delay]) => {
          const wait = f(input, Duration.toMillis(delay))
          return wait === undefined
            ? Cause.done(out)
            : Effect.succeed<[Out, Duration.Duration]>([out, Duration.millis(wait)])
        })
    )
  )

/**
 * A schedule made of its first state and a step, which answers its next state, its output and
 * the wait before the next attempt (`undefined`: done, with this output as the last).
 * Effect 4's shape: the state lives in the closure `fromStep` builds once per run.
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
  Schedule.fromStep(
    Effect.sync(() => {
      let state = initial()
      return (now: number, input: In) =>
        Effect.flatMap(step(now, input, state), (next) => {
          state = next.state
          return next.delayMillis === undefined
            ? Cause.done(next.out)
            : Effect.succeed<[Out, Duration.Duration]>([next.out, Duration.millis(next.delayMillis)])
        })
    })
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
  // Made at the first step: its state is this run's.
  let made: ((now: number, input: In) => Pull.Pull<[unknown, Duration.Duration], never, unknown>) | undefined
  return (nowMillis, input) =>
    Effect.suspend(() =>
      Effect.flatMap(
        made === undefined
          ? Effect.map(Schedule.toStep(schedule), (step) => {
              made = step
              return step
            })
          : Effect.succeed(made),
        (step) =>
          Pull.matchEffect(step(nowMillis, input), {
            onSuccess: ([out, delay]) => Effect.succeed<Stepped>({ out, delayMillis: Duration.toMillis(delay) }),
            onFailure: Effect.failCause,
            onDone: (out) => Effect.succeed<Stepped>({ out, delayMillis: undefined })
          })
      )
    )
}

// Clients and responses.

/** @internal */
export const isHttpClient = (u: unknown): u is HttpClient.HttpClient.With<unknown, unknown> =>
  HttpClient.isHttpClient(u)

/**
 * `self` as it is: Effect 4's transform sends the request it rewrites itself (see `resend`).
 *
 * @internal
 */
export const beforeTransform = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  _rewrite: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
): HttpClient.HttpClient.With<E, R> => self

/**
 * How a transform sends another request than the one it read: through the wrapped client's own
 * postprocessing, as the transform's `send` does with the request it read.
 *
 * @internal
 */
export const resend = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, E, R> | undefined => self.postprocess(Effect.succeed(request))

/**
 * A response body read as JSON.
 *
 * @internal
 */
export type Json = Schema.Json

/**
 * What a response wrapping another has that only this line's responses have: its URL, `upgrade`
 * (a body taken) and `pipe`. `HttpClientResponse.toWeb` does not see through the wrapper (Effect
 * keeps that hook private).
 *
 * @internal
 */
export abstract class ResponseExtras {
  abstract readonly inner: HttpClientResponse.HttpClientResponse
  protected abstract taking<A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E>
  get url(): string {
    return this.inner.url
  }
  get upgrade(): Effect.Effect<Socket.Socket, HttpClientError.HttpClientError> {
    return this.taking(this.inner.upgrade)
  }
  pipe() {
    // biome-ignore lint/complexity/noArguments: pipeArguments reads the arguments object, as Effect's own responses do
    return pipeArguments(this, arguments)
  }
}

// The shapes `Duration.fromInput` reads; it gives None for any of them it cannot read.
const isInputShaped = (input: unknown): input is Duration.Input =>
  typeof input === "number" || typeof input === "bigint" || typeof input === "string" || typeof input === "object"

/**
 * A duration as Effect 4 reads one (`Duration.fromInput`), or `undefined`.
 *
 * @internal
 */
export const decodeDuration = (input: unknown): Duration.Duration | undefined =>
  isInputShaped(input) && input !== null ? Option.getOrUndefined(Duration.fromInput(input)) : undefined

// Services and errors.

/**
 * A service's class, `class X extends line.Service<X, X.Service>()("key") {}`: a `Context.Service`
 * on Effect 4.
 *
 * @internal
 */
export const Service =
  <Self, Shape>() =>
  <const Key extends string>(key: Key) =>
    Context.Service<Self, Shape>()(key)

/**
 * The platform's failure of a request that got no response.
 *
 * @internal
 */
export const transportError = (
  request: HttpClientRequest.HttpClientRequest,
  cause: unknown
): HttpClientError.HttpClientError =>
  new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })

/**
 * Node's inspect writes these errors as their JSON: Effect 4's errors are inspected so already.
 *
 * @internal
 */
export const inspectAsJson = (..._errors: ReadonlyArray<{ readonly prototype: { toJSON(): unknown } }>): void => {}

// Causes and queues.

/**
 * The error of a cause that is one failure and nothing else; `undefined` for any other.
 *
 * @internal
 */
export const onlyFailure = <E>(cause: Cause.Cause<E>): E | undefined => {
  const reason = cause.reasons[0]
  return cause.reasons.length === 1 && reason?._tag === "Fail" ? reason.error : undefined
}

/**
 * The error itself: Effect 4 fails with the error as it was given.
 *
 * @internal
 */
export const originalError = <E>(error: E): E => error

/**
 * Every failure's error in a cause, in order.
 *
 * @internal
 */
export const failures = <E>(cause: Cause.Cause<E>): Array<E> =>
  cause.reasons.flatMap((reason) => (reason._tag === "Fail" ? [reason.error] : []))

/**
 * A subscriber's queue as a stream that shuts the queue down when it ends.
 *
 * @internal
 */
export const queueStream = <A>(queue: Queue.Queue<A>): Stream.Stream<A> => Stream.fromQueue(queue)

/**
 * A stream of the queue `subscribe` makes, for as long as the stream runs.
 *
 * @internal
 */
export const scopedQueueStream = <A>(subscribe: Effect.Effect<Queue.Queue<A>, never, Scope.Scope>): Stream.Stream<A> =>
  Stream.unwrap(Effect.map(subscribe, Stream.fromQueue))

// Metrics.

/**
 * Attributes as a metric update takes them: a record on Effect 4.
 *
 * @internal
 */
export type Attributes = Readonly<Record<string, string>>

/** @internal */
export const attributesOf = (record: Readonly<Record<string, string>>): Attributes => record

/**
 * `attributes` and `more` after them.
 *
 * @internal
 */
export const withAttributes = (attributes: Attributes, more: Readonly<Record<string, string>>): Attributes => ({
  ...attributes,
  ...more
})

/**
 * Updates `metric` with `attributes` by `value`.
 *
 * @internal
 */
export const update = <State>(
  metric: Metric.Metric<number, State>,
  value: number,
  attributes: Attributes
): Effect.Effect<void> => Metric.update(Metric.withAttributes(metric, attributes), value)

/**
 * Updates `metric` with `attributes` now, within a synchronous step. Effect 4's registry is a
 * service: the one in `context`, the calling fiber's.
 *
 * @internal
 */
export const updateNow = <State>(
  metric: Metric.Metric<number, State>,
  value: number,
  attributes: Attributes,
  context: Context.Context<never>
): void => Metric.withAttributes(metric, attributes).updateUnsafe(value, context)

/**
 * A count as a call makes it: an Effect on Effect 4, made once per series and run where the
 * count belongs.
 *
 * @internal
 */
export type Count = Effect.Effect<void> | undefined

/**
 * What counts one into `metric` with `attributes`, made once per series.
 *
 * @internal
 */
export const counter = (metric: Metric.Counter<number>, attributes: Attributes): (() => Count) => {
  const count = Metric.update(Metric.withAttributes(metric, attributes), 1)
  return () => count
}

/**
 * Both counts, `first` first.
 *
 * @internal
 */
export const bothCounts = (first: () => Count, second: () => Count): (() => Count) => {
  const both = Effect.andThen(first() ?? Effect.void, second() ?? Effect.void)
  return () => both
}

// Fibers and time limits.

/**
 * Forks `effect` as a child of the calling fiber that runs at once, up to its first wait.
 * Forked as usual it would start on a later scheduler turn, and Effect 4's `TestClock.adjust`
 * gives work already running one turn, then waits only for what the sleeps it wakes set off.
 *
 * @internal
 */
export const forkNow = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Fiber.Fiber<A, E>, never, R> =>
  Effect.forkChild(effect, { startImmediately: true })

/**
 * `self`, failing with `onTimeout()` past `duration`: on time, `self`'s exit; too late, `self` is
 * interrupted (and waited for) and `onTimeout()` fails. Interrupting the platform's exchange
 * aborts its request, every hop of it. Bounds every attempt, the snippet of a permanent status
 * and the release of a response left unread.
 *
 * Effect's own race, public API only: it forks `self`, and a sleep beside it once `self` has not
 * ended at once. Under `TestClock` the limit passes when the clock says.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => Effect.timeoutOrElse(self, { duration, orElse: () => Effect.fail(onTimeout()) })

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
): Stream.Stream<A, E | E1, R> =>
  // Each pull under its own time limit, as Effect 3's `Stream.timeoutTo` does: Effect 4's
  // `Stream.timeoutOrElse` pulls ahead on a fiber of its own, and its clock starts late.
  Stream.transformPull(self, (pull) =>
    Effect.succeed(Effect.timeoutOrElse(pull, { duration, orElse: () => onTimeout }))
  )

// Redaction.

/** Names to redact, as the platform and the core take them. */
type Names = ReadonlyArray<string | RegExp>

/**
 * The header names the platform redacts, and the transport's span with them.
 *
 * @internal
 */
export const redactedHeaderNames: Local<Names> = Headers.CurrentRedactedNames

/**
 * The query parameter names: Effect 4's own, so that what configures the platform's redaction
 * configures the library's.
 *
 * @internal
 */
export const redactedUrlParamNames: Local<Names> = UrlParams.CurrentRedactedNames

const platformDefault: Names = Context.get(Context.empty(), UrlParams.CurrentRedactedNames)

/**
 * The names the library redacts, given the platform's reference's value: its default
 * (OpenTelemetry's names) stands for "not configured", read as the core's wider default.
 *
 * @internal
 */
export const libraryUrlParamNames = (names: Names): Names =>
  names === platformDefault ? Redaction.defaultUrlParamNames : names

/**
 * `local`'s value in the current fiber; `orElse` outside any fiber (a message built where it is read).
 *
 * @internal
 */
export const currentOr = <A>(local: Local<A>, orElse: A): A => {
  const fiber = Fiber.getCurrent()
  return fiber === undefined ? orElse : fiber.getRef(local)
}

/**
 * `f` given the values of two locals.
 *
 * @internal
 */
export const withLocals = <V, W, A, E, R>(
  first: Local<V>,
  second: Local<W>,
  f: (first: V, second: W) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withFiber((fiber) => f(fiber.getRef(first), fiber.getRef(second)))

/** @internal */
export const urlParamCount = (request: HttpClientRequest.HttpClientRequest): number => request.urlParams.params.length

/**
 * Whether the transport's span would show user info in this URL: Effect 4's never does.
 *
 * @internal
 */
export const spanShowsUserinfo = (_url: string): boolean => false

/**
 * A URL as the platform writes it into its errors' messages: redacted by its own names.
 *
 * @internal
 */
export const asPlatformWritesUrl = (url: string): string => UrlParams.redactUrl(url)

// The platform matches a string whole, ignoring case: as a regular expression it matches with
// `_` and `-` alike too, as the library does.
const asPlatformNames = (names: Names): Names =>
  names.map((name) =>
    typeof name === "string"
      ? new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[-_]/g, "[-_]")}$`, "i")
      : name
  )

const platformNames = new WeakMap<Names, Names>()

/** The names as the platform reads them, made once per list. @internal */
const forPlatform = (names: Names): Names => {
  const known = platformNames.get(names)
  if (known !== undefined) return known
  const made = asPlatformNames(names)
  platformNames.set(names, made)
  return made
}

/**
 * `sent` with the transport's span (the platform's `http.client`, which redacts `url.full` and
 * `url.query` by `UrlParams.CurrentRedactedNames`) redacting a query by the library's names.
 *
 * @internal
 */
export const spanRedactingUrl = <A, E, R>(
  sent: Effect.Effect<A, E, R>,
  _request: HttpClientRequest.HttpClientRequest,
  query: boolean,
  names: Names
): Effect.Effect<A, E, R> =>
  query ? Effect.provideService(sent, UrlParams.CurrentRedactedNames, forPlatform(libraryUrlParamNames(names))) : sent
