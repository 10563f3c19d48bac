// @generated from templates/src/BodyIdleTimeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A limit on how long a body being read may go without a byte (undici's `bodyTimeout`, Envoy's
 * `per_try_idle_timeout`), docs/retry-policy.md: `attemptTimeout` bounds the response headers, and a
 * body that stops flowing halfway would hold its connection and its reader until the whole
 * deadline. With it, a read that waits longer than the limit for its next bytes fails with a
 * `ConnectionError` `"Timeout"` whose cause is a {@link BodyIdleTimeoutExceeded}, and the
 * connection is closed. Through `getJson` the failure is retried as any timeout is; a body handed
 * to the caller (`execute`, `get`, `withResilience`, `layerHttpClient`) fails its read with the
 * platform's error, the `ConnectionError` its cause (`giveUpReason: "body-idle-timeout"`). A
 * policy's `bodyIdleTimeout` option takes a value built here; left out, there is no such limit.
 *
 * @example
 * ```ts
 * import { BodyIdleTimeout, RetryPolicy } from "effect-http-resilience"
 *
 * // A body with no byte for 5 s fails; the headers keep their own 10 s limit.
 * const policy = RetryPolicy.make({ bodyIdleTimeout: BodyIdleTimeout.make("5 seconds") })
 * ```
 *
 * @since 0.2.0
 */
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import * as Settings from "@effect-http-resilience/core/Settings"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as internal from "./internal/bodyIdleTimeout.js"
import type { Attempt } from "./internal/classify.js"
import { durationCodec, orThrow } from "./internal/invalidOption.js"
import type { TrackedResponse } from "./internal/withResilience.js"

/**
 * The body idle timeout, for a policy's `bodyIdleTimeout` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface BodyIdleTimeout {
  readonly [StageTypeId]: "bodyIdleTimeout"
  /** The longest a read waits for its next bytes. */
  readonly timeout: Duration.Duration
  /** @internal */
  readonly bound: (
    response: HttpClientResponse.HttpClientResponse,
    attempt: Attempt,
    handedOver: boolean
  ) => TrackedResponse
}

/**
 * The cause of a `ConnectionError` `"Timeout"` whose body stalled: no byte for `timeoutMillis`
 * while it was read.
 *
 * @since 0.2.0
 * @category errors
 */
export class BodyIdleTimeoutExceeded extends /* @__PURE__ */ Data.TaggedError("BodyIdleTimeoutExceeded")<{
  readonly timeoutMillis: number
}> {
  override get message(): string {
    return `the body stalled: no byte for ${this.timeoutMillis} ms (bodyIdleTimeout)`
  }
}

/**
 * Whether a value is a {@link BodyIdleTimeoutExceeded}.
 *
 * @since 0.2.0
 * @category guards
 */
export const isBodyIdleTimeoutExceeded = (u: unknown): u is BodyIdleTimeoutExceeded =>
  u instanceof BodyIdleTimeoutExceeded

const constraints: Settings.DurationConstraints = { allowInfinite: false, allowZero: false }

/**
 * A read of a body fails once it waits longer than `timeout` (finite, at least 1 millisecond)
 * for its next bytes; a bad duration throws `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (timeout: Duration.DurationInput): BodyIdleTimeout =>
  internal.stage(
    orThrow(Settings.duration(durationCodec, "bodyIdleTimeout", timeout, constraints), "bodyIdleTimeout"),
    (timeoutMillis) => new BodyIdleTimeoutExceeded({ timeoutMillis })
  )
