import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  type MetricData,
  PeriodicExportingMetricReader
} from "@opentelemetry/sdk-metrics"
import { Effect, Layer } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import { ResilientHttpClient, RetryBudget } from "effect-http-resilience"
import * as Metrics from "../src/Metrics.js"

// The reader exports only when flushed (the interval is far longer than the test), so every
// export the test reads is one it asked for.
const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })

const Live = Layer.mergeAll(
  ChaosServer.layer(),
  NodeHttpClient.layerUndici,
  Metrics.layer({ serviceName: "metrics-example-test", reader: () => reader })
)

interface Point {
  readonly attributes: Record<string, unknown>
  readonly value: unknown
}

/** Flushes the reader, and returns the last export's metrics of the library by name. */
const exported = Effect.gen(function* () {
  exporter.reset()
  yield* Effect.promise(() => reader.forceFlush())
  const exports = exporter.getMetrics()
  expect(exports).toHaveLength(1)
  const [resourceMetrics] = exports
  expect(resourceMetrics!.resource.attributes["service.name"]).toBe("metrics-example-test")
  const byName = new Map<string, MetricData>()
  for (const scope of resourceMetrics!.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name.startsWith("http.client.resilience.")) byName.set(metric.descriptor.name, metric)
    }
  }
  return byName
})

/** The metric's data points, attributes and values only, in a stable order. */
const pointsOf = (metrics: ReadonlyMap<string, MetricData>, name: string): ReadonlyArray<Point> => {
  const metric = metrics.get(name)
  if (metric === undefined) throw new Error(`${name} was not exported`)
  return sorted((metric.dataPoints as ReadonlyArray<Point>).map(({ attributes, value }) => ({ attributes, value })))
}

const attributesKey = (point: Point): string => JSON.stringify(Object.entries(point.attributes).sort())

/** Points in the order of their attributes, whatever the order of each one's keys. */
const sorted = (points: ReadonlyArray<Point>): ReadonlyArray<Point> =>
  [...points].sort((a, b) => attributesKey(a).localeCompare(attributesKey(b)))

layer(Live, { excludeTestServices: true })("the library's metrics exported through OpenTelemetry", (it) => {
  it.effect("a few calls against the chaos server: every metric, with its attributes and values", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const client = yield* ResilientHttpClient.make(Metrics.policy)
      const call = (path: string) => Effect.exit(Effect.scoped(client.get(`${server.url}${path}`)))
      const origin = { "url.scheme": "http", "server.address": "127.0.0.1", "server.port": String(server.port) }
      const get = { ...origin, "http.request.method": "GET" }
      const reason = (giveUpReason: string) => ({
        ...origin,
        "http.request.method": "GET",
        "http.client.resilience.give_up.reason": giveUpReason
      })

      // Two 503s, then a 200; a 404 (not retried); a lasting 503 (3 attempts).
      yield* call("/api/chaos/retry/metrics?succeedAfter=2&failStatus=503&retryAfter=none")
      yield* call("/api/Todos/0")
      yield* call("/api/status/503?retryAfter=none")
      // A client whose budget holds a single token: its first failure leaves no retry.
      const frugal = yield* ResilientHttpClient.make({ retryBudget: RetryBudget.tokenBucket({ maxTokens: 1 }) })
      yield* Effect.exit(Effect.scoped(frugal.get(`${server.url}/api/status/503?retryAfter=none`)))

      const requests = (yield* server.stats).requests.total
      expect(requests).toBe(8)
      const first = yield* exported
      for (const name of ["attempts", "retries", "give_ups", "retry_budget.refusals"]) {
        const metric = first.get(`http.client.resilience.${name}`)
        expect(metric?.dataPointType, name).toBe(DataPointType.SUM)
        expect(metric?.dataPointType === DataPointType.SUM && metric.isMonotonic, name).toBe(true)
        expect(metric?.descriptor.description, name).not.toBe("")
      }
      expect(pointsOf(first, "http.client.resilience.attempts")).toEqual([{ attributes: get, value: requests }])
      expect(pointsOf(first, "http.client.resilience.retries")).toEqual([{ attributes: get, value: 4 }])
      expect(pointsOf(first, "http.client.resilience.give_ups")).toEqual(
        sorted([
          { attributes: reason("not-retryable"), value: 1 },
          { attributes: reason("attempts-exhausted"), value: 1 },
          { attributes: reason("retry-budget-exhausted"), value: 1 }
        ])
      )
      expect(pointsOf(first, "http.client.resilience.retry_budget.refusals")).toEqual([
        { attributes: origin, value: 1 }
      ])
      // The breaker has seen a success after its last failure: closed, never changed.
      expect(pointsOf(first, "http.client.resilience.circuit_breaker.state")).toEqual([
        { attributes: { ...origin, "http.client.resilience.circuit_breaker.state": "closed" }, value: 1 }
      ])
      expect(first.has("http.client.resilience.circuit_breaker.transitions")).toBe(false)

      // Two more failures make 5 in a row: the circuit opens, the call's third attempt is
      // rejected, and so is the next call's first.
      yield* call("/api/status/503?retryAfter=none")
      yield* call("/api/status/503?retryAfter=none")
      expect((yield* server.stats).requests.total).toBe(requests + 2)

      const second = yield* exported
      const state = "http.client.resilience.circuit_breaker.state"
      expect(second.get(state)?.dataPointType).toBe(DataPointType.GAUGE)
      expect(pointsOf(second, state)).toEqual(
        sorted([
          { attributes: { ...origin, [state]: "closed" }, value: 0 },
          { attributes: { ...origin, [state]: "open" }, value: 1 }
        ])
      )
      expect(pointsOf(second, "http.client.resilience.circuit_breaker.transitions")).toEqual([
        {
          attributes: { ...origin, "http.client.resilience.circuit_breaker.previous_state": "closed", [state]: "open" },
          value: 1
        }
      ])
      expect(pointsOf(second, "http.client.resilience.circuit_breaker.refusals")).toEqual([
        { attributes: { ...origin, [state]: "open" }, value: 2 }
      ])
      // Cumulative: the first export's give-ups are still there, with the two circuit-open ones.
      expect(pointsOf(second, "http.client.resilience.give_ups")).toEqual(
        sorted([
          { attributes: reason("not-retryable"), value: 1 },
          { attributes: reason("attempts-exhausted"), value: 1 },
          { attributes: reason("retry-budget-exhausted"), value: 1 },
          { attributes: reason("circuit-open"), value: 2 }
        ])
      )
    })
  )
})
