// @generated from templates/src/internal/testing.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Layer from "effect/Layer"
import type * as Testing from "../Testing.js"
import * as line from "./line.js"

const answer = (
  request: HttpClientRequest.HttpClientRequest,
  step: ScriptedTransport.ScriptStep
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  if ("hang" in step) return Effect.never
  if ("transportError" in step) {
    return Effect.fail(line.transportError(request, ScriptedTransport.transportCause(step)))
  }
  return Effect.sync(() => HttpClientResponse.fromWeb(request, ScriptedTransport.toWebResponse(step)))
}

/** @internal */
export const scriptedHttpClient = (script: Testing.Script): Effect.Effect<Testing.ScriptedHttpClient> =>
  Effect.sync(() => {
    // Appended in place, copied when read: a copy per request made long scripts quadratic.
    const sent: Array<Testing.ScriptedRequest> = []
    const client = HttpClient.make((request, url) =>
      Clock.currentTimeMillis.pipe(
        Effect.map((sentAtMillis) => {
          const seen: Testing.ScriptedRequest = {
            attempt: sent.length + 1,
            method: request.method,
            url: url.toString(),
            headers: { ...request.headers },
            sentAtMillis
          }
          sent.push(seen)
          return ScriptedTransport.stepFor(script, seen)
        }),
        Effect.flatMap((step) => {
          const answered = answer(request, step)
          const delayMillis = "hang" in step ? 0 : (step.delayMillis ?? 0)
          return delayMillis > 0 ? Effect.zipRight(Effect.sleep(Duration.millis(delayMillis)), answered) : answered
        })
      )
    )
    return {
      client,
      layer: Layer.succeed(HttpClient.HttpClient, client),
      requests: Effect.sync((): ReadonlyArray<Testing.ScriptedRequest> => sent.slice())
    }
  })
