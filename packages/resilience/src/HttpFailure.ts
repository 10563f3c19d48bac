/**
 * The failures a resilient HTTP call can end with: a tagged union in the error channel.
 *
 * Every failure carries the `request` it belongs to and the 1-based `attempt` that produced it,
 * so the failure a caller finally sees tells how many attempts were made.
 *
 * @since 0.1.0
 */
import type * as Headers from "@effect/platform/Headers"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { describeFailure } from "@effect-http-resilience/core/FailureMessage"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Why no HTTP response arrived.
 *
 * - `"Transport"`: the connection was refused, reset or broke before a response (retried).
 * - `"Timeout"`: no response headers within the policy's `attemptTimeout` (retried).
 * - `"InvalidRequest"`: the request could not be sent at all (a malformed URL, a body that
 *   could not be encoded). Sending it again cannot help, so it is never retried.
 * - `"Unrecoverable"`: the exchange failed in a way that sending again cannot cure: too many
 *   redirects, an unsupported protocol, a TLS certificate that does not verify. Never retried.
 * - `"CircuitOpen"`: not sent: the origin's circuit breaker is open (the `cause` is the
 *   breaker's `CircuitOpen`, which says when it lets a probe through). Ends the call at once.
 * - `"CoolingDown"`: not sent: another call's `429` with `Retry-After` cooled the origin down
 *   for longer than this call may wait (past `maxDelay` under `whenRetryAfterExceedsMaxDelay:
 *   "give-up"`, or past its total timeout). Ends the call at once.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * const describe = (reason: HttpFailure.ConnectionFailureReason): string =>
 *   reason === "Timeout" ? "no answer in time" : reason === "Transport" ? "connection failed" : "not sendable"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionFailureReason =
  | "Transport"
  | "Timeout"
  | "InvalidRequest"
  | "Unrecoverable"
  | "CircuitOpen"
  | "CoolingDown"

/**
 * No HTTP response at all.
 *
 * @example
 * ```ts
 * import { HttpClientRequest } from "@effect/platform"
 * import { HttpFailure } from "effect-http-resilience"
 *
 * const failure = new HttpFailure.ConnectionError({
 *   request: HttpClientRequest.get("http://127.0.0.1:1/"),
 *   attempt: 1,
 *   reason: "Transport",
 *   cause: new Error("ECONNREFUSED")
 * })
 * console.log(failure.message) // "GET http://127.0.0.1:1/: transport failure on attempt 1"
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionError extends Data.TaggedError("ConnectionError")<{
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
  readonly reason: ConnectionFailureReason
  readonly cause: unknown
  readonly giveUpReason?: RetryPolicy.GiveUpReason
}> {
  override get message(): string {
    return describeFailure(this)
  }
}

/**
 * A response worth retrying (by default 408, 429, 500, 502, 503, 504). Its body was released
 * unread; `retryAfter` is the delay the server asked for, if any.
 *
 * @example
 * ```ts
 * import { Duration, Effect, Option } from "effect"
 * import type { HttpFailure } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const handled = call.pipe(
 *   Effect.catchTag("TransientStatus", (e) => {
 *     const wait = Option.match(e.retryAfter, { onNone: () => "no Retry-After", onSome: Duration.format })
 *     return Effect.succeed(`${e.status} after ${e.attempt} attempts (${wait})`)
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class TransientStatus extends Data.TaggedError("TransientStatus")<{
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
  readonly status: number
  readonly headers: Headers.Headers
  readonly retryAfter: Option.Option<Duration.Duration>
  readonly giveUpReason?: RetryPolicy.GiveUpReason
}> {
  override get message(): string {
    return describeFailure(this)
  }
}

/**
 * A response not worth retrying (any other non-2xx status). `body` is a bounded snippet of
 * the response body (at most 8 KiB, read with a short time limit) for diagnostics: it is
 * never decoded as data, and is empty when the body could not be read.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { HttpFailure } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const notFoundAsEmpty = call.pipe(
 *   Effect.catchTag("PermanentStatus", (e) => (e.status === 404 ? Effect.succeed("") : Effect.fail(e)))
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class PermanentStatus extends Data.TaggedError("PermanentStatus")<{
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
  readonly status: number
  readonly headers: Headers.Headers
  readonly body: string
  readonly giveUpReason?: RetryPolicy.GiveUpReason
}> {
  override get message(): string {
    return describeFailure(this)
  }
}

/**
 * A successful response whose body did not decode (invalid JSON, or JSON that does not
 * match the schema). Never retried: the server answered, and would answer the same again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { HttpFailure } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const logged = call.pipe(
 *   Effect.tapErrorTag("DecodeError", (e) => Effect.logError(`status ${e.status}: unexpected body`, e.cause))
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Data.TaggedError("DecodeError")<{
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
  readonly status: number
  readonly cause: unknown
  readonly giveUpReason?: RetryPolicy.GiveUpReason
}> {
  override get message(): string {
    return describeFailure(this)
  }
}

/**
 * The cause of a {@link DecodeError} when a body is larger than the limit a reader set
 * (`getJson`'s `maxBodyBytes`): reading stopped at the limit and the connection was released.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const tooLarge = call.pipe(
 *   Effect.catchTag("DecodeError", (e) =>
 *     HttpFailure.isBodyTooLarge(e.cause) ? Effect.succeed(`over ${e.cause.limit} bytes`) : Effect.fail(e)
 *   )
 * )
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{
  /** The limit, in bytes. */
  readonly limit: number
  /** How many bytes were seen when reading stopped, or the declared `Content-Length`. */
  readonly seen: number
  /** Whether `seen` is the declared `Content-Length` rather than bytes read. */
  readonly declared: boolean
}> {
  override get message(): string {
    const size = this.declared ? `it declares ${this.seen}` : `reading stopped after ${this.seen}`
    return `is larger than the limit of ${this.limit} bytes (${size})`
  }
}

/**
 * Whether a value is a {@link BodyTooLarge}.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.DecodeError
 *
 * const overLimit = HttpFailure.isBodyTooLarge(failure.cause)
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isBodyTooLarge = (u: unknown): u is BodyTooLarge => u instanceof BodyTooLarge

/**
 * Every way a resilient HTTP call can fail.
 *
 * @example
 * ```ts
 * import type { HttpFailure } from "effect-http-resilience"
 *
 * const describe = (failure: HttpFailure.HttpFailure): string => {
 *   switch (failure._tag) {
 *     case "ConnectionError":
 *       return `no response (${failure.reason}) after ${failure.attempt} attempts`
 *     case "TransientStatus":
 *     case "PermanentStatus":
 *     case "DecodeError":
 *       return `status ${failure.status} after ${failure.attempt} attempts`
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type HttpFailure = ConnectionError | TransientStatus | PermanentStatus | DecodeError

/**
 * Whether a value is a {@link ConnectionError}.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 *
 * if (HttpFailure.isConnectionError(failure)) {
 *   console.log(failure.attempt)
 * }
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isConnectionError = (u: unknown): u is ConnectionError => u instanceof ConnectionError

/**
 * Whether a value is a {@link TransientStatus}.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 *
 * if (HttpFailure.isTransientStatus(failure)) {
 *   console.log(failure.attempt)
 * }
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransientStatus = (u: unknown): u is TransientStatus => u instanceof TransientStatus

/**
 * Whether a value is a {@link PermanentStatus}.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 *
 * if (HttpFailure.isPermanentStatus(failure)) {
 *   console.log(failure.attempt)
 * }
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isPermanentStatus = (u: unknown): u is PermanentStatus => u instanceof PermanentStatus

/**
 * Whether a value is a {@link DecodeError}.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 *
 * if (HttpFailure.isDecodeError(failure)) {
 *   console.log(failure.attempt)
 * }
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isDecodeError = (u: unknown): u is DecodeError => u instanceof DecodeError

/**
 * Whether a value is any of the four {@link HttpFailure} classes.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, unknown>
 *
 * const onlyHttp = call.pipe(
 *   Effect.catchIf(HttpFailure.isHttpFailure, (e) => Effect.succeed(e._tag))
 * )
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isHttpFailure: (u: unknown) => u is HttpFailure = Predicate.or(
  Predicate.or(isConnectionError, isTransientStatus),
  Predicate.or(isPermanentStatus, isDecodeError)
)

/**
 * Whether a failure is of a kind that another attempt could cure: a transport failure, a
 * timeout or a transient status. Policies add their own conditions (method, attempts left).
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 *
 * const worthAnotherTry = HttpFailure.isRetryableKind(failure)
 * ```
 *
 * @since 0.1.0
 * @category predicates
 */
export const isRetryableKind = (failure: HttpFailure): boolean =>
  failure._tag === "TransientStatus" ||
  (failure._tag === "ConnectionError" && (failure.reason === "Transport" || failure.reason === "Timeout"))
