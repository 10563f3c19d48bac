import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Http from "node:http"
import * as ChaosServer from "../../src/ChaosServer.js"

/** A complete response, with the arrival time of every body chunk (in `performance.now()` milliseconds). */
export interface ClientResponse {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  readonly chunks: ReadonlyArray<{ readonly text: string; readonly arrivedAt: number }>
  readonly startedAt: number
  readonly finishedAt: number
}

/**
 * Why a request produced no complete response: `request` when no response head arrived (refused, reset),
 * `body` when the head arrived but the body broke off, `timeout` when the client gave up.
 */
export class ClientError extends Data.TaggedError("ClientError")<{
  readonly stage: "request" | "body" | "timeout"
  readonly code: string | undefined
  readonly status: number | undefined
  readonly headers: Http.IncomingHttpHeaders | undefined
  readonly received: string
  readonly elapsedMillis: number
}> {}

export interface RequestOptions {
  readonly method?: string
  readonly headers?: Http.OutgoingHttpHeaders
  readonly body?: string | Uint8Array
  /** Defaults to `false`: a fresh connection that is closed after the response. */
  readonly agent?: Http.Agent | false
  readonly timeoutMillis?: number
}

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

/**
 * One request with node's own client, which reports transport failures precisely (ECONNRESET, a body cut short)
 * where fetch folds them into "fetch failed". Interrupting the effect destroys the request.
 */
export const request = (url: string, options: RequestOptions = {}): Effect.Effect<ClientResponse, ClientError> =>
  Effect.async<ClientResponse, ClientError>((resume) => {
    const startedAt = performance.now()
    let settled = false
    let response: Http.IncomingMessage | undefined
    const chunks: Array<{ text: string; arrivedAt: number }> = []
    const received = () => chunks.map((chunk) => chunk.text).join("")
    const fail = (stage: "request" | "body" | "timeout", code: string | undefined) =>
      settle(
        Effect.fail(
          new ClientError({
            stage,
            code,
            status: response?.statusCode,
            headers: response?.headers,
            received: received(),
            elapsedMillis: performance.now() - startedAt
          })
        )
      )
    const settle = (result: Effect.Effect<ClientResponse, ClientError>) => {
      if (!settled) {
        settled = true
        clearTimeout(timer)
        resume(result)
      }
    }
    const timer =
      options.timeoutMillis === undefined
        ? undefined
        : setTimeout(() => {
            fail("timeout", undefined)
            clientRequest.destroy()
          }, options.timeoutMillis)

    const clientRequest = Http.request(url, {
      method: options.method ?? "GET",
      headers: options.headers ?? {},
      agent: options.agent ?? false
    })
    clientRequest.on("error", (error) => fail(response === undefined ? "request" : "body", errorCode(error)))
    clientRequest.on("response", (incoming) => {
      response = incoming
      incoming.setEncoding("utf8")
      incoming.on("data", (text: string) => chunks.push({ text, arrivedAt: performance.now() }))
      incoming.on("error", (error) => fail("body", errorCode(error)))
      incoming.on("end", () =>
        settle(
          Effect.succeed({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: received(),
            chunks,
            startedAt,
            finishedAt: performance.now()
          })
        )
      )
      incoming.on("close", () => {
        if (!incoming.complete) fail("body", "ECONNRESET")
      })
    })
    clientRequest.end(options.body)
    return Effect.sync(() => {
      clearTimeout(timer)
      clientRequest.destroy()
    })
  })

/** The response body parsed as JSON (fails the test on invalid JSON). */
export const json = (response: ClientResponse): unknown => JSON.parse(response.body)

/** Runs `use` against a fresh chaos server, stopped afterwards. */
export const withServer = <A, E, R>(
  use: (server: ChaosServer.ChaosServer["Type"]) => Effect.Effect<A, E, R>,
  options?: ChaosServer.Options
) => Effect.flatMap(ChaosServer.ChaosServer, use).pipe(Effect.provide(ChaosServer.layer(options)))

/** GET `path` on a server (a `ChaosServer` service or a `startChaosServer` handle). */
export const get = (server: { readonly url: string }, path: string, options?: RequestOptions) =>
  request(`${server.url}${path}`, options)

/**
 * The server's stats once `predicate` holds, polled every 10 ms; fails after ten seconds, a deadline that only ends
 * a stuck test (a second was too short with the suite and two busy loops sharing two cores). Needed where the
 * server learns of an event (a socket closing) a moment after the client does. Runs on the live clock.
 */
export const awaitStats = (
  server: ChaosServer.ChaosServer["Type"],
  predicate: (stats: ChaosServer.Stats) => boolean,
  description: string
): Effect.Effect<ChaosServer.Stats, string> =>
  server.stats.pipe(
    Effect.filterOrFail(predicate, () => `stats never showed ${description}`),
    Effect.retry(Schedule.spaced("10 millis")),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => `stats never showed ${description}` })
  )
