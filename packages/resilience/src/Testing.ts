// @generated from templates/src/Testing.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Testing code that calls HTTP APIs without a server: a scripted `HttpClient` that records each
 * request with the `Clock`'s time, for exact waits under `TestClock` (docs/testing.md).
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
 * What the scripted client does with one request: a response, a transport failure, or silence.
 *
 * @since 0.2.0
 * @category models
 */
export type ScriptStep = ScriptedTransport.ScriptStep

/**
 * What the scripted client recorded of one request, with `sentAtMillis`, the `Clock`'s time.
 *
 * @since 0.2.0
 * @category models
 */
export type ScriptedRequest = ScriptedTransport.ScriptedRequest

/**
 * A script: steps in order, the last repeated, or a function of the request that picks the step.
 *
 * @since 0.2.0
 * @category models
 */
export type Script = ScriptedTransport.Script

/**
 * A scripted client: the `HttpClient`, a layer that provides it, and the requests it was sent.
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
 * Makes an in-memory `HttpClient` that answers from a script and records every request.
 *
 * @since 0.2.0
 * @category constructors
 */
export const scriptedHttpClient: (script: Script) => Effect.Effect<ScriptedHttpClient> = internal.scriptedHttpClient
