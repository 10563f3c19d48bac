// @generated from templates/src/HttpFailure.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The failures a resilient HTTP call can end with, each with its `request`, its 1-based
 * `attempt` and, once the call stopped, its `giveUpReason`; the `message` says it in words.
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
import * as TransportFailure from "@effect-http-resilience/core/TransportFailure"
import * as UrlCredentials from "@effect-http-resilience/core/UrlCredentials"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Option from "effect/Option"
import * as line from "./internal/line.js"
import * as redaction from "./internal/redaction.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Why no HTTP response arrived; only `"Transport"` and `"Timeout"` are retried.
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
 * A response worth retrying, its body released; `retryAfter` is the delay the server asked for.
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
 * A response not worth retrying; `body` is a snippet of at most 8 KiB, for diagnostics.
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
 * A successful response whose body did not decode; never retried.
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
 * The cause of a {@link DecodeError} for a body over `maxBodyBytes`: reading stopped there.
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
 * Why credentials in a request's URL were not sent ({@link UrlCredentialsRefused}).
 *
 * @since 0.1.0
 * @category models
 */
export type UrlCredentialsProblem = UrlCredentials.Problem

/**
 * The cause of a {@link ConnectionError} `"InvalidRequest"` for credentials in a URL, unsent.
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
 * The cause of a {@link ConnectionError} `"RateLimited"`: `key`'s bucket has no token for
 * `waitMillis`, past the call's deadline (`limit` undefined: a server's announced reset held it).
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

// Node's inspect writes each as its JSON (request redacted), on both lines.
line.inspectAsJson(ConnectionError, TransientStatus, PermanentStatus, DecodeError)

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
 * Whether another attempt could cure a failure: a transport failure, a timeout, a transient status.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isRetryableKind: (failure: HttpFailure) => boolean = RetrySchedule.isRetryableKind

/**
 * The error `code`s in a connection failure's `cause` chain, outermost first (`"ECONNREFUSED"`,
 * undici's `"UND_ERR_SOCKET"` ...): what an `isTransientConnectionError` predicate reads.
 *
 * @since 0.1.0
 * @category getters
 */
export const causeCodes = (failure: ConnectionError): ReadonlyArray<string> =>
  TransportFailure.causeCodes(failure.cause)
