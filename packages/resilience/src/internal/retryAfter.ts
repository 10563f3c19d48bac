// @generated from templates/src/internal/retryAfter.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as RetryAfterCore from "@effect-http-resilience/core/RetryAfter"
import * as Duration from "effect/Duration"
import type * as Headers from "@effect/platform/Headers"
import * as Option from "effect/Option"

// The parsing is the shared core's, in milliseconds; this line speaks Option<Duration>.
const toDuration = (millis: number | undefined): Option.Option<Duration.Duration> =>
  millis === undefined ? Option.none() : Option.some(Duration.millis(millis))

/** @internal */
export const parse = (value: string, nowMillis: number): Option.Option<Duration.Duration> =>
  toDuration(RetryAfterCore.parse(value, nowMillis))

/** @internal */
export const fromHeaders = (headers: Headers.Headers, nowMillis: number): Option.Option<Duration.Duration> =>
  toDuration(RetryAfterCore.fromHeaders(headers, nowMillis))

/** @internal */
export const ofTransientResponse = (
  status: number,
  headers: Headers.Headers,
  nowMillis: number,
  millisNames: ReadonlyArray<string>
): Option.Option<Duration.Duration> =>
  toDuration(RetryAfterCore.ofTransientResponse(status, headers, nowMillis, millisNames))
