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
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import { NodeInspectSymbol } from "effect/Inspectable"
import * as LogLevel from "effect/LogLevel"
import * as Schedule from "effect/Schedule"
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
