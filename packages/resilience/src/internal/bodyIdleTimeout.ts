// @generated from templates/src/internal/bodyIdleTimeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The body idle timeout: a response whose every read of its body waits at most the limit for its
// next bytes. Only a policy with `bodyIdleTimeout` wraps its responses so; this module is loaded
// by `BodyIdleTimeout.make` alone.
import { describeOutcome } from "@effect-http-resilience/core/FailureMessage"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as BodyIdleTimeout from "../BodyIdleTimeout.js"
import * as HttpFailure from "../HttpFailure.js"
import { reportGiveUp } from "./attemptLoop.js"
import type { Attempt } from "./classify.js"
import * as line from "./line.js"
import * as platformErrors from "./platformErrors.js"
import { TrackedResponse } from "./withResilience.js"

type ReadError = HttpClientError.ResponseError

const concat = (parts: ReadonlyArray<Uint8Array>): ArrayBuffer => {
  const whole = new Uint8Array(parts.reduce((size, part) => size + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    whole.set(part, offset)
    offset += part.byteLength
  }
  return whole.buffer
}

/**
 * A response whose body, however it is read, is read through its stream, each pull within the
 * limit: the platform's own `text` or `arrayBuffer` would wait on the whole body at once. A
 * stalled read fails with the platform's error, a `ConnectionError` `"Timeout"` its cause;
 * stopping the stream cancels the body, which aborts the request and closes the connection.
 */
class IdleBoundedResponse extends TrackedResponse {
  constructor(
    inner: HttpClientResponse.HttpClientResponse,
    private readonly timeout: Duration.Duration,
    private readonly stalled: Effect.Effect<never, ReadError>
  ) {
    super(inner)
  }

  private decoded<A>(parse: (text: string) => A): Effect.Effect<A, ReadError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => parse(text),
        catch: (cause) => platformErrors.bodyReadError(this.inner, cause, "the body did not decode")
      })
    )
  }

  override get stream(): Stream.Stream<Uint8Array, ReadError> {
    return line.streamTimeoutFail(super.stream, this.timeout, this.stalled)
  }
  override get arrayBuffer(): Effect.Effect<ArrayBuffer, ReadError> {
    return Effect.suspend(() => {
      const parts: Array<Uint8Array> = []
      return Effect.as(
        Stream.runForEach(this.stream, (part) => Effect.sync(() => parts.push(part))),
        parts
      ).pipe(Effect.map(concat))
    })
  }
  override get text(): Effect.Effect<string, ReadError> {
    return Effect.map(this.arrayBuffer, (buffer) => new TextDecoder().decode(buffer))
  }
  // As the platform's own: an empty body is `null`.
  override get json(): Effect.Effect<line.Json, ReadError> {
    return this.decoded((text): line.Json => (text === "" ? null : JSON.parse(text)))
  }
  override get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, ReadError> {
    return this.decoded((text) => UrlParams.fromInput(new URLSearchParams(text)))
  }
  override get formData(): Effect.Effect<FormData, ReadError> {
    const type = this.headers["content-type"] ?? ""
    return Effect.flatMap(this.arrayBuffer, (buffer) =>
      Effect.tryPromise({
        try: () => new Response(buffer, { headers: { "content-type": type } }).formData(),
        catch: (cause) => platformErrors.bodyReadError(this.inner, cause, "the body did not decode")
      })
    )
  }
}

/**
 * The stage `BodyIdleTimeout.make` builds: `bound` wraps a response of an attempt, handed over
 * to the caller or read within the attempt.
 *
 * @internal
 */
export const stage = (
  timeout: Duration.Duration,
  exceeded: (timeoutMillis: number) => BodyIdleTimeout.BodyIdleTimeoutExceeded
): BodyIdleTimeout.BodyIdleTimeout => {
  const timeoutMillis = Duration.toMillis(timeout)
  return {
    [StageTypeId]: "bodyIdleTimeout",
    timeout,
    bound: (response, attempt: Attempt, handedOver: boolean) =>
      new IdleBoundedResponse(
        response,
        timeout,
        Effect.suspend(() => {
          const failure = new HttpFailure.ConnectionError({
            request: attempt.request,
            attempt: attempt.attempt,
            reason: "Timeout",
            cause: exceeded(timeoutMillis),
            ...(handedOver ? { giveUpReason: "body-idle-timeout" } : {})
          })
          const failed = Effect.fail(platformErrors.bodyReadError(response, failure, describeOutcome(failure)))
          // Handed over, nothing retries its read: the call ends here. Read within an attempt
          // (`getJson`), the retry loop decides.
          return handedOver ? Effect.andThen(reportGiveUp(failure, "body-idle-timeout"), failed) : failed
        })
      )
  }
}
