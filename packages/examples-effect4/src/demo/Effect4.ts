/**
 * The demo on the Effect 4 line: each scenario's call made with `effect-http-resilience-effect4`
 * over Effect 4's `HttpClient` (`effect/http`), its decisions drawn on the timeline. The twin of
 * `packages/examples/src/demo/Effect3.ts`, which the scenarios, the timeline and the driver are
 * shared with (Effect-free).
 */
import { Cause, Clock, type Context, Duration, Effect, Exit, Option, Schema } from "effect"
import { HttpBody, HttpClient, HttpClientResponse } from "effect/http"
import type * as Driver from "@effect-http-resilience/examples/demo/Driver"
import { bodySummary } from "@effect-http-resilience/examples/demo/Driver"
import {
  type Call,
  type Outcome,
  orderPolicy,
  type PolicyOptions,
  statusSummary,
  summarizeTracks
} from "@effect-http-resilience/examples/demo/Scenarios"
import * as Timeline from "@effect-http-resilience/examples/demo/Timeline"
import { HttpFailure, ResilientHttpClient, RetryPolicy } from "effect-http-resilience-effect4"

const failureView = (failure: HttpFailure.HttpFailure): Timeline.FailureView =>
  Timeline.failureView(
    failure,
    failure._tag === "TransientStatus"
      ? Option.getOrUndefined(Option.map(failure.retryAfter, Duration.toMillis))
      : undefined
  )

// The timeline draws what follows a failed attempt; the demo's policies send no hedges.
const decisionView = (decision: ResilientHttpClient.Decision): Timeline.DecisionView | undefined =>
  decision._tag === "Hedge"
    ? undefined
    : decision._tag === "Retry"
      ? { ...decision, failure: failureView(decision.failure), delayMillis: Duration.toMillis(decision.delay) }
      : { ...decision, failure: failureView(decision.failure) }

const outcomeOf = (exit: Exit.Exit<string, unknown>): Outcome => {
  if (Exit.isSuccess(exit)) return { _tag: "Success", value: exit.value }
  const failure = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
  return HttpFailure.isHttpFailure(failure)
    ? { _tag: "Failure", failure: failureView(failure), text: failure.message }
    : { _tag: "Failure", failure: undefined, text: failure === undefined ? Cause.pretty(exit.cause) : String(failure) }
}

const statusOf = (url: string) =>
  Effect.scoped(
    Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) => client.get(url)).pipe(
      Effect.map((response) => statusSummary(response.status, response.headers))
    )
  )

// The PostOrder example's call: a POST made resilient with its policy, retried only with a key.
const placeOrder = (ordersUrl: string, idempotencyKey: string | undefined) =>
  Effect.flatMap(Effect.service(HttpClient.HttpClient), (http) =>
    http.pipe(ResilientHttpClient.withResilience(RetryPolicy.make(orderPolicy))).post(ordersUrl, {
      headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
      body: HttpBody.jsonUnsafe({ sku: "A-1", quantity: 1 })
    })
  ).pipe(
    Effect.map((response) => Timeline.describeStatus(response.status)),
    Effect.scoped
  )

const Product = Schema.Struct({ id: Schema.Number, name: Schema.String })

const SearchResponse = Schema.Struct({
  tracks: Schema.Struct({
    items: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        name: Schema.String,
        artists: Schema.Array(Schema.Struct({ name: Schema.String })),
        album: Schema.Struct({ name: Schema.String }),
        duration_ms: Schema.Number
      })
    ),
    total: Schema.Number
  })
})

// The TrackSearch example's search: a GET of /v1/search decoded with its schema, through the
// ResilientHttpClient in context.
const searchTracks = (baseUrl: string, query: string) =>
  Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (http) =>
    http.getJson(new URL("/v1/search", baseUrl), SearchResponse, { urlParams: { q: query, type: "track" } })
  ).pipe(Effect.map((response) => summarizeTracks(response.tracks.items)))

const callOf = (
  call: Call,
  baseUrl: string
): Effect.Effect<string, unknown, ResilientHttpClient.ResilientHttpClient | HttpClient.HttpClient> => {
  switch (call._tag) {
    case "Status":
      return statusOf(`${baseUrl}${call.path}`)
    case "PlaceOrder":
      return placeOrder(`${baseUrl}${call.path}`, call.idempotencyKey)
    case "Product":
      return Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) =>
        client.getJson(`${baseUrl}${call.path}`, Product)
      ).pipe(Effect.map((product) => `decoded ${product.name}`))
    case "TrackSearch":
      return searchTracks(baseUrl, call.query)
  }
}

const getUrl = (url: string) =>
  Effect.scoped(
    Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) => client.get(url)).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (body) => bodySummary(Timeline.describeStatus(response.status), body))
      )
    )
  )

const withTimeline = (
  policy: PolicyOptions | undefined,
  call: Effect.Effect<string, unknown, ResilientHttpClient.ResilientHttpClient | HttpClient.HttpClient>,
  timeline: Timeline.Timeline
): Effect.Effect<Outcome, never, HttpClient.HttpClient> =>
  call.pipe(
    ResilientHttpClient.observeDecisions((decision) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const view = decisionView(decision)
        if (view !== undefined) timeline.record(view, now)
      })
    ),
    Effect.provide(ResilientHttpClient.layer(policy)),
    Effect.exit,
    Effect.map(outcomeOf)
  )

/** The Effect 4 line for the demo's driver, over the `HttpClient` of `context`. */
export const line = (context: Context.Context<HttpClient.HttpClient>): Driver.Line => {
  const run = Effect.runPromiseWith(context)
  return {
    description: `effect-http-resilience-effect4 on Effect 4 (Node ${process.version})`,
    runScenario: (scenario, baseUrl, timeline) =>
      run(withTimeline(scenario.policy, callOf(scenario.call, baseUrl), timeline)),
    get: (url, timeline) => run(withTimeline(undefined, getUrl(url), timeline))
  }
}

const Stats = Schema.Struct({ requests: Schema.Struct({ total: Schema.Number }) })

/**
 * The chaos server at `url`, run by the Effect 3 process that started this one, reset and
 * counted through its `/__reset` and `/__stats` routes.
 */
export const chaosServer = (url: string, context: Context.Context<HttpClient.HttpClient>): Driver.Server => {
  const run = Effect.runPromiseWith(context)
  return {
    url,
    reset: () =>
      run(Effect.asVoid(Effect.flatMap(HttpClient.post(`${url}/__reset`), HttpClientResponse.filterStatusOk))),
    requests: () =>
      run(
        Effect.flatMap(HttpClient.get(`${url}/__stats`), HttpClientResponse.schemaBodyJson(Stats)).pipe(
          Effect.map((stats) => stats.requests.total)
        )
      )
  }
}
