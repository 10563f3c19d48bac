/**
 * A scripted HTTP transport's Effect-free parts, which each library's `Testing.scriptedHttpClient`
 * wraps: the steps, which step answers which request, and the Web `Response` a step becomes.
 *
 * @example
 * ```ts
 * import type { ScriptedTransport } from "@effect-http-resilience/core"
 *
 * const tooBusy: ScriptedTransport.ScriptedResponse = { status: 503, headers: { "retry-after": "2" } }
 * const ok: ScriptedTransport.ScriptedResponse = {
 *   status: 200,
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ id: 1 })
 * }
 * ```
 *
 * @since 0.1.0
 */

/**
 * A scripted response: a status, headers and a body, which arrives in chunks of {@link chunkBytes}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedResponse {
  /** 200 to 599, as a Web `Response` allows. */
  readonly status: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Empty when absent. */
  readonly body?: string | undefined
  /** The response arrives this long after the request, on the `Clock` (a `TestClock` in tests). [0] */
  readonly delayMillis?: number | undefined
  /** The body stalls: its first chunk arrives, then nothing, until the reader cancels it. [false] */
  readonly bodyStalls?: boolean | undefined
}

/**
 * A transport failure, with no response; `code` is Node's (`"ECONNRESET"`), which decides a retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedTransportError {
  /** The message of the cause. */
  readonly transportError: string
  readonly code?: string | undefined
  /** The failure comes this long after the request, on the `Clock`. [0] */
  readonly delayMillis?: number | undefined
}

/**
 * No answer, ever: the request waits until it is interrupted.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedHang {
  readonly hang: true
}

/**
 * One step of a script: what the transport does with one request.
 *
 * @since 0.1.0
 * @category models
 */
export type ScriptStep = ScriptedResponse | ScriptedTransportError | ScriptedHang

/**
 * What a scripted transport records of one request it was sent.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedRequest {
  /** 1-based: the n-th request the transport was sent (the attempt number, for one call). */
  readonly attempt: number
  readonly method: string
  /** The full URL, query included. */
  readonly url: string
  /** The request's headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The `Clock`'s time when the request reached the transport: 0 at the start of a `TestClock` test. */
  readonly sentAtMillis: number
}

/**
 * A script: steps in order, the last repeated, or a function that answers each request.
 *
 * @since 0.1.0
 * @category models
 */
export type Script = readonly [ScriptStep, ...ReadonlyArray<ScriptStep>] | ((request: ScriptedRequest) => ScriptStep)

/**
 * The step of a list for the n-th request (1-based): the last step repeats once the list runs out.
 *
 * @since 0.1.0
 * @category scripts
 */
export const stepAt = <S>(steps: readonly [S, ...ReadonlyArray<S>], attempt: number): S =>
  steps[Math.max(0, Math.min(attempt, steps.length) - 1)] ?? steps[0]

/**
 * The step a script takes for a request. A function that throws is the caller's to handle.
 *
 * @since 0.1.0
 * @category scripts
 */
export const stepFor = (script: Script, request: ScriptedRequest): ScriptStep =>
  typeof script === "function" ? script(request) : stepAt(script, request.attempt)

/**
 * The cause a {@link ScriptedTransportError} fails with: an `Error` with its message and `code`.
 *
 * @since 0.1.0
 * @category responses
 */
export const transportCause = (step: ScriptedTransportError): Error & { readonly code?: string } =>
  step.code === undefined
    ? new Error(step.transportError)
    : Object.assign(new Error(step.transportError), { code: step.code })

/**
 * Bodies arrive in chunks of this many bytes (16 KiB), as they would from a socket.
 *
 * @since 0.1.0
 * @category responses
 */
export const chunkBytes = 16 * 1024

/**
 * What a body stream reports, and how it may break off.
 *
 * @since 0.1.0
 * @category responses
 */
export interface BodyObserver {
  /** Called when the body has been read to its end. */
  readonly onEnd?: (() => void) | undefined
  /** Called when the reader cancels the stream. */
  readonly onCancel?: (() => void) | undefined
  /** The body breaks off with this error after its first chunk. */
  readonly failAfterFirstChunk?: string | undefined
  /** The body stalls after its first chunk: no more bytes and no end, until it is cancelled. */
  readonly stallAfterFirstChunk?: boolean | undefined
}

/**
 * A body as a stream of {@link chunkBytes} chunks, produced as the reader pulls.
 *
 * @since 0.1.0
 * @category responses
 */
export const bodyStream = (text: string, observer: BodyObserver = {}): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  const error = observer.failAfterFirstChunk
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const stops = error !== undefined || observer.stallAfterFirstChunk === true
      if (offset < bytes.length && (!stops || offset === 0)) {
        controller.enqueue(bytes.subarray(offset, offset + chunkBytes))
        offset += chunkBytes
        return
      }
      if (error !== undefined) return controller.error(new Error(error))
      // A pull that never settles: the reader waits until it cancels the stream.
      if (observer.stallAfterFirstChunk === true) return new Promise<void>(() => undefined)
      observer.onEnd?.()
      controller.close()
    },
    cancel() {
      observer.onCancel?.()
    }
  })
}

const statusesWithoutBody: ReadonlySet<number> = new Set([204, 205, 304])

/**
 * The Web `Response` a {@link ScriptedResponse} becomes; a status outside 200-599 throws a `RangeError`.
 *
 * @since 0.1.0
 * @category responses
 */
export const toWebResponse = (step: ScriptedResponse, given: BodyObserver = {}): Response => {
  const observer = step.bodyStalls === true ? { ...given, stallAfterFirstChunk: true } : given
  const hasBody = !statusesWithoutBody.has(step.status)
  const headers = new Headers(step.headers)
  if (hasBody && step.body !== undefined && !headers.has("content-type")) {
    headers.set("content-type", "text/plain;charset=UTF-8")
  }
  return new Response(hasBody ? bodyStream(step.body ?? "", observer) : null, { status: step.status, headers })
}
