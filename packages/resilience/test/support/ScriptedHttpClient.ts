// @generated from templates/test/support/ScriptedHttpClient.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Our own tests' scripted transport: the public `Testing.scriptedHttpClient`'s steps on the same
 * Effect-free core (`ScriptedTransport`), plus what only this library's tests need: how each
 * response was released (drained, cancelled, aborted, released before the next request), a body
 * that breaks off, a transport that fails only once its request is aborted, the request objects
 * themselves, and a JSON body by default.
 */
import * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"

/** One scripted answer. The last one repeats once the script runs out. */
export type Answer =
  | (ScriptedTransport.ScriptedResponse & {
      /** The body breaks off with this error after its first chunk. */
      readonly bodyError?: string
    })
  | ScriptedTransport.ScriptedTransportError
  | ScriptedTransport.ScriptedHang
  /** Hangs until the request's signal aborts it, then fails as a transport would. */
  | { readonly hangUntilAborted: true }

/** What the scripted server saw of one request and what became of its response. */
export interface Exchange {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly at: number
  readonly status: number | undefined
  /** The body was read to its end. */
  drained: boolean
  /** The body stream was cancelled by its reader. */
  cancelled: boolean
  /** The request's abort signal fired. */
  aborted: boolean
  /** Whether this exchange's response was released when the next request arrived. */
  releasedBeforeNext: boolean | undefined
}

export const isReleased = (exchange: Exchange): boolean => exchange.drained || exchange.cancelled || exchange.aborted

export interface ScriptedHttpClient {
  readonly client: HttpClient.HttpClient
  readonly exchanges: Array<Exchange>
  readonly times: () => Array<number>
}

const nonEmpty = (script: ReadonlyArray<Answer>): readonly [Answer, ...ReadonlyArray<Answer>] => {
  const [first, ...rest] = script
  if (first === undefined) throw new Error("a request reached a script without answers")
  return [first, ...rest]
}

/**
 * An in-memory HttpClient that answers from a script, records every request with the
 * (Test)Clock time it arrived, and records how each response was released.
 */
export const make = (script: ReadonlyArray<Answer>): ScriptedHttpClient => {
  const exchanges: Array<Exchange> = []
  const client = HttpClient.make((request, _url, signal) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => {
      const previous = exchanges.at(-1)
      if (previous !== undefined) previous.releasedBeforeNext = isReleased(previous)
      const answer = ScriptedTransport.stepAt(nonEmpty(script), exchanges.length + 1)
      const exchange: Exchange = {
        request,
        at,
        status: "status" in answer ? answer.status : undefined,
        drained: false,
        cancelled: false,
        aborted: false,
        releasedBeforeNext: undefined
      }
      exchanges.push(exchange)
      signal.addEventListener("abort", () => {
        exchange.aborted = true
      })
      const answered = answerOf(request, signal, exchange, answer)
      // A slow answer (`delayMillis`) comes that long after the request, on the Clock.
      const delayMillis = "delayMillis" in answer ? (answer.delayMillis ?? 0) : 0
      return delayMillis > 0 ? Effect.zipRight(Effect.sleep(Duration.millis(delayMillis)), answered) : answered
    })
  )

  const answerOf = (
    request: HttpClientRequest.HttpClientRequest,
    signal: AbortSignal,
    exchange: Exchange,
    answer: Answer
  ) =>
    Effect.suspend(() => {
      if ("transportError" in answer) {
        return Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            cause: ScriptedTransport.transportCause(answer)
          })
        )
      }
      if ("hang" in answer) return Effect.never
      if ("hangUntilAborted" in answer) {
        return Effect.async<never, HttpClientError.RequestError>((resume) => {
          const abort = () =>
            resume(
              Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: signal.reason }))
            )
          if (signal.aborted) abort()
          else signal.addEventListener("abort", abort, { once: true })
        })
      }
      const response = ScriptedTransport.toWebResponse(
        {
          status: answer.status,
          headers: { "content-type": "application/json", ...answer.headers },
          body: answer.body ?? JSON.stringify({ status: answer.status })
        },
        {
          onEnd: () => {
            exchange.drained = true
          },
          onCancel: () => {
            exchange.cancelled = true
          },
          failAfterFirstChunk: answer.bodyError
        }
      )
      return Effect.succeed(HttpClientResponse.fromWeb(request, response))
    })
  return { client, exchanges, times: () => exchanges.map((exchange) => exchange.at) }
}
