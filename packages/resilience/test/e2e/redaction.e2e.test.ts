// @generated from templates/test/e2e/redaction.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * No secret of a URL appears anywhere the library writes (issue #32, item 2), over a real
 * transport (undici) against the chaos server: a call to `/api/status/503?api_key=SECRET-4711`
 * with credentials in its URL, hedged, retried, through a breaker that opens, gives up. Captured: every
 * span (a tracer of the test's own: the transport's spans, the caller's span and its
 * events), every log line (a logger of the test's own, at debug level), every decision
 * (`observeDecisions`: the `Hedge`, the `Retry` and the `GiveUp`), every breaker state change
 * (`onStateChange`), and the failure (message, `Cause.pretty`, JSON, node's inspect).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, LogLevel, Option, Tracer } from "effect"
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

// Every span of the native tracer, with what it was told.
const recordingTracer = (base: Tracer.Tracer, spans: Array<Written>): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = base.span(name, parent, context, links, startTime, kind, options)
      const written: Written = { span: name, attributes: {}, events: [] }
      spans.push(written)
      return {
        _tag: "Span",
        name,
        spanId: span.spanId,
        traceId: span.traceId,
        parent,
        context,
        get status() {
          return span.status
        },
        attributes: span.attributes,
        links: span.links,
        sampled: span.sampled,
        kind,
        end: (endTime, exit) => span.end(endTime, exit),
        attribute: (key, value) => {
          written.attributes[key] = value
          span.attribute(key, value)
        },
        event: (event, at, attributes) => {
          written.events.push({ event, ...attributes })
          span.event(event, at, attributes)
        },
        addLinks: (added) => span.addLinks(added)
      }
    },
    context: base.context
  })

describe("Effect 3: no secret of the URL in what the library writes", () => {
  it.live("a hedged call to /status/503?api_key=SECRET-4711 with credentials that gives up at an open breaker", () =>
    Effect.gen(function* () {
      const decisions: Array<ResilientHttpClient.Decision> = []
      const changes: Array<CircuitBreaker.StateChange> = []
      const spans: Array<Written> = []
      const tracer = recordingTracer(yield* Effect.tracer, spans)
      const logs: Array<unknown> = []
      const logger = Logger.make(({ annotations, message }) => {
        logs.push({ message, annotations: Object.fromEntries(annotations) })
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
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        Logger.withMinimumLogLevel(LogLevel.Debug),
        Effect.provide(ResilienceStore.layerMemory())
      )
      // The observer runs in a fiber of its own: wait for the change that opened the circuit.
      while (!changes.some((change) => change.to === "Open")) yield* Effect.sleep("5 millis")

      const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
      // Three failures open the circuit: the third attempt's, or a hedge's before it.
      expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503 })
      expect(["circuit-open", "attempts-exhausted"]).toContain(failure?.giveUpReason)
      expect(decisions.map((decision) => decision._tag)).toEqual(expect.arrayContaining(["Hedge", "Retry", "GiveUp"]))
      // The transport's spans were written, redacted; the caller's span has the decisions' events.
      const transport = spans.filter((span) => span.span === "http.client GET")
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
})
