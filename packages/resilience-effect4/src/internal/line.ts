/**
 * What Effect 4 does its own way, in one place: the templates both lines share (templates/src)
 * call these where Effect 3's API and Effect 4's differ, never where behaviour does. Effect 3's
 * twin, `packages/resilience/src/internal/line.ts`, exports the same names. Hand-written, not
 * generated.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import * as Schedule from "effect/Schedule"
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
