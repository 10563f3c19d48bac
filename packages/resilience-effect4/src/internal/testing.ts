// @generated from templates/src/internal/testing.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Testing from "../Testing.js"

const answer = (
  request: HttpClientRequest.HttpClientRequest,
  step: ScriptedTransport.ScriptStep
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  if ("hang" in step) return Effect.never
  if ("transportError" in step) {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({ request, cause: ScriptedTransport.transportCause(step) })
      })
    )
  }
  return Effect.sync(() => HttpClientResponse.fromWeb(request, ScriptedTransport.toWebResponse(step)))
}

/** @internal */
export const scriptedHttpClient = (script: Testing.Script): Effect.Effect<Testing.ScriptedHttpClient> =>
  Effect.map(Ref.make<ReadonlyArray<Testing.ScriptedRequest>>([]), (sent) => {
    const client = HttpClient.make((request, url) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((sentAtMillis) =>
          Ref.modify(sent, (requests) => {
            const seen: Testing.ScriptedRequest = {
              attempt: requests.length + 1,
              method: request.method,
              url: url.toString(),
              headers: { ...request.headers },
              sentAtMillis
            }
            return [seen, [...requests, seen]]
          })
        ),
        Effect.flatMap((seen) => Effect.sync(() => ScriptedTransport.stepFor(script, seen))),
        Effect.flatMap((step) => answer(request, step))
      )
    )
    return { client, layer: Layer.succeed(HttpClient.HttpClient, client), requests: Ref.get(sent) }
  })
