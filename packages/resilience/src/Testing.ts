// @generated from templates/src/Testing.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Testing code that calls HTTP APIs without a server: a scripted `HttpClient` that answers each
 * request from a script (responses, transport failures, silence) and records every request with
 * the `Clock`'s time it was sent, so a test on `TestClock` can assert the exact waits and the
 * number of attempts.
 *
 * @example
 * ```ts
 * import { Testing } from "effect-http-resilience"
 *
 * const steps: ReadonlyArray<Testing.ScriptStep> = [
 *   { status: 503, headers: { "retry-after": "2" } },
 *   { transportError: "socket hang up", code: "ECONNRESET" },
 *   { hang: true },
 *   { status: 200, body: "slow", delayMillis: 500 },
 *   { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ id: 1 }) }
 * ]
 * ```
 *
 * @since 0.2.0
 */
import type * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as internal from "./internal/testing.js"

/**
 * What the scripted client does with one request: answer a response (`status`, `headers`,
 * `body`), fail as a transport does without any response (`transportError`, with an optional
 * Node error `code`), or never answer (`hang`, until the request is interrupted). A response
 * or a failure with `delayMillis` comes that long after the request, on the `Clock` (so, in a
 * test, when the `TestClock` gets there): a slow answer, as a hedged request races.
 *
 * A string body arrives as a stream, with `content-type: text/plain;charset=UTF-8` unless
 * `headers` names one; 204, 205 and 304 have no body.
 *
 * @since 0.2.0
 * @category models
 */
export type ScriptStep = ScriptedTransport.ScriptStep

/**
 * What the scripted client recorded of one request: its 1-based number (the attempt number when
 * a test makes one call), method, full URL, headers as a transport gets them (names in lower
 * case; the platform's tracing headers `b3` and `traceparent` included unless
 * `HttpClient.withTracerPropagation(false)`), and `sentAtMillis`, the `Clock`'s time when it was
 * sent (0 at the start of an `it.effect` test, which runs on `TestClock`).
 *
 * @since 0.2.0
 * @category models
 */
export type ScriptedRequest = ScriptedTransport.ScriptedRequest

/**
 * A script: steps in order, one per request, the last repeated once they run out; or a function
 * of the request (its number, method, URL, headers) that picks the step.
 *
 * @since 0.2.0
 * @category models
 */
export type Script = ScriptedTransport.Script

/**
 * A scripted client: the `HttpClient` itself, a layer that provides it, and the requests it was
 * sent so far.
 *
 * @since 0.2.0
 * @category models
 */
export interface ScriptedHttpClient {
  readonly client: HttpClient.HttpClient
  /** Provides {@link ScriptedHttpClient.client} as the `HttpClient`. */
  readonly layer: Layer.Layer<HttpClient.HttpClient>
  /** The requests sent so far, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<ScriptedRequest>>
}

/**
 * Makes an in-memory `HttpClient` that answers from a script and records every request it is
 * sent, with the `Clock`'s time: under `TestClock`, the times are the exact waits between
 * attempts. Each call of the effect makes a new client with an empty record. A script function
 * that throws is a defect.
 *
 * @since 0.2.0
 * @category constructors
 */
export const scriptedHttpClient: (script: Script) => Effect.Effect<ScriptedHttpClient> = internal.scriptedHttpClient
