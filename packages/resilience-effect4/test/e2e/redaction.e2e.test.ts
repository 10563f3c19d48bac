// @generated from templates/test/e2e/redaction.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * No secret of a URL appears anywhere the library writes (issue #32, item 2), over a real
 * transport (undici) against the chaos server: a call to `/api/status/503?api_key=SECRET-4711`
 * with credentials in its URL, hedged, retried, through a breaker that opens, gives up. Captured: every
 * span (a tracer of the test's own: the transport's spans, the caller's span and its
 * events), every log line (a logger of the test's own, at debug level), every decision
 * (`observeDecisions`: the `Hedge`, the `Retry` and the `GiveUp`), every breaker state change
 * (`onStateChange`), and the failure (message, `Cause.pretty`, JSON, node's inspect). And
 * (issue #40, item 4) the platform's error `layerHttpClient` hands back after a connection reset,
 * written every way inside a fiber and outside any, with the transport's span: no password, no
 * `Authorization` made from it, no `Proxy-Authorization` or `Cookie` of the request's own.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, References, Tracer } from "effect"
import { HttpClient } from "effect/http"
import * as Util from "node:util"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as Hedging from "../../src/Hedging.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

let server: StartedChaosServer
beforeAll(async () => {
  server = await startChaosServer()
})
afterAll(async () => {
  await server?.close()
})

const secrets = ["SECRET-4711", "PASSWORD-4711", Buffer.from("u:PASSWORD-4711").toString("base64")]

// Whatever a span was told: its name, attributes and events.
interface Written {
  readonly span: string
  readonly attributes: Record<string, unknown>
  readonly events: Array<unknown>
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined

// A tracer that records every span, and what each was told.
const recordSpans = Effect.gen(function* () {
  const nativeSpans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      nativeSpans.push(span)
      return span
    }
  })
  const written = (): Array<Written> =>
    nativeSpans.map((span) => ({
      span: span.name,
      attributes: Object.fromEntries(span.attributes),
      events: span.events.map(([event, , attributes]) => ({ event, ...attributes }))
    }))
  return yield* Effect.succeed({ tracer, written })
})

describe("Effect 4: no secret of the URL in what the library writes", () => {
  it.live("a hedged call to /status/503?api_key=SECRET-4711 with credentials that gives up at an open breaker", () =>
    Effect.gen(function* () {
      const decisions: Array<ResilientHttpClient.Decision> = []
      const changes: Array<CircuitBreaker.StateChange> = []
      const { tracer, written } = yield* recordSpans
      const logs: Array<unknown> = []
      const logger = Logger.make(({ fiber, message }) => {
        logs.push({ message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
      })

      const client = yield* ResilientHttpClient.make({
        maxAttempts: 3,
        backoff: RetryPolicy.constant(0),
        jitter: "none",
        retryBudget: "none",
        // Every copy waits 50 ms at the server: a hedge goes after 10 ms.
        hedging: Hedging.after("10 millis"),
        circuitBreaker: CircuitBreaker.perOrigin({
          tripPolicy: CircuitBreaker.consecutive(3),
          onStateChange: (change) => Effect.sync(() => changes.push(change))
        })
      })
      const url = `${server.url.replace("http://", "http://u:PASSWORD-4711@")}/api/status/503?api_key=SECRET-4711&retryAfter=0&delay=0.05`
      const exit = yield* Effect.exit(Effect.scoped(client.get(url))).pipe(
        Effect.withSpan("caller"),
        ResilientHttpClient.observeDecisions((decision) => Effect.sync(() => decisions.push(decision))),
        Effect.withTracer(tracer),
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "Debug"),
        Effect.provide(ResilienceStore.layerMemory())
      )
      // The observer runs in a fiber of its own: wait for the change that opened the circuit.
      while (!changes.some((change) => change.to === "Open")) yield* Effect.sleep("5 millis")

      const failure = failureOf(exit)
      const spans = written()
      // Three failures open the circuit: the third attempt's, or a hedge's before it.
      expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503 })
      expect(["circuit-open", "attempts-exhausted"]).toContain(failure?.giveUpReason)
      expect(decisions.map((decision) => decision._tag)).toEqual(expect.arrayContaining(["Hedge", "Retry", "GiveUp"]))
      // The transport's spans were written, redacted; the caller's span has the decisions' events.
      const transport = spans.filter((span) => span.span === "GET")
      expect(transport.length).toBeGreaterThanOrEqual(3)
      expect(transport[0]?.attributes["url.full"]).toBe(
        `${server.url}/api/status/503?api_key=REDACTED&retryAfter=0&delay=0.05`
      )
      expect(transport[0]?.attributes["url.query"]).toBe("api_key=REDACTED&retryAfter=0&delay=0.05")
      expect(spans.find((span) => span.span === "caller")?.events.length).toBeGreaterThanOrEqual(3)
      expect(logs.length).toBeGreaterThanOrEqual(3)

      const everything = [
        failure?.message,
        Cause.pretty(Exit.isFailure(exit) ? exit.cause : Cause.empty),
        JSON.stringify(failure),
        Util.inspect(failure, { depth: 10 }),
        JSON.stringify(spans),
        JSON.stringify(logs),
        JSON.stringify(decisions),
        Util.inspect(decisions, { depth: 10 }),
        decisions.map((decision) => (decision._tag === "Hedge" ? "" : decision.failure.message)).join("\n"),
        JSON.stringify(changes)
      ]
      for (const written of everything) {
        for (const secret of secrets) expect(written).not.toContain(secret)
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("layerHttpClient: a connection reset, with credentials in the URL and a proxy's and a cookie's", () =>
    Effect.gen(function* () {
      const { tracer, written } = yield* recordSpans
      const client = yield* Effect.provide(
        Effect.service(HttpClient.HttpClient),
        ResilientHttpClient.layerHttpClient({ maxAttempts: 1, retryBudget: "none" }).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        )
      )
      const url = `${server.url.replace("http://", "http://u:PASSWORD-4711@")}/api/chaos/reset?api_key=SECRET-4711`
      const headers = { "proxy-authorization": "Basic PROXY-4711", cookie: "sid=COOKIE-4711" }
      const exit = yield* Effect.exit(Effect.scoped(client.get(url, { headers }))).pipe(
        Effect.withSpan("caller"),
        // Effect 4's spans record no header unless asked.
        Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
        Effect.withTracer(tracer)
      )
      const error = failureOf(exit)
      expect(error).toMatchObject({ _tag: "HttpClientError", reason: { _tag: "TransportError" } })
      const transport = written().filter((span) => span.span === "GET")
      expect(transport.length).toBe(1)
      expect(transport[0]?.attributes).toMatchObject({
        "url.full": `${server.url}/api/chaos/reset?api_key=REDACTED`,
        "http.request.header.proxy-authorization": expect.stringMatching(/redacted/i),
        "http.request.header.cookie": expect.stringMatching(/redacted/i),
        "http.request.header.authorization": expect.stringMatching(/redacted/i)
      })
      const forms = (): Array<string> => [
        String(error),
        JSON.stringify(error),
        Util.inspect(error, { depth: 10 }),
        Cause.pretty(Exit.isFailure(exit) ? exit.cause : Cause.empty),
        JSON.stringify(written())
      ]
      // Inside the fiber, and outside any (an error logged once the program ended).
      const everything = [...forms(), ...(yield* Effect.promise(() => Promise.resolve().then(forms)))]
      for (const text of everything) {
        for (const secret of [...secrets, "PROXY-4711", "COOKIE-4711"]) expect(text).not.toContain(secret)
      }
    })
  )
})
