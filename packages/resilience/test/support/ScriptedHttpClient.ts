import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** One scripted answer. The last one repeats once the script runs out. */
export type Answer =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      /** The body breaks off with this error after its first chunk. */
      readonly bodyError?: string
    }
  | { readonly transportError: string }
  | { readonly hang: true }
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

const statusesWithoutBody = new Set([204, 205, 304])

// Bodies arrive in chunks of this size, as from a socket.
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
 * An in-memory HttpClient that answers from a script, records every request with the
 * (Test)Clock time it arrived, and records how each response was released.
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
        return Effect.fail(
          new HttpClientError.RequestError({ request, reason: "Transport", cause: new Error(answer.transportError) })
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
