/**
 * The demo on the Effect 3 line: each scenario's call made with `effect-http-resilience` over the
 * `HttpClient` in context, its decisions drawn on the timeline. The Effect 4 line's twin is in
 * `packages/examples-effect4`.
 *
 * @since 0.3.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { HttpFailure, ResilientHttpClient } from "effect-http-resilience"
import * as PostOrder from "../PostOrder.js"
import * as TrackSearch from "../TrackSearch.js"
import type * as Driver from "./Driver.js"
import { bodySummary } from "./Driver.js"
import { type Call, type Outcome, type PolicyOptions, statusSummary, summarizeTracks } from "./Scenarios.js"
import * as Timeline from "./Timeline.js"

/**
 */
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

/**
 * Draws every decision on `timeline`, timed by the fiber's `Clock` (`TestClock` in tests).
 *
 * @since 0.3.0
 * @category timeline
 */
export const observer =
  (timeline: Timeline.Timeline) =>
  (decision: ResilientHttpClient.Decision): Effect.Effect<void> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const view = decisionView(decision)
      if (view !== undefined) timeline.record(view, now)
    })

/**
 * @since 0.3.0
 * @category views
 */
export const outcomeOf = (exit: Exit.Exit<string, unknown>): Outcome => {
  if (Exit.isSuccess(exit)) return { _tag: "Success", value: exit.value }
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
  return HttpFailure.isHttpFailure(failure)
    ? { _tag: "Failure", failure: failureView(failure), text: failure.message }
    : { _tag: "Failure", failure: undefined, text: failure === undefined ? Cause.pretty(exit.cause) : String(failure) }
}

const statusOf = (url: string) =>
  Effect.scoped(
    Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.get(url)).pipe(
      Effect.map((response) => statusSummary(response.status, response.headers))
    )
  )

const Product = Schema.Struct({ id: Schema.Number, name: Schema.String })

/**
 * The call of a scenario, against the chaos server at `baseUrl`.
 */
const callOf = (
  call: Call,
  baseUrl: string
): Effect.Effect<string, unknown, ResilientHttpClient.ResilientHttpClient | HttpClient.HttpClient> => {
  switch (call._tag) {
    case "Status":
      return statusOf(`${baseUrl}${call.path}`)
    case "PlaceOrder":
      return Effect.flatMap(PostOrder.make({ ordersUrl: `${baseUrl}${call.path}` }), (orders) =>
        orders.place({ sku: "A-1", quantity: 1 }, { idempotencyKey: call.idempotencyKey })
      ).pipe(Effect.map(Timeline.describeStatus))
    case "Product":
      return Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
        client.getJson(`${baseUrl}${call.path}`, Product)
      ).pipe(Effect.map((product) => `decoded ${product.name}`))
    case "TrackSearch":
      return Effect.flatMap(TrackSearch.TrackSearch, (search) => search.search(call.query)).pipe(
        Effect.map(summarizeTracks),
        Effect.provide(TrackSearch.layer({ baseUrl }))
      )
  }
}

const getUrl = (url: string) =>
  Effect.scoped(
    Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.get(url)).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (body) => bodySummary(Timeline.describeStatus(response.status), body))
      )
    )
  )

/**
 * Runs `call` with a resilient client made from `policy` in context, its decisions on `timeline`.
 */
const withTimeline = <R>(
  policy: PolicyOptions | undefined,
  call: Effect.Effect<string, unknown, R | ResilientHttpClient.ResilientHttpClient>,
  timeline: Timeline.Timeline
): Effect.Effect<Outcome, never, Exclude<R, ResilientHttpClient.ResilientHttpClient> | HttpClient.HttpClient> =>
  call.pipe(
    ResilientHttpClient.observeDecisions(observer(timeline)),
    Effect.provide(ResilientHttpClient.layer(policy)),
    Effect.exit,
    Effect.map(outcomeOf)
  )

/**
 * The Effect 3 line for the demo's driver, over the `HttpClient` of `runtime`; `platform` says
 * where it runs (`Node v20.19.0`, or the browser and its client), for the output's first line.
 *
 * @since 0.3.0
 * @category running
 */
export const line = (runtime: Runtime.Runtime<HttpClient.HttpClient>, platform: string): Driver.Line => {
  const run = Runtime.runPromise(runtime)
  return {
    description: `effect-http-resilience on Effect 3 (${platform})`,
    runScenario: (scenario, baseUrl, timeline) =>
      run(withTimeline(scenario.policy, callOf(scenario.call, baseUrl), timeline)),
    get: (url, timeline) => run(withTimeline(undefined, getUrl(url), timeline))
  }
}

const Stats = Schema.Struct({ requests: Schema.Struct({ total: Schema.Number }) })

/**
 * The chaos server at `url` as a page of another origin reaches it: reset and counted through its
 * `/__reset` and `/__stats` routes, over the `HttpClient` of `runtime` (the browser page's
 * `FetchHttpClient`; `pnpm demo` has the server in its own process and asks it directly).
 *
 * @since 0.3.0
 * @category running
 */
export const chaosServer = (url: string, runtime: Runtime.Runtime<HttpClient.HttpClient>): Driver.Server => {
  const run = Runtime.runPromise(runtime)
  return {
    url,
    reset: () =>
      run(HttpClient.post(`${url}/__reset`).pipe(Effect.flatMap(HttpClientResponse.filterStatusOk), Effect.asVoid)),
    requests: () =>
      run(
        HttpClient.get(`${url}/__stats`).pipe(
          Effect.flatMap(HttpClientResponse.schemaBodyJson(Stats)),
          Effect.map((stats) => stats.requests.total)
        )
      )
  }
}
