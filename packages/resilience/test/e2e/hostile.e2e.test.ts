/**
 * Regression tests for issue 8 (hostile servers), over real loopback sockets against the chaos
 * server, through each transport: undici, node:http and fetch.
 *
 * - A 2xx body that trickles on, left unread or read under the caller's own timeout, is released
 *   within the release limit when the caller's scope closes, and the request is abandoned.
 * - `getJson` stops at `maxBodyBytes`: a `DecodeError` caused by `BodyTooLarge`, one attempt.
 * - A failure that sending again cannot cure (a redirect loop, an unsupported protocol) is sent once.
 * - At debug level, failed attempts log only the library's own decisions, nothing "unhandled".
 *
 * No timed assertions: a release that hangs is caught by a bound far above the release limit.
 */
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, Option, Schedule, Schema } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

type Transport = "undici" | "node:http" | "fetch"

const transports: ReadonlyArray<readonly [Transport, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["node:http", NodeHttpClient.layer],
  ["fetch", FetchHttpClient.layer]
]

const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("10 millis"), jitter: "none" } as const

/** The transport's client with `f` applied to it. */
const adapted = (
  transport: Layer.Layer<HttpClient.HttpClient>,
  f: (client: HttpClient.HttpClient) => HttpClient.HttpClient
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, f)).pipe(Layer.provide(transport))

/** The chaos server with its counters cleared. */
const freshServer = Effect.tap(ChaosServer.ChaosServer, (server) => server.reset)

/**
 * The server's stats once `predicate` holds, polled every 10 ms. The bound is generous: the
 * server learns a moment after the client that a socket closed.
 */
const eventually = (predicate: (stats: ChaosServer.Stats) => boolean, description: string) =>
  Effect.flatMap(ChaosServer.ChaosServer, (server) =>
    server.stats.pipe(
      Effect.filterOrFail(predicate, () => `the server never showed ${description}`),
      Effect.retry(Schedule.spaced("10 millis")),
      Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => `the server never showed ${description}` })
    )
  )

/**
 * Bodies the server is still sending. Each test compares with the count at its start, so that a
 * body a failing test left streaming does not fail the next one too.
 */
const streamingNow = Effect.flatMap(ChaosServer.ChaosServer, (server) =>
  Effect.map(server.stats, (stats) => stats.responses.streaming)
)

const requestsTo = (path: string) =>
  Effect.flatMap(ChaosServer.ChaosServer, (server) =>
    Effect.map(server.stats, (stats) => stats.requests.byPath[path] ?? 0)
  )

/** How a call that must fail failed: its typed failure, or undefined. */
const failureOf = <A, R>(call: Effect.Effect<A, HttpFailure.HttpFailure, R>) =>
  Effect.map(Effect.exit(Effect.scoped(call)), (exit): HttpFailure.HttpFailure | undefined =>
    Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
  )

// The release limit is 500 ms; a release that waits for the body's end would take 50 s here.
const releaseBound = "3 seconds"
const slowBodyPath = "/api/chaos/slow-body"
// 1000 elements 50 ms apart: about 50 s of trickle, about 22 KB (small enough that a release
// tries to read it to its end, for keep-alive).
const endlessTrickle = (declareLength: boolean) => `${slowBodyPath}?chunks=1000&interval=50&length=${declareLength}`

/**
 * Runs `use` in a scope closed as `Effect.scoped` closes one, uninterruptibly, and gives its
 * result if all of it finished within the bound. Disconnected, a close that hangs can be given up
 * on instead of holding the test for the body's whole trickle.
 */
const scopedWithinBound = <A, E, R>(use: Effect.Effect<A, E, R>) =>
  Effect.scoped(use).pipe(Effect.disconnect, Effect.timeoutOption(releaseBound), Effect.map(Option.getOrUndefined))

layer(ChaosServer.layer(), { excludeTestServices: true })("hostile servers (issue 8)", (it) => {
  for (const [name, transport] of transports) {
    describe(`over ${name}`, () => {
      // Item 1: with and without Content-Length, the two ways a release reads a small body.
      for (const declareLength of [true, false]) {
        const body = declareLength ? "with Content-Length" : "chunked"
        it.effect(`an unread 2xx body that trickles on (${body}) is released when the scope closes`, () =>
          Effect.gen(function* () {
            yield* freshServer
            const client = yield* ResilientHttpClient.make(fast)
            const server = yield* ChaosServer.ChaosServer
            const before = yield* streamingNow
            // The caller looks at the status, leaves the body unread, and its scope closes.
            const finished = yield* scopedWithinBound(
              Effect.gen(function* () {
                const response = yield* client.get(`${server.url}${endlessTrickle(declareLength)}`)
                return { status: response.status, streaming: yield* streamingNow }
              })
            )
            expect(finished, `the call and its scope closed within ${releaseBound}`).toEqual({
              status: 200,
              streaming: before + 1
            })
            // The release aborted the request: the server stopped sending the body.
            yield* eventually((stats) => stats.responses.streaming === before, "the trickle abandoned")
            expect(yield* requestsTo(slowBodyPath)).toBe(1)
          }).pipe(Effect.provide(transport))
        )
      }

      it.effect("a 2xx body read under the caller's own timeout is released when the scope closes", () =>
        Effect.gen(function* () {
          yield* freshServer
          const client = yield* ResilientHttpClient.make(fast)
          const server = yield* ChaosServer.ChaosServer
          const before = yield* streamingNow
          const read = yield* scopedWithinBound(
            Effect.flatMap(client.get(`${server.url}${endlessTrickle(true)}`), (response) =>
              Effect.exit(Effect.timeout(response.text, "200 millis"))
            )
          )
          expect(read, `the call and its scope closed within ${releaseBound}`).toBeDefined()
          expect(
            read !== undefined && Exit.isFailure(read) && Cause.isFailType(read.cause) && read.cause.error._tag
          ).toBe("TimeoutException")
          yield* eventually((stats) => stats.responses.streaming === before, "the trickle abandoned")
        }).pipe(Effect.provide(transport))
      )

      // Item 3: the limit is far below the body, and the body far above what socket buffers hold.
      const maxBodyBytes = 64 * 1024
      const largeJsonBytes = 32 * 1024 * 1024
      for (const declareLength of [true, false]) {
        const body = declareLength ? "declaring its length" : "chunked"
        it.effect(`getJson stops at maxBodyBytes: a valid JSON body over it (${body}) is a DecodeError`, () =>
          Effect.gen(function* () {
            yield* freshServer
            const client = yield* ResilientHttpClient.make({ ...fast, maxBodyBytes })
            const before = yield* streamingNow
            const server = yield* ChaosServer.ChaosServer
            const path = "/api/chaos/large-json"
            const failure = yield* failureOf(
              client.getJson(`${server.url}${path}?bytes=${largeJsonBytes}&length=${declareLength}`, Schema.Unknown)
            )
            expect(failure).toMatchObject({
              _tag: "DecodeError",
              status: 200,
              attempt: 1,
              giveUpReason: "not-retryable"
            })
            const cause = failure?._tag === "DecodeError" ? failure.cause : undefined
            if (!HttpFailure.isBodyTooLarge(cause)) {
              return expect.fail(`expected a BodyTooLarge cause, got ${String(cause)}`)
            }
            expect(cause.limit).toBe(maxBodyBytes)
            expect(cause.declared).toBe(declareLength)
            if (declareLength) {
              expect(cause.seen).toBe(largeJsonBytes)
            } else {
              // Reading stops with the chunk that crosses the limit.
              expect(cause.seen).toBeGreaterThan(maxBodyBytes)
              expect(cause.seen).toBeLessThan(maxBodyBytes + 1024 * 1024)
            }
            expect(failure?.message).toContain(`limit of ${maxBodyBytes} bytes`)
            expect(yield* requestsTo(path)).toBe(1)
            // The connection was released, and the server stopped sending long before the body's end:
            // what it sent is the limit plus what the sockets buffer on the way.
            const stats = yield* eventually((stats) => stats.responses.streaming === before, "the large body abandoned")
            expect(stats.responses.bodyBytesStreamed).toBeLessThan(largeJsonBytes / 2)
          }).pipe(Effect.provide(transport))
        )
      }

      // Item 8: every attempt fails (transient statuses, then timeouts) under a live-clock time limit.
      it.effect('failed attempts log only the library\'s decisions at debug level, nothing "unhandled"', () =>
        Effect.gen(function* () {
          yield* freshServer
          const server = yield* ChaosServer.ChaosServer
          const lines: Array<string> = []
          const capturing = Logger.make(({ cause, message }) => {
            const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
            lines.push(Cause.isEmpty(cause) ? text : `${text} ${Cause.pretty(cause)}`)
          })
          // A short limit only where the server never answers: busy cores can take longer than
          // that to answer a 503.
          const client = yield* ResilientHttpClient.make(fast)
          const hanging = yield* ResilientHttpClient.make({ ...fast, attemptTimeout: "100 millis" })
          const statuses = yield* failureOf(client.get(`${server.url}/api/status/503?retryAfter=0`)).pipe(
            Effect.provide(Logger.replace(Logger.defaultLogger, capturing)),
            Logger.withMinimumLogLevel(LogLevel.Debug)
          )
          const timeouts = yield* failureOf(hanging.get(`${server.url}/api/chaos/hang`)).pipe(
            Effect.provide(Logger.replace(Logger.defaultLogger, capturing)),
            Logger.withMinimumLogLevel(LogLevel.Debug)
          )
          expect(statuses).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
          expect(timeouts).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 3 })
          expect(lines.filter((line) => /unhandled/i.test(line))).toEqual([])
          // The library's own lines are there, and nothing else: two retries and a give-up per call.
          expect(lines).toEqual(["retrying", "retrying", "giving up", "retrying", "retrying", "giving up"])
        }).pipe(Effect.provide(transport))
      )
    })
  }

  // Item 6: a failure that sending again cannot cure is sent once.
  it.effect("over fetch, a redirect loop is one attempt: ConnectionError Unrecoverable, fetch's 21 requests", () =>
    Effect.gen(function* () {
      yield* freshServer
      const server = yield* ChaosServer.ChaosServer
      const client = yield* ResilientHttpClient.make(fast)
      const failure = yield* failureOf(client.get(`${server.url}/api/chaos/redirect-loop`))
      expect(failure).toMatchObject({
        _tag: "ConnectionError",
        reason: "Unrecoverable",
        attempt: 1,
        giveUpReason: "not-retryable"
      })
      // fetch follows 20 redirects within the one attempt; three attempts would be 63 requests.
      expect(yield* requestsTo("/api/chaos/redirect-loop")).toBe(21)
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

  // The platform's `followRedirects` hands back the last 3xx when it runs out of redirects, so
  // over undici and node:http a loop ends as a permanent status, never as a transport failure.
  const maxRedirects = 5
  for (const [name, transport] of transports.filter(([name]) => name !== "fetch")) {
    it.effect(`over ${name} following redirects, a redirect loop is one attempt ending in the last 302`, () =>
      Effect.gen(function* () {
        yield* freshServer
        const server = yield* ChaosServer.ChaosServer
        const client = yield* ResilientHttpClient.make(fast)
        const failure = yield* failureOf(client.get(`${server.url}/api/chaos/redirect-loop`))
        expect(failure).toMatchObject({ _tag: "PermanentStatus", status: 302, attempt: 1 })
        expect(yield* requestsTo("/api/chaos/redirect-loop")).toBe(maxRedirects + 1)
      }).pipe(Effect.provide(adapted(transport, HttpClient.followRedirects(maxRedirects))))
    )
  }

  for (const [name, transport] of transports) {
    it.effect(`over ${name}, an unsupported protocol is sent once`, () =>
      Effect.gen(function* () {
        const sends = { count: 0 }
        const counting = adapted(
          transport,
          HttpClient.tapRequest(() =>
            Effect.sync(() => {
              sends.count++
            })
          )
        )
        const exit = yield* Effect.exit(
          Effect.scoped(
            Effect.flatMap(ResilientHttpClient.make(fast), (client) => client.get("ftp://127.0.0.1:1/resource"))
          )
        ).pipe(Effect.provide(counting))
        expect(sends.count).toBe(1)
        if (name === "node:http") {
          // node's Http.request throws for a protocol it does not serve, and the platform's client
          // does not catch it: the call dies with that error, which no retry policy ever sees.
          const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
          expect(defect).toMatchObject({ code: "ERR_INVALID_PROTOCOL" })
        } else {
          const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
          expect(failure).toMatchObject({ _tag: "ConnectionError", attempt: 1, giveUpReason: "not-retryable" })
          expect(["Unrecoverable", "InvalidRequest"]).toContain(failure?._tag === "ConnectionError" && failure.reason)
        }
      })
    )
  }
})
