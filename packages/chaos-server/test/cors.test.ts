import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Http from "node:http"
import * as ChaosServer from "../src/ChaosServer.js"
import * as Cors from "../src/internal/cors.js"
import { startChaosServer } from "../src/startChaosServer.js"
import { parseArguments, runCli, urlOnceListening } from "./support/cli.js"
import { awaitStats, type ClientResponse, get, json, request, withServer } from "./support/client.js"

// Node's clients do not enforce CORS: these tests read the headers a browser would act on.

const origin = "http://127.0.0.1:5173"

const allMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

/** A browser's preflight for a request with `method` and the `requestHeaders` it would send. */
const preflight = (server: { readonly url: string }, path: string, method: string, requestHeaders?: string) =>
  request(`${server.url}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      ...(requestHeaders === undefined ? {} : { "access-control-request-headers": requestHeaders })
    }
  })

/** A page's GET, which a browser sends with its `Origin`. */
const getFromPage = (server: { readonly url: string }, path: string) => get(server, path, { headers: { origin } })

/** The names of `Access-Control-Expose-Headers`, in lower case; empty without the header. */
const exposedOf = (headers: Http.IncomingHttpHeaders): ReadonlyArray<string> =>
  (headers["access-control-expose-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0)

const corsHeaderNames = (headers: Http.IncomingHttpHeaders): ReadonlyArray<string> =>
  Object.keys(headers).filter((name) => name.startsWith("access-control-") || name === "vary")

/** What a page may read of an answer from another origin: its CORS headers, as a browser checks them. */
const expectReadableByPage = (response: { readonly headers: Http.IncomingHttpHeaders }) => {
  expect(response.headers["access-control-allow-origin"]).toBe(origin)
  expect(response.headers.vary).toBe("Origin")
}

/**
 * Response headers a page can read without `Access-Control-Expose-Headers` (the CORS-safelisted ones), and those
 * it never reads (transport and CORS itself).
 */
const readableAnyway = new Set([
  "cache-control",
  "content-language",
  "content-length",
  "content-type",
  "expires",
  "last-modified",
  "pragma",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "date",
  "vary"
])

describe("CORS preflights", () => {
  it.live("are answered 204 by the CORS layer, reach no endpoint, and count only as preflights", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const answered = yield* preflight(server, "/api/chaos/retry/pay?succeedAfter=1", "GET", "traceparent, b3")
          expect(answered.status).toBe(204)
          expect(answered.body).toBe("")
          expect(answered.headers["access-control-allow-origin"]).toBe(origin)
          expect(answered.headers["access-control-allow-methods"]).toBe(allMethods)
          expect(answered.headers["access-control-allow-headers"]).toBe("traceparent, b3")
          expect(answered.headers["access-control-max-age"]).toBe("600")
          expect(answered.headers.vary).toBe("Origin, Access-Control-Request-Headers")
          expect(answered.headers["x-attempt"]).toBeUndefined()

          // The preflight of a POST that would place an order places none.
          const orderPreflight = yield* preflight(
            server,
            "/api/orders?succeedAfter=0",
            "POST",
            "content-type, idempotency-key"
          )
          expect(orderPreflight.status).toBe(204)

          const afterPreflights = yield* server.stats
          expect(afterPreflights.requests).toEqual({
            total: 0,
            preflights: 2,
            inFlight: 0,
            abandoned: 0,
            byPath: {},
            byRetryKey: {}
          })
          expect(afterPreflights.orders).toEqual({ placed: 0, byIdempotencyKey: {} })

          // The page's own requests are the first attempts.
          const first = yield* getFromPage(server, "/api/chaos/retry/pay?succeedAfter=1")
          expect([first.status, first.headers["x-attempt"]]).toEqual([503, "1"])
          const order = yield* request(`${server.url}/api/orders?succeedAfter=0`, {
            method: "POST",
            headers: { origin, "content-type": "application/json", "idempotency-key": "order-1" },
            body: JSON.stringify({ sku: "A-1" })
          })
          expect([order.status, order.headers["x-attempt"]]).toEqual([201, "1"])

          const stats = yield* server.stats
          expect(stats.requests).toMatchObject({ total: 2, preflights: 2, byRetryKey: { pay: 1 } })
          expect(stats.orders.placed).toBe(1)

          yield* server.reset
          expect((yield* server.stats).requests.preflights).toBe(0)
        }),
      { cors: true }
    )
  )

  it.live("with allowHeaders, answer the list alone: a browser then refuses the tracing headers", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const answered = yield* preflight(server, "/api/orders", "POST", "traceparent, b3, content-type")
          expect(answered.status).toBe(204)
          const allowed = (answered.headers["access-control-allow-headers"] ?? "").split(", ")
          // Given in any case, answered in lower case: browsers compare them case-insensitively.
          expect(allowed).toEqual(["content-type", "idempotency-key"])
          expect(allowed).not.toContain("traceparent")
          expect(allowed).not.toContain("b3")
        }),
      { cors: { allowHeaders: ["Content-Type", "Idempotency-Key"] } }
    )
  )

  it.live("under a namespace, are counted in the namespace's stats and leave its retry keys alone", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const namespace = yield* server.namespace()
          const answered = yield* preflight(namespace, "/api/chaos/retry/k?succeedAfter=0", "GET", "traceparent")
          expect(answered.status).toBe(204)
          expect(answered.headers["access-control-allow-headers"]).toBe("traceparent")
          expect((yield* namespace.stats).requests).toEqual({ total: 0, preflights: 1, abandoned: 0, byRetryKey: {} })

          const real = yield* getFromPage(namespace, "/api/chaos/retry/k?succeedAfter=0")
          expect(real.headers["x-attempt"]).toBe("1")
          expectReadableByPage(real)
          expect(exposedOf(real.headers)).toContain("x-attempt")

          expect((yield* namespace.stats).requests).toEqual({
            total: 1,
            preflights: 1,
            abandoned: 0,
            byRetryKey: { k: 1 }
          })
          expect((yield* server.stats).requests).toMatchObject({ total: 1, preflights: 1 })
          yield* namespace.reset
          expect((yield* namespace.stats).requests.preflights).toBe(0)
          // The server's count keeps them, as its total keeps the namespace's requests.
          expect((yield* server.stats).requests.preflights).toBe(1)
        }),
      { cors: true }
    )
  )

  it.live("to /__stats and /__reset are answered but not counted, like the requests themselves", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          expect((yield* preflight(server, "/__reset", "POST", "content-type")).status).toBe(204)
          const namespace = yield* server.namespace()
          expect((yield* preflight(namespace, "/__stats", "GET", "traceparent")).status).toBe(204)
          expect((yield* server.stats).requests.preflights).toBe(0)
        }),
      { cors: true }
    )
  )
})

describe("CORS headers on answers", () => {
  it.live("echo the page's Origin, and expose Retry-After and X-Attempt on a 429 and a retry key's 503", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const limited = yield* getFromPage(server, "/api/status/429")
          expect([limited.status, limited.headers["retry-after"]]).toEqual([429, "5"])
          expectReadableByPage(limited)
          expect(exposedOf(limited.headers)).toEqual(expect.arrayContaining(["retry-after", "x-attempt"]))

          const failing = yield* getFromPage(server, "/api/chaos/retry/k?succeedAfter=1")
          expect([failing.status, failing.headers["retry-after"], failing.headers["x-attempt"]]).toEqual([
            503,
            "1",
            "1"
          ])
          expectReadableByPage(failing)
          expect(exposedOf(failing.headers)).toEqual(
            expect.arrayContaining([
              "retry-after",
              "x-attempt",
              "x-chaos-overload",
              "content-encoding",
              "content-length",
              "ratelimit",
              "ratelimit-policy",
              "ratelimit-limit",
              "ratelimit-remaining",
              "ratelimit-reset",
              "x-ratelimit-limit",
              "x-ratelimit-remaining",
              "x-ratelimit-reset"
            ])
          )

          // Without an Origin (not a browser's request), any origin.
          const bare = yield* get(server, "/api/status/200")
          expect(bare.headers["access-control-allow-origin"]).toBe("*")
        }),
      { cors: true }
    )
  )

  it.live("expose every header the server sends that a page could not read otherwise", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const order = (key: string) =>
            request(`${server.url}/api/orders?succeedAfter=0`, {
              method: "POST",
              headers: { origin, "content-type": "application/json", "idempotency-key": key },
              body: "{}"
            })
          const responses: ReadonlyArray<ClientResponse> = [
            yield* getFromPage(server, "/api/status/429"),
            yield* getFromPage(server, "/api/status/503?retryAfterDate=5"),
            yield* getFromPage(server, "/api/chaos/retry/k?succeedAfter=1"),
            yield* getFromPage(server, "/api/chaos/retry/k?succeedAfter=1"),
            yield* order("placed"),
            yield* order("placed"),
            yield* getFromPage(server, "/api/status/200?error=500"),
            yield* getFromPage(server, "/api/chaos/redirect-loop"),
            yield* getFromPage(server, "/api/chaos/latency/k?fast=0"),
            yield* getFromPage(server, "/__reset"),
            yield* getFromPage(server, "/api/chaos/slow-body?chunks=2&interval=0&length=false"),
            yield* getFromPage(server, "/nowhere")
          ]
          const sent = new Set(responses.flatMap((response) => Object.keys(response.headers)))
          // The responses above do send the headers a page needs exposed, so the check below checks something.
          expect([...sent]).toEqual(
            expect.arrayContaining([
              "retry-after",
              "x-attempt",
              "x-simulated",
              "x-chaos-delay",
              "idempotent-replayed",
              "location",
              "allow"
            ])
          )
          const exposed = exposedOf(responses[0]?.headers ?? {})
          const unexposed = [...sent].filter(
            (name) => !readableAnyway.has(name) && !name.startsWith("access-control-") && !exposed.includes(name)
          )
          expect(unexposed).toEqual([])
          for (const response of responses) expectReadableByPage(response)
        }),
      { cors: true }
    )
  )

  it.live("are on errors, 404s, 413s, delayed, streamed and truncated answers, and /__stats and /__reset", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const answers = {
            badRequest: yield* getFromPage(server, "/api/status/abc"),
            notFound: yield* getFromPage(server, "/nowhere"),
            simulated: yield* getFromPage(server, "/api/status/200?error=502"),
            delayed: yield* getFromPage(server, "/api/status/200?delay=0.05"),
            streamed: yield* getFromPage(server, "/api/chaos/large-json?bytes=100"),
            head: yield* request(`${server.url}/api/chaos/slow-body?chunks=1`, { method: "HEAD", headers: { origin } }),
            tooLarge: yield* request(`${server.url}/api/status/200`, {
              method: "POST",
              headers: { origin },
              body: "x".repeat(100)
            }),
            stats: yield* getFromPage(server, "/__stats"),
            reset: yield* request(`${server.url}/__reset`, { method: "POST", headers: { origin } })
          }
          expect(Object.values(answers).map((answer) => answer.status)).toEqual([
            400, 404, 502, 200, 200, 200, 413, 200, 204
          ])
          for (const answer of Object.values(answers)) {
            expectReadableByPage(answer)
            expect(exposedOf(answer.headers)).toContain("retry-after")
          }

          // A head written onto the socket by hand carries them too: the page sees the body break off.
          const truncated = yield* Effect.flip(getFromPage(server, "/api/chaos/truncate"))
          expect(truncated.stage).toBe("body")
          expectReadableByPage({ headers: truncated.headers ?? {} })
        }),
      { cors: true, maxBodyBytes: 10 }
    )
  )

  it.live("are on the 503 of a connection beyond maxConnections, whose preflight is still answered", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          yield* Effect.forkScoped(get(server, "/api/chaos/hang"))
          yield* awaitStats(server, (stats) => stats.requests.inFlight === 1, "the hanging request")

          // Each request below comes on a new connection, beyond the one served.
          const answered = yield* preflight(server, "/api/status/200", "GET", "traceparent")
          expect(answered.status).toBe(204)
          const overloaded = yield* getFromPage(server, "/api/status/200")
          expect([overloaded.status, overloaded.headers["x-chaos-overload"]]).toEqual([503, "max-connections"])
          expectReadableByPage(overloaded)
          expect(exposedOf(overloaded.headers)).toContain("x-chaos-overload")
        }),
      { cors: true, maxConnections: 1 }
    ).pipe(Effect.scoped)
  )

  it.live("hidden case: exposeHeaders false allows the origin but exposes nothing", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const limited = yield* getFromPage(server, "/api/status/429")
          expect([limited.status, limited.headers["retry-after"]]).toEqual([429, "5"])
          expectReadableByPage(limited)
          expect(limited.headers["access-control-expose-headers"]).toBeUndefined()
          // Preflights are answered as with the defaults.
          const answered = yield* preflight(server, "/api/status/429", "GET", "traceparent")
          expect(answered.headers["access-control-allow-headers"]).toBe("traceparent")
        }),
      { cors: { exposeHeaders: false } }
    )
  )
})

describe("CORS off (the default)", () => {
  it.live("sends no CORS header, and OPTIONS reaches the endpoint and counts as a request", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const limited = yield* getFromPage(server, "/api/status/429")
        expect(limited.status).toBe(429)
        expect(corsHeaderNames(limited.headers)).toEqual([])

        const options = yield* preflight(server, "/api/chaos/retry/k?succeedAfter=0", "GET", "traceparent")
        expect([options.status, options.headers["x-attempt"]]).toEqual([200, "1"])
        expect(corsHeaderNames(options.headers)).toEqual([])
        const ordersOptions = yield* preflight(server, "/api/orders", "POST")
        expect([ordersOptions.status, ordersOptions.headers.allow]).toEqual([405, "POST"])

        const stats = yield* server.stats
        expect(stats.requests).toMatchObject({ total: 3, preflights: 0, byRetryKey: { k: 1 } })
      })
    )
  )
})

describe("the cors option", () => {
  it.live("fails the start with a RangeError naming it when invalid", () =>
    Effect.gen(function* () {
      for (const allowHeaders of [["content type"], [""], ["content-type", "x:y"]]) {
        const error = yield* Effect.promise(() =>
          startChaosServer({ cors: { allowHeaders } }).then(
            (server) => server.close().then(() => "started"),
            (cause: unknown) => cause
          )
        )
        expect(error).toBeInstanceOf(RangeError)
        expect(String(error)).toContain("cors.allowHeaders")
      }
      // The layers pass it through: an invalid option is a defect there, as for the other options.
      const exit = yield* Effect.exit(Effect.scoped(ChaosServer.make({ cors: { allowHeaders: ["a b"] } })))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain("RangeError: cors.allowHeaders")
    })
  )

  // Values TypeScript refuses, as a JavaScript caller could still pass them.
  const invalid: ReadonlyArray<readonly [unknown, string]> = [
    ["yes", "cors must be a boolean or an object"],
    [1, "cors must be a boolean or an object"],
    [null, "cors must be a boolean or an object"],
    [["content-type"], "cors must be a boolean or an object"],
    [{ exposeHeaders: "no" }, "cors.exposeHeaders must be a boolean"],
    [{ allowHeaders: "all" }, 'cors.allowHeaders must be "any" or an array'],
    [{ allowHeaders: [42] }, "cors.allowHeaders must hold header names"],
    [{ exposeHeader: false }, 'cors has no option "exposeHeader"']
  ]
  for (const [value, message] of invalid) {
    it(`refuses ${JSON.stringify(value)}`, () => {
      expect(() => Cors.resolveCors(value)).toThrow(RangeError)
      expect(() => Cors.resolveCors(value)).toThrow(message)
    })
  }

  it("resolves true, objects and off to what the server acts on", () => {
    expect(Cors.resolveCors(undefined)).toBeUndefined()
    expect(Cors.resolveCors(false)).toBeUndefined()
    expect(Cors.resolveCors(true)).toEqual({ exposeHeaders: true, allowHeaders: "any" })
    expect(Cors.resolveCors({})).toEqual({ exposeHeaders: true, allowHeaders: "any" })
    expect(Cors.resolveCors({ exposeHeaders: false, allowHeaders: [] })).toEqual({
      exposeHeaders: false,
      allowHeaders: []
    })
  })
})

describe("the CLI's CORS flags", () => {
  it.effect("--cors, --cors-hide-headers and --cors-allow-headers turn CORS on", () =>
    Effect.gen(function* () {
      expect(yield* parseArguments(["--port", "0"])).toEqual({ _tag: "Serve", port: 0, cors: undefined })
      expect(yield* parseArguments(["--cors"])).toEqual({ _tag: "Serve", port: 8080, cors: {} })
      expect(yield* parseArguments(["--cors-hide-headers"])).toEqual({
        _tag: "Serve",
        port: 8080,
        cors: { exposeHeaders: false }
      })
      expect(yield* parseArguments(["--cors-allow-headers=content-type,idempotency-key"])).toEqual({
        _tag: "Serve",
        port: 8080,
        cors: { allowHeaders: ["content-type", "idempotency-key"] }
      })
      expect(
        yield* parseArguments(["--", "--port", "9000", "--cors-hide-headers", "--cors-allow-headers", "any"])
      ).toEqual({ _tag: "Serve", port: 9000, cors: { exposeHeaders: false } })
    })
  )

  for (const args of [
    ["--cors-allow-headers="],
    ["--cors-allow-headers=content-type,,b3"],
    ["--cors-allow-headers=content type"],
    ["--cors-allow-headers"],
    ["--cors=yes"],
    ["--cors-hide-headers=true"]
  ]) {
    it.effect(`refuses ${JSON.stringify(args)}`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(parseArguments(args))
        expect(error._tag).toBe("UsageError")
        expect(error.message).toMatch(/--cors/)
      })
    )
  }

  it.live("the CLI serves with CORS as its flags say, and refuses a bad value with the usage and exit code 2", () =>
    Effect.gen(function* () {
      const finished = yield* runCli(["--port", "0", "--cors-allow-headers=content-type"], (stdout, stop) =>
        Effect.gen(function* () {
          const url = yield* urlOnceListening(stdout)
          const answered = yield* preflight({ url }, "/api/orders", "POST", "traceparent, content-type")
          expect(answered.status).toBe(204)
          expect(answered.headers["access-control-allow-headers"]).toBe("content-type")
          const limited = yield* getFromPage({ url }, "/api/status/429")
          expectReadableByPage(limited)
          expect(exposedOf(limited.headers)).toContain("retry-after")
          expect(json(yield* get({ url }, "/__stats"))).toMatchObject({ requests: { total: 1, preflights: 1 } })
          stop()
        })
      )
      expect(finished.code).toBe(0)

      const refused = yield* runCli(["--cors-allow-headers=a,,b"], () => Effect.void)
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("--cors-allow-headers takes")
      expect(refused.stderr).toContain("usage: chaos-server")
      expect(refused.stdout).toBe("")
    })
  )
})
