import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"

/** One scripted answer. The last one repeats once the script runs out. */
export type Answer =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      /** The body breaks off with this error after its first chunk. */
      readonly bodyError?: string
    }
  | { readonly transportError: string; readonly code?: string }
  | { readonly hang: true }

/** What the scripted server saw of one request and what became of its response. */
export interface Exchange {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly at: number
  readonly status: number | undefined
  /** The body was read to its end, or cancelled by its reader, or its request aborted. */
  drained: boolean
  cancelled: boolean
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

const statusesWithoutBody = new Set([204, 205, 304])
const chunkBytes = 16 * 1024

const bodyStream = (text: string, exchange: Exchange, error: string | undefined): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset < bytes.length && (error === undefined || offset === 0)) {
        controller.enqueue(bytes.subarray(offset, offset + chunkBytes))
        offset += chunkBytes
        return
      }
      if (error !== undefined) return controller.error(new Error(error))
      exchange.drained = true
      controller.close()
    },
    cancel() {
      exchange.cancelled = true
    }
  })
}

/**
 * An in-memory Effect 4 HttpClient that answers from a script, records every request with the
 * (Test)Clock time it arrived, and how each response was released.
 */
export const make = (script: ReadonlyArray<Answer>): ScriptedHttpClient => {
  const exchanges: Array<Exchange> = []
  const client = HttpClient.make((request, _url, signal) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => {
      const previous = exchanges.at(-1)
      if (previous !== undefined) previous.releasedBeforeNext = isReleased(previous)
      const answer = script[Math.min(exchanges.length, script.length - 1)]!
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
      if ("transportError" in answer) {
        const cause = Object.assign(
          new Error(answer.transportError),
          answer.code === undefined ? {} : { code: answer.code }
        )
        return Effect.fail(
          new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })
        )
      }
      if ("hang" in answer) return Effect.never
      const body = statusesWithoutBody.has(answer.status)
        ? null
        : bodyStream(answer.body ?? JSON.stringify({ status: answer.status }), exchange, answer.bodyError)
      return Effect.succeed(
        HttpClientResponse.fromWeb(
          request,
          new Response(body, {
            status: answer.status,
            headers: { "content-type": "application/json", ...answer.headers }
          })
        )
      )
    })
  )
  return { client, exchanges, times: () => exchanges.map((exchange) => exchange.at) }
}
