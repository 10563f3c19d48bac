// The consumer test's type check (scripts/consumer-test.sh copies it into a fresh project that
// installed the packed tarballs with npm, then runs `tsc --noEmit` with NodeNext and with Bundler).
import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import {
  type Options,
  type ServeError,
  type StartedChaosServer,
  type Stats,
  startChaosServer
} from "@effect-http-resilience/chaos-server"
import * as ChaosServerModule from "@effect-http-resilience/chaos-server/ChaosServer"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import { type Duration, Effect, type Either, Layer, type Option, Schedule, Schema } from "effect"
import { type HttpFailure, ResilientHttpClient, RetryAfter, RetryPolicy } from "effect-http-resilience"
import * as HttpFailureModule from "effect-http-resilience/HttpFailure"
import * as ResilientHttpClientModule from "effect-http-resilience/ResilientHttpClient"
import * as RetryAfterModule from "effect-http-resilience/RetryAfter"
import * as RetryPolicyModule from "effect-http-resilience/RetryPolicy"
import { layerRedis, type RedisOptions } from "effect-http-resilience/redis"

// Subpaths and root namespaces are the same modules.
const sameParse: typeof RetryAfter.parse = RetryAfterModule.parse
const sameMake: typeof RetryPolicy.make = RetryPolicyModule.make
const sameLayer: typeof ResilientHttpClient.layer = ResilientHttpClientModule.layer
const sameFailure: typeof HttpFailure.ConnectionError = HttpFailureModule.ConnectionError
const sameChaos: typeof ChaosServer.layer = ChaosServerModule.layer
// The Redis store, from its own entry point.
const redisOptions: RedisOptions = { url: "redis://127.0.0.1:6379", prefix: "consumer" }
const fleetStore = layerRedis(redisOptions)
// The Effect 3 layer's models are the Effect-free root's.
const sameOptions: ChaosServer.Options = {} satisfies Options
const sameStats = (stats: ChaosServer.Stats): Stats => stats

const delay: Option.Option<Duration.Duration> = RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", Date.now())

const policy: RetryPolicy.RetryPolicy = RetryPolicy.make({
  maxAttempts: 3,
  backoff: RetryPolicy.linear("500 millis"),
  maxDelay: "2 seconds",
  jitter: "equal",
  retryAfter: "respect",
  whenRetryAfterExceedsMaxDelay: "give-up"
})
const validated: Either.Either<RetryPolicy.RetryPolicy, RetryPolicy.InvalidRetryPolicy> = RetryPolicy.validate({
  maxAttempts: 0
})
const schedule: Schedule.Schedule<RetryPolicy.RetryDecision, HttpFailure.HttpFailure> = RetryPolicy.toSchedule(policy)

const HttpLive: Layer.Layer<ResilientHttpClient.ResilientHttpClient, RetryPolicy.InvalidRetryPolicy> =
  ResilientHttpClient.layer(policy).pipe(Layer.provide(NodeHttpClient.layerUndici))
const FromSchedule = ResilientHttpClient.layer(Schedule.recurs(2)).pipe(Layer.provide(NodeHttpClient.layerUndici))

const Todo = Schema.Struct({ id: Schema.Number, title: Schema.String })

const retried: Effect.Effect<
  { readonly attempt: string | undefined; readonly todo: typeof Todo.Type },
  HttpFailure.HttpFailure | RetryPolicy.InvalidRetryPolicy | ServeError
> = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  const http = yield* ResilientHttpClient.ResilientHttpClient
  const response = yield* http.execute(HttpClientRequest.get(`${server.url}/api/chaos/retry/k?succeedAfter=2`))
  const todo = yield* http.getJson(`${server.url}/api/Todos/1`, Todo)
  return { attempt: response.headers["x-attempt"], todo }
}).pipe(Effect.scoped, Effect.provide(Layer.merge(ChaosServer.layer({ port: 0 }), HttpLive)))

const handled: Effect.Effect<string, RetryPolicy.InvalidRetryPolicy | ServeError> = retried.pipe(
  Effect.map(({ todo }) => todo.title),
  Effect.catchTags({
    ConnectionError: (e) => Effect.succeed(`${e.reason} after ${e.attempt}`),
    TransientStatus: (e) => Effect.succeed(`${e.status} after ${e.attempt}, retry after ${String(e.retryAfter)}`),
    PermanentStatus: (e) => Effect.succeed(`${e.status}: ${e.body}`),
    DecodeError: (e) => Effect.succeed(`status ${e.status}: ${String(e.cause)}`)
  })
)

const started: Promise<StartedChaosServer> = startChaosServer({ port: 0 })

// Internal modules are not part of the public types either.
// @ts-expect-error internal modules are blocked by the exports map
import("effect-http-resilience/internal/client.js")
// @ts-expect-error internal modules are blocked by the exports map
import("@effect-http-resilience/chaos-server/internal/app.js")

export {
  delay,
  fleetStore,
  FromSchedule,
  handled,
  sameChaos,
  sameOptions,
  sameStats,
  sameFailure,
  sameLayer,
  sameMake,
  sameParse,
  schedule,
  started,
  validated
}
