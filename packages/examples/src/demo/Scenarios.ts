/**
 * The demo's scenarios: the seed programs' behaviours, run against the chaos server, each with
 * what it must show to count as behaving.
 *
 * Effect-free: each scenario says which call to make, with which policy (plain options both
 * lines accept), and what must come of it; each Effect line makes the call its own way
 * (`demo/Effect3.ts` here, `packages/examples-effect4` for Effect 4).
 *
 * @since 0.1.0
 */
import type { FailureMessage } from "@effect-http-resilience/core"
import { describeStatus, type FailureView } from "./Timeline.js"

/**
 * What the server and the clock saw of one scenario.
 *
 * @since 0.1.0
 * @category models
 */
export interface Observed {
  readonly requests: number
  readonly elapsedMillis: number
  /** Whether the transport resends on its own what failed on a reused connection (see `Driver.Line`). */
  readonly transportResends: boolean
}

/**
 * How a scenario's call ended: its one-line summary, or its failure (`failure` when it is an
 * `HttpFailure`; `text` says what it was either way).
 *
 * @since 0.3.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Success"; readonly value: string }
  | { readonly _tag: "Failure"; readonly failure: FailureView | undefined; readonly text: string }

type Millis = `${number} millis`

/**
 * Retry policy options as both lines' `RetryPolicy.Options` take them (plain data).
 *
 * @since 0.3.0
 * @category models
 */
export interface PolicyOptions {
  readonly maxAttempts?: number
  readonly backoff?:
    | { readonly _tag: "Exponential"; readonly base: Millis; readonly factor: number }
    | { readonly _tag: "Constant"; readonly base: Millis }
    | { readonly _tag: "Linear"; readonly base: Millis }
  readonly maxDelay?: `${number} seconds`
  readonly jitter?: "none" | "full" | "equal" | "decorrelated"
}

const exponential = (base: Millis) => ({ _tag: "Exponential", base, factor: 2 }) as const
const constant = (base: Millis) => ({ _tag: "Constant", base }) as const

/**
 * The call a scenario makes, through the `ResilientHttpClient` in context (`Status`, `Product`),
 * the `PostOrder` example (`PlaceOrder`) or the `TrackSearch` example (`TrackSearch`).
 *
 * @since 0.3.0
 * @category models
 */
export type Call =
  /** A GET; its summary is the status, and the `X-Attempt` header if any. */
  | { readonly _tag: "Status"; readonly path: string }
  /** `Orders.place` of one item, with an `Idempotency-Key` if given; its summary is the status. */
  | { readonly _tag: "PlaceOrder"; readonly path: string; readonly idempotencyKey?: string }
  /** `getJson` of a `{ id, name }` product; its summary is `decoded <name>`. */
  | { readonly _tag: "Product"; readonly path: string }
  /** `TrackSearch.search`; its summary is {@link summarizeTracks}. */
  | { readonly _tag: "TrackSearch"; readonly query: string }

/**
 * @since 0.1.0
 * @category models
 */
export interface Scenario {
  readonly title: string
  /** The request as a person would write it, for the heading. */
  readonly request: string
  /** The policy of the `ResilientHttpClient` in context when the scenario runs. */
  readonly policy: PolicyOptions
  readonly call: Call
  /** `undefined` when the scenario behaved as it must; otherwise what was wrong. */
  readonly check: (outcome: Outcome, observed: Observed) => string | undefined
}

/**
 * A one-line account of how a call ended, and why it stopped: the failure's own message, without
 * the method and URL the heading already shows.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeFailure = (failure: FailureView): string => {
  const request = `${failure.method} ${failure.url}: `
  const { message } = failure
  return `${failure._tag}: ${message.startsWith(request) ? message.slice(request.length) : message}`
}

/**
 * The summary of a `Status` call: the status, and the chaos server's `X-Attempt` header if any.
 *
 * @since 0.3.0
 * @category formatting
 */
export const statusSummary = (status: number, headers: Readonly<Record<string, string | undefined>>): string => {
  const attempt = headers["x-attempt"]
  return `${describeStatus(status)}${attempt === undefined ? "" : `, X-Attempt: ${attempt}`}`
}

/**
 * The summary of a track search: how many tracks, and the first three with their artists.
 *
 * @since 0.3.0
 * @category formatting
 */
export const summarizeTracks = (
  tracks: ReadonlyArray<{ readonly name: string; readonly artists: ReadonlyArray<{ readonly name: string }> }>
): string =>
  [
    `${tracks.length} tracks`,
    ...tracks.slice(0, 3).map((track) => `${track.name} - ${track.artists.map((a) => a.name).join(", ")}`)
  ].join("; ")

type Expected =
  | { readonly succeeds: true; readonly summary?: string }
  | {
      readonly tag: FailureView["_tag"]
      readonly status?: number
      readonly reason?: string
      readonly attempt: number
      readonly giveUpReason?: FailureMessage.GiveUpReason
    }

interface Expectations {
  /** The least the call may take: the waits it must make. */
  readonly atLeastMillis?: number
  /**
   * A request whose connection closes before any answer is one a browser may send again by itself
   * when that connection was a reused keep-alive one (Chromium does, as RFC 9110 §9.2.2 allows):
   * on such a transport the server may see more requests than the client made attempts.
   */
  readonly transportMayResend?: boolean
}

const expectation =
  (expected: Expected, requests: number, { atLeastMillis = 0, transportMayResend = false }: Expectations = {}) =>
  (outcome: Outcome, observed: Observed): string | undefined => {
    const resent = transportMayResend && observed.transportResends && observed.requests > requests
    if (observed.requests !== requests && !resent) {
      return `the server saw ${observed.requests} requests, expected ${requests}`
    }
    if (observed.elapsedMillis < atLeastMillis) {
      return `took ${observed.elapsedMillis} ms, expected at least ${atLeastMillis} ms`
    }
    if ("succeeds" in expected) {
      if (outcome._tag === "Failure") return "expected success"
      return expected.summary === undefined || outcome.value === expected.summary
        ? undefined
        : `expected "${expected.summary}", got "${outcome.value}"`
    }
    if (outcome._tag === "Success") return `expected ${expected.tag}, got success`
    const { failure } = outcome
    if (failure === undefined) return "expected a typed failure"
    const matches =
      failure._tag === expected.tag &&
      failure.attempt === expected.attempt &&
      (expected.status === undefined || failure.status === expected.status) &&
      (expected.reason === undefined || failure.reason === expected.reason) &&
      (expected.giveUpReason === undefined || failure.giveUpReason === expected.giveUpReason)
    const because = expected.giveUpReason === undefined ? "" : ` (${expected.giveUpReason})`
    return matches
      ? undefined
      : `expected ${expected.tag} on attempt ${expected.attempt}${because}, got ${describeFailure(failure)}`
  }

/**
 * The `PostOrder` example's policy (`PostOrder.orderPolicy`) as options.
 *
 * @since 0.3.0
 * @category policies
 */
export const orderPolicy: PolicyOptions = { maxAttempts: 3, backoff: exponential("200 millis") }

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
    policy: { maxAttempts: 3, backoff: exponential("500 millis"), maxDelay: "2 seconds", jitter: "none" },
    call: { _tag: "Status", path: "/api/status/503" },
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 3 }, 3, { atLeastMillis: 3900 })
  },
  {
    title: "A service that fails twice with 503 + Retry-After: 1, then recovers",
    request: `GET /api/chaos/retry/${key}?succeedAfter=2&failStatus=503`,
    policy: { maxAttempts: 3, maxDelay: "2 seconds" },
    call: { _tag: "Status", path: `/api/chaos/retry/${key}?succeedAfter=2&failStatus=503` },
    check: expectation({ succeeds: true, summary: "200 OK, X-Attempt: 3" }, 3, { atLeastMillis: 1900 })
  },
  {
    title: "A POST without an Idempotency-Key to a service that fails twice: not retried",
    request: `POST /api/chaos/retry/${key}-unkeyed?succeedAfter=2&retryAfter=none, no Idempotency-Key`,
    policy: orderPolicy,
    call: { _tag: "PlaceOrder", path: `/api/chaos/retry/${key}-unkeyed?succeedAfter=2&retryAfter=none` },
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 1, giveUpReason: "not-idempotent" }, 1)
  },
  {
    title: "The same POST with an Idempotency-Key: retried until the service recovers",
    request: `POST /api/chaos/retry/${key}-keyed?succeedAfter=2&retryAfter=none, Idempotency-Key: ${key}-order`,
    policy: orderPolicy,
    call: {
      _tag: "PlaceOrder",
      path: `/api/chaos/retry/${key}-keyed?succeedAfter=2&retryAfter=none`,
      idempotencyKey: `${key}-order`
    },
    check: expectation({ succeeds: true, summary: "200 OK" }, 3)
  },
  {
    title: "A 400 is permanent: never retried",
    request: "GET /api/status/400",
    policy: { maxAttempts: 3 },
    call: { _tag: "Status", path: "/api/status/400" },
    check: expectation({ tag: "PermanentStatus", status: 400, attempt: 1 }, 1)
  },
  {
    title: "A simulated 503 without Retry-After backs off exponentially",
    request: "GET /api/Products/1?error=503",
    policy: { maxAttempts: 3, backoff: exponential("500 millis"), jitter: "none" },
    call: { _tag: "Status", path: "/api/Products/1?error=503" },
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 3 }, 3, { atLeastMillis: 1400 })
  },
  {
    title: "A slow endpoint that then fails: latency and failure together",
    request: "GET /api/Todos/1?delay=0.5&error=503",
    policy: { maxAttempts: 2, backoff: constant("300 millis"), jitter: "none" },
    call: { _tag: "Status", path: "/api/Todos/1?delay=0.5&error=503" },
    check: expectation({ tag: "TransientStatus", status: 503, attempt: 2 }, 2, { atLeastMillis: 1250 })
  },
  {
    title: "A connection reset before any response",
    request: "GET /api/chaos/reset",
    policy: { maxAttempts: 3, backoff: constant("200 millis"), jitter: "none" },
    call: { _tag: "Status", path: "/api/chaos/reset" },
    check: expectation({ tag: "ConnectionError", reason: "Transport", attempt: 3 }, 3, { transportMayResend: true })
  },
  {
    title: "Invalid JSON in a 200 is a DecodeError: never retried",
    request: "GET /api/chaos/invalid-json, decoded with a Schema",
    policy: { maxAttempts: 3 },
    call: { _tag: "Product", path: "/api/chaos/invalid-json" },
    check: expectation({ tag: "DecodeError", attempt: 1 }, 1)
  },
  {
    title: "A track search through the EchoPlay-like TrackSearch service",
    request: 'TrackSearch.search("daft punk") -> GET /v1/search?q=daft+punk&type=track',
    policy: {},
    call: { _tag: "TrackSearch", query: "daft punk" },
    check: (outcome, observed) =>
      expectation({ succeeds: true }, 1)(outcome, observed) ??
      (outcome._tag === "Success" && outcome.value.startsWith("0 tracks") ? "expected at least one track" : undefined)
  }
]
