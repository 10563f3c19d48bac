import type * as Http from "node:http"

/**
 * One request as an endpoint sees it. `signal` is aborted when the response closes, which before the answer
 * is complete means the client left: waits and streams stop on it.
 *
 * @internal
 */
export interface Exchange {
  readonly request: Http.IncomingMessage
  /**
   * The namespace the request is in (`/__ns/NAME/...`), or the default one (""): where its retry keys,
   * idempotency keys and orders are kept.
   */
  readonly namespace: string
  /** The path under the namespace's prefix (the whole path in the default namespace). */
  readonly path: string
  readonly query: URLSearchParams
  /** The request body, kept only for the endpoints that read it (others discard it unread). */
  readonly body: Buffer | undefined
  readonly signal: AbortSignal
  /**
   * Headers every answer to the request carries (the CORS ones; none with CORS off). The listener adds them to
   * what an endpoint answers; an endpoint that writes its own head onto the socket must write them itself.
   */
  readonly sharedHeaders: Readonly<Record<string, string>>
}

/**
 * What an endpoint answers: a complete response, a streamed one, nothing at all (`Silent`: it never answers, or
 * its client already left), or nothing through node because it took the socket over to answer wrongly on purpose
 * (`TakenOver`: the server, not the client, then ends the connection, so the request is not counted abandoned).
 *
 * @internal
 */
export type Answer =
  | {
      readonly _tag: "Complete"
      readonly status: number
      readonly headers: Readonly<Record<string, string>>
      readonly body: string | undefined
    }
  | {
      readonly _tag: "Streamed"
      readonly status: number
      readonly headers: Readonly<Record<string, string>>
      /** The body, chunk by chunk; the next chunk is asked for only once the socket has taken the last. */
      readonly body: (signal: AbortSignal) => AsyncIterable<Uint8Array>
    }
  | { readonly _tag: "Silent" }
  | { readonly _tag: "TakenOver" }

/** @internal */
export const json = (body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): Answer => ({
  _tag: "Complete",
  status,
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** @internal */
export const errorJson = (status: number, message: string, headers: Readonly<Record<string, string>> = {}): Answer =>
  json({ error: message }, status, headers)

/** @internal */
export const empty = (status: number, headers: Readonly<Record<string, string>> = {}): Answer => ({
  _tag: "Complete",
  status,
  headers,
  body: undefined
})

/** @internal */
export const silent: Answer = { _tag: "Silent" }

/** @internal */
export const takenOver: Answer = { _tag: "TakenOver" }

/**
 * Waits `millis` on the wall clock. Resolves `true` when the time has passed, `false` as soon as `signal` is
 * aborted (the client left), clearing the timer so that an abandoned wait holds nothing.
 *
 * @internal
 */
export const sleep = (millis: number, signal: AbortSignal): Promise<boolean> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve(true)
    }, millis)
    signal.addEventListener("abort", onAbort, { once: true })
  })
