/**
 * The demo's scenarios: the seed programs' behaviours, run against the chaos server, each with
 * what it must show to count as behaving.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { HttpFailure, ResilientHttpClient, RetryPolicy } from "effect-http-resilience"
import * as PostOrder from "../PostOrder.js"
import * as TrackSearch from "../TrackSearch.js"
import { describeStatus } from "./Timeline.js"

/**
 * What the server and the clock saw of one scenario.
 *
 * @since 0.1.0
 * @category models
 */
export interface Observed {
  readonly requests: number
  readonly elapsedMillis: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Scenario {
  readonly title: string
  /** The request as a person would write it, for the heading. */
  readonly request: string
  /** The policy of the `ResilientHttpClient` in context when the scenario runs. */
  readonly policy: ResilientHttpClient.PolicyInput
  /** Succeeds with a one-line summary of what came back. */
  readonly run: (
    baseUrl: string
  ) => Effect.Effect<string, unknown, ResilientHttpClient.ResilientHttpClient | HttpClient.HttpClient>
  /** `undefined` when the scenario behaved as it must; otherwise what was wrong. */
  readonly check: (exit: Exit.Exit<string, unknown>, observed: Observed) => string | undefined
}

/**
 * A one-line account of how a call ended, and why it stopped: the failure's own message, without
 * the method and URL the heading already shows.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeFailure = (error: unknown): string => {
  if (!HttpFailure.isHttpFailure(error)) return String(error)
  const request = `${error.request.method} ${error.request.url}: `
  const message = error.message
  return `${error._tag}: ${message.startsWith(request) ? message.slice(request.length) : message}`
}

type Expected =
  | { readonly succeeds: true; readonly summary?: string }
  | {
      readonly tag: HttpFailure.HttpFailure["_tag"]
      readonly status?: number
      readonly reason?: HttpFailure.ConnectionFailureReason
      readonly attempt: number
      readonly giveUpReason?: RetryPolicy.GiveUpReason
    }

const expectation =
  (expected: Expected, requests: number, atLeastMillis = 0) =>
  (exit: Exit.Exit<string, unknown>, observed: Observed): string | undefined => {
    if (observed.requests !== requests) return `the server saw ${observed.requests} requests, expected ${requests}`
    if (observed.elapsedMillis < atLeastMillis) {
      return `took ${observed.elapsedMillis} ms, expected at least ${atLeastMillis} ms`
    }
    if ("succeeds" in expected) {
      if (Exit.isFailure(exit)) return "expected success"
      return expected.summary === undefined || exit.value === expected.summary
        ? undefined
        : `expected "${expected.summary}", got "${exit.value}"`
    }
    if (Exit.isSuccess(exit)) return `expected ${expected.tag}, got success`
    const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
    if (!HttpFailure.isHttpFailure(failure)) return "expected a typed failure"
    const matches =
      failure._tag === expected.tag &&
      failure.attempt === expected.attempt &&
      (expected.status === undefined || ("status" in failure && failure.status === expected.status)) &&
      (expected.reason === undefined || (failure._tag === "ConnectionError" && failure.reason === expected.reason)) &&
      (expected.giveUpReason === undefined || failure.giveUpReason === expected.giveUpReason)
    const because = expected.giveUpReason === undefined ? "" : ` (${expected.giveUpReason})`
    return matches
      ? undefined
      : `expected ${expected.tag} on attempt ${expected.attempt}${because}, got ${describeFailure(failure)}`
  }

const statusOf = (url: string) =>
  Effect.scoped(
    Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.get(url)).pipe(
      Effect.map((response) => {
        const attempt = response.headers["x-attempt"]
        return `${describeStatus(response.status)}${attempt === undefined ? "" : `, X-Attempt: ${attempt}`}`
      })
    )
  )

const placeOrder = (ordersUrl: string, idempotencyKey?: string) =>
  Effect.flatMap(PostOrder.make({ ordersUrl }), (orders) =>
    orders.place({ sku: "A-1", quantity: 1 }, { idempotencyKey })
  ).pipe(Effect.map(describeStatus))

const Product = Schema.Struct({ id: Schema.Number, name: Schema.String })

/**
 * Every scenario, in the order the demo runs them. `key` makes the recovering service's retry key
 * fresh for every run.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const all = (key: string): ReadonlyArray<Scenario> => [
  {
    title: "A lasting 503 asking for Retry-After: 5, capped at maxDelay 2 s",
    request: "GET /api/status/503",
    policy: { maxAttempts: 3, backoff: RetryPolicy.exponential("500 millis"), maxDelay: "2 seconds", jitter: "none" },
    run: (baseUrl) => statusOf(`${baseUrl}/api/status/503`),
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 3 }, 3, 3900)
  },
  {
    title: "A service that fails twice with 503 + Retry-After: 1, then recovers",
    request: `GET /api/chaos/retry/${key}?succeedAfter=2&failStatus=503`,
    policy: { maxAttempts: 3, maxDelay: "2 seconds" },
    run: (baseUrl) => statusOf(`${baseUrl}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503`),
    check: expectation({ succeeds: true, summary: "200 OK, X-Attempt: 3" }, 3, 1900)
  },
  {
    title: "A POST without an Idempotency-Key to a service that fails twice: not retried",
    request: `POST /api/chaos/retry/${key}-unkeyed?succeedAfter=2&retryAfter=none, no Idempotency-Key`,
    policy: PostOrder.orderPolicy,
    run: (baseUrl) => placeOrder(`${baseUrl}/api/chaos/retry/${key}-unkeyed?succeedAfter=2&retryAfter=none`),
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 1, giveUpReason: "not-idempotent" }, 1)
  },
  {
    title: "The same POST with an Idempotency-Key: retried until the service recovers",
    request: `POST /api/chaos/retry/${key}-keyed?succeedAfter=2&retryAfter=none, Idempotency-Key: ${key}-order`,
    policy: PostOrder.orderPolicy,
    run: (baseUrl) =>
      placeOrder(`${baseUrl}/api/chaos/retry/${key}-keyed?succeedAfter=2&retryAfter=none`, `${key}-order`),
    check: expectation({ succeeds: true, summary: "200 OK" }, 3)
  },
  {
    title: "A 400 is permanent: never retried",
    request: "GET /api/status/400",
    policy: { maxAttempts: 3 },
    run: (baseUrl) => statusOf(`${baseUrl}/api/status/400`),
    check: expectation({ tag: "PermanentStatus", status: 400, attempt: 1 }, 1)
  },
  {
    title: "A simulated 503 without Retry-After backs off exponentially",
    request: "GET /api/Products/1?error=503",
    policy: { maxAttempts: 3, backoff: RetryPolicy.exponential("500 millis"), jitter: "none" },
    run: (baseUrl) => statusOf(`${baseUrl}/api/Products/1?error=503`),
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 3 }, 3, 1400)
  },
  {
    title: "A slow endpoint that then fails: latency and failure together",
    request: "GET /api/Todos/1?delay=0.5&error=503",
    policy: { maxAttempts: 2, backoff: RetryPolicy.constant("300 millis"), jitter: "none" },
    run: (baseUrl) => statusOf(`${baseUrl}/api/Todos/1?delay=0.5&error=503`),
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 2 }, 2, 1250)
  },
  {
    title: "A connection reset before any response",
    request: "GET /api/chaos/reset",
    policy: { maxAttempts: 3, backoff: RetryPolicy.constant("200 millis"), jitter: "none" },
    run: (baseUrl) => statusOf(`${baseUrl}/api/chaos/reset`),
    check: expectation({ tag: "ConnectionError", reason: "Transport", attempt: 3 }, 3)
  },
  {
    title: "Invalid JSON in a 200 is a DecodeError: never retried",
    request: "GET /api/chaos/invalid-json, decoded with a Schema",
    policy: { maxAttempts: 3 },
    run: (baseUrl) =>
      Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
        client.getJson(`${baseUrl}/api/chaos/invalid-json`, Product)
      ).pipe(Effect.map((product) => `decoded ${product.name}`)),
    check: expectation({ tag: "DecodeError", attempt: 1 }, 1)
  },
  {
    title: "A track search through the EchoPlay-like TrackSearch service",
    request: 'TrackSearch.search("daft punk") -> GET /v1/search?q=daft+punk&type=track',
    policy: {},
    run: (baseUrl) =>
      Effect.flatMap(TrackSearch.TrackSearch, (search) => search.search("daft punk")).pipe(
        Effect.map((tracks) =>
          [
            `${tracks.length} tracks`,
            ...tracks.slice(0, 3).map((track) => `${track.name} - ${track.artists.map((a) => a.name).join(", ")}`)
          ].join("; ")
        ),
        Effect.provide(TrackSearch.layer({ baseUrl }))
      ),
    check: (exit, observed) =>
      expectation({ succeeds: true }, 1)(exit, observed) ??
      (Exit.isSuccess(exit) && exit.value.startsWith("0 tracks") ? "expected at least one track" : undefined)
  }
]
