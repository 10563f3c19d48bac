// @generated from templates/src/HttpFailure.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The failures a resilient HTTP call can end with: a tagged union in the error channel.
 *
 * Every failure carries the `request` it belongs to and the 1-based `attempt` that produced it,
 * so the failure a caller finally sees tells how many attempts were made, and once the call
 * stopped, `giveUpReason` says why; its `message` says all of it in words.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { HttpFailure } from "effect-http-resilience-effect4"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const handled = call.pipe(
 *   Effect.catchTag("TransientStatus", (e) => Effect.succeed(`${e.status} after ${e.attempt} attempts`))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as FailureMessage from "@effect-http-resilience/core/FailureMessage"
import { describeFailure, describeRateLimited } from "@effect-http-resilience/core/FailureMessage"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import * as UrlCredentials from "@effect-http-resilience/core/UrlCredentials"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Option from "effect/Option"
import * as redaction from "./internal/redaction.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Why no HTTP response arrived.
 *
 * - `"Transport"`: the connection was refused, reset or broke before a response (retried).
 * - `"Timeout"`: no response headers within the policy's `attemptTimeout` (retried).
 * - `"InvalidRequest"`: the request could not be sent at all (a malformed URL, a body that
 *   could not be encoded, credentials in its URL that were not sent: {@link UrlCredentialsRefused}).
 *   Never retried.
 * - `"Unrecoverable"`: sending again cannot cure it: too many redirects, an unsupported
 *   protocol, a TLS certificate that does not verify. Never retried.
 * - `"CircuitOpen"`: not sent: the origin's circuit breaker is open (the `cause` is the
 *   breaker's rejection, which says when it lets a probe through). Ends the call at once.
 * - `"CoolingDown"`: not sent: another call's `429` with `Retry-After` cooled the origin down
 *   for longer than this call may wait (past `maxDelay` under `whenRetryAfterExceedsMaxDelay:
 *   "give-up"`, or past its total timeout). Ends the call at once.
 * - `"RateLimited"`: not sent: the client's rate limit (`rateLimit`, or a reset a server announced
 *   with `rateLimitHeaders`) has no token before the call's deadline (the `cause` is a
 *   {@link RateLimitExceeded}, which says the limit and the wait). Ends the call at once.
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionFailureReason = FailureMessage.ConnectionFailureReason

/**
 * No HTTP response at all.
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
    return describeFailure(this, redaction.redactUrl)
  }
  override toJSON(): unknown {
    return redaction.failureJson(this)
  }
}

/**
 * A response worth retrying (by default 408, 429, 500, 502, 503, 504). Its body was released
 * unread; `retryAfter` is the delay the server asked for, if any.
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
    return describeFailure(this, redaction.redactUrl)
  }
  override toJSON(): unknown {
    return redaction.failureJson(this)
  }
}

/**
 * A response not worth retrying (any other non-2xx status). `body` is a bounded snippet (at
 * most 8 KiB, read with a short time limit) for diagnostics, never decoded as data; empty when
 * unreadable.
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
    return describeFailure(this, redaction.redactUrl)
  }
  override toJSON(): unknown {
    return redaction.failureJson(this)
  }
}

/**
 * A successful response whose body did not decode (invalid JSON, a schema mismatch, a body
 * over `maxBodyBytes`). Never retried: the server answered, and would answer the same again.
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
    return describeFailure(this, redaction.redactUrl)
  }
  override toJSON(): unknown {
    return redaction.failureJson(this)
  }
}

/**
 * The cause of a {@link DecodeError} when a body is larger than the limit (`maxBodyBytes`):
 * reading stopped at the limit and the connection was released.
 *
 * @since 0.1.0
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
 * Why credentials in a request's URL were not sent (see {@link UrlCredentialsRefused}):
 * `"refused"` (`urlCredentials: "refuse"`), `"colon-in-user"` (a Basic header cannot carry a
 * colon in the user name, RFC 7617), `"control-character"`, `"invalid-percent-encoding"`, or
 * `"added-after-client"` (put in the URL by a `mapRequest` applied to the resilient client, on
 * Effect 3, whose client cannot send another request than the one it read).
 *
 * @since 0.1.0
 * @category models
 */
export type UrlCredentialsProblem = UrlCredentials.Problem

/**
 * The cause of a {@link ConnectionError} `"InvalidRequest"` when a request's URL carries
 * credentials (`http://user:password@host/`) that were not sent: the policy refuses them
 * (`urlCredentials: "refuse"`), or an `Authorization: Basic` header cannot carry them. Nothing
 * was sent; the message says what to do instead. The credentials are in no message.
 *
 * @since 0.1.0
 * @category errors
 */
export class UrlCredentialsRefused extends Data.TaggedError("UrlCredentialsRefused")<{
  readonly problem: UrlCredentialsProblem
}> {
  override get message(): string {
    return UrlCredentials.describeProblem(this.problem)
  }
}

/**
 * The cause of a {@link ConnectionError} `"RateLimited"`: the bucket of `key` (an origin, or the
 * `rateLimit.key` given) has no token for `waitMillis`, which would end past the call's deadline.
 * `limit` and `windowMillis` are the policy's `rateLimit`, `undefined` when only a server's
 * announced reset held the call.
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimitExceeded extends Data.TaggedError("RateLimitExceeded")<{
  readonly key: string
  readonly limit: number | undefined
  readonly windowMillis: number | undefined
  readonly waitMillis: number
}> {
  override get message(): string {
    return describeRateLimited(this)
  }
}

/**
 * Every way a resilient HTTP call can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpFailure = ConnectionError | TransientStatus | PermanentStatus | DecodeError

/**
 * Whether a value is a {@link BodyTooLarge}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isBodyTooLarge = (u: unknown): u is BodyTooLarge => u instanceof BodyTooLarge

/**
 * Whether a value is a {@link UrlCredentialsRefused}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUrlCredentialsRefused = (u: unknown): u is UrlCredentialsRefused => u instanceof UrlCredentialsRefused

/**
 * Whether a value is a {@link ConnectionError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isConnectionError = (u: unknown): u is ConnectionError => u instanceof ConnectionError

/**
 * Whether a value is a {@link TransientStatus}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransientStatus = (u: unknown): u is TransientStatus => u instanceof TransientStatus

/**
 * Whether a value is a {@link PermanentStatus}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPermanentStatus = (u: unknown): u is PermanentStatus => u instanceof PermanentStatus

/**
 * Whether a value is a {@link DecodeError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isDecodeError = (u: unknown): u is DecodeError => u instanceof DecodeError

/**
 * Whether a value is any of the four {@link HttpFailure} classes.
 *
 * @since 0.1.0
 * @category guards
 */
export const isHttpFailure = (u: unknown): u is HttpFailure =>
  u instanceof ConnectionError ||
  u instanceof TransientStatus ||
  u instanceof PermanentStatus ||
  u instanceof DecodeError

/**
 * Whether a failure is of a kind that another attempt could cure: a transport failure, a
 * timeout or a transient status. Policies add their own conditions (method, attempts left).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isRetryableKind: (failure: HttpFailure) => boolean = RetrySchedule.isRetryableKind
