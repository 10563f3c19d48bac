// The consumer test's type check of the Effect 4 line (scripts/consumer-test.sh copies it into a
// fresh project that installed the packed tarball, then runs `tsc --noEmit` with NodeNext).
import { type ServeError, startChaosServer } from "@effect-http-resilience/chaos-server"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect4"
import { NodeHttpClient } from "@effect/platform-node"
import { type Duration, Effect, Layer, type Option, type Result, Schedule, Schema, type Scope } from "effect"
import type { HttpClient } from "effect/http"
import {
  CircuitBreaker,
  type HttpFailure,
  ResilientHttpClient,
  RetryAfter,
  RetryBudget,
  RetryPolicy
} from "effect-http-resilience-effect4"
import * as RetryPolicyModule from "effect-http-resilience-effect4/RetryPolicy"
import { layerRedis } from "effect-http-resilience-effect4/redis"

const sameMake: typeof RetryPolicy.make = RetryPolicyModule.make
// The Redis store, from its own entry point: it needs Effect's `Redis` service.
const fleetStore = layerRedis({ prefix: "consumer" })
const delay: Option.Option<Duration.Duration> = RetryAfter.parse("120", Date.now())
const checked: Result.Result<RetryPolicy.RetryPolicy, RetryPolicy.InvalidRetryPolicy> = RetryPolicy.validate({
  maxAttempts: 3
})
const policy = RetryPolicy.make({
  backoff: RetryPolicy.exponential("250 millis"),
  retryBudget: RetryBudget.tokenBucket(),
  circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(5) })
})

// A validated policy or a Schedule cannot fail the layer; plain options can.
const fromPolicy: Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =
  ResilientHttpClient.layerHttpClient(policy)
const fromSchedule: Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient> =
  ResilientHttpClient.layer(Schedule.recurs(2))
const fromOptions: Layer.Layer<HttpClient.HttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient> =
  ResilientHttpClient.layerHttpClient({ maxAttempts: 4 })

const Todo = Schema.Struct({ id: Schema.Number, title: Schema.String })
const todo: Effect.Effect<
  { readonly id: number; readonly title: string },
  HttpFailure.HttpFailure,
  ResilientHttpClient.ResilientHttpClient
> = Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) =>
  client.getJson("http://127.0.0.1/todos/1", Todo)
)

const resilient = (client: HttpClient.HttpClient): HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope> =>
  ResilientHttpClient.withResilience(client, { maxAttempts: 2 })

const live = Layer.provide(fromOptions, NodeHttpClient.layerUndici)

// The chaos server's Effect 4 layer, and its Effect-free root, in an Effect 4 project.
const chaos: Layer.Layer<ChaosServer.ChaosServer, ServeError> = ChaosServer.layer({ port: 0 })
const placed: Effect.Effect<number, never, ChaosServer.ChaosServer> = Effect.flatMap(
  Effect.service(ChaosServer.ChaosServer),
  (server) => Effect.map(server.stats, (stats) => stats.orders.placed)
)
const started = startChaosServer()

export { chaos, checked, delay, fleetStore, fromPolicy, fromSchedule, live, placed, resilient, sameMake, started, todo }
