// @generated from templates/src/internal/rateLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The client's rate limit: a token bucket per origin (or per the user's key) kept by the
// ResilienceStore, and blocks learnt from a server's rate-limit headers. Each attempt takes a
// token just before it is sent (retries and hedges included): at once, after a wait that ends
// within the call's deadline, or not at all (a `ConnectionError` "RateLimited", unsent). A call
// whose policy has neither option gets no gate, and pays nothing.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as RateLimitHeaders from "@effect-http-resilience/core/RateLimitHeaders"
import * as TokenBucket from "@effect-http-resilience/core/TokenBucket"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as HttpFailure from "../HttpFailure.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import { type Attempt, connectionError } from "./classify.js"
import { InvalidRetryPolicy } from "./invalidOption.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { monotonicMillis } from "./retryBudgetService.js"
import { remember } from "./settingsTable.js"

type Service = ResilienceStore.ResilienceStore.Service

type Operations = Pick<Service, "rateLimitTake" | "rateLimitRefund" | "rateLimitBlock">

const settingsKey = (limit: TokenBucket.Limit): string => `${limit.limit}/${limit.windowMillis}`

/**
 * The memory store's buckets, per settings and key, and its blocks, per key: both bounded
 * (10,000 keys each), a bucket refilled whole or a block that ended
 * forgotten. A block holds every attempt of its key until it ends; the bucket is asked as of then.
 *
 * @internal
 */
export const makeMemory = (): Operations => {
  const tables = new Map<string, TokenBucket.Buckets>()
  const blocks = new CoolDown.CoolDownTable()
  const bucketsOf = (limit: TokenBucket.Limit): TokenBucket.Buckets =>
    remember(tables, settingsKey(limit), () => new TokenBucket.Buckets(limit))
  const take = (key: string, limit: TokenBucket.Limit | undefined, maxWaitMillis: number, now: number) => {
    const blocked = blocks.left(key, now)
    if (blocked > maxWaitMillis) return { granted: false, waitMillis: blocked }
    if (limit === undefined) return { granted: true, waitMillis: blocked }
    const taken = bucketsOf(limit).take(key, now + blocked, maxWaitMillis - blocked)
    return { granted: taken._tag === "Granted", waitMillis: blocked + taken.waitMillis }
  }
  return {
    rateLimitTake: (key, limit, maxWaitMillis) =>
      Effect.clockWith((clock) => Effect.sync(() => take(key, limit, maxWaitMillis, monotonicMillis(clock)))),
    rateLimitRefund: (key, limit) =>
      Effect.clockWith((clock) => Effect.sync(() => bucketsOf(limit).refund(key, monotonicMillis(clock)))),
    rateLimitBlock: (key, millis) =>
      Effect.clockWith((clock) => Effect.sync(() => blocks.start(key, millis, monotonicMillis(clock))))
  }
}

/**
 * One call's rate limit: its store, its key and limit, its deadline, and what it learns from
 * responses.
 *
 * @internal
 */
export interface Gate {
  readonly store: Service
  readonly clock: Clock.Clock
  readonly origin: string
  readonly key: string
  readonly limit: TokenBucket.Limit | undefined
  readonly deadlineMillis: number
  /** What a key function returned that is no key: every attempt fails unsent. */
  readonly badKey: InvalidRetryPolicy | undefined
  /** Told every response's headers, when `rateLimitHeaders` is on. */
  readonly heard: ((headers: Headers.Headers) => Effect.Effect<void>) | undefined
}

const isKey = (value: unknown): value is string =>
  typeof value === "string" && value.length >= 1 && value.length <= TokenBucket.bounds.maxKeyLength

const keyOf = (
  settings: NonNullable<ResolvedPolicy["rateLimit"]> | undefined,
  request: HttpClientRequest.HttpClientRequest,
  origin: string
): unknown => {
  if (settings === undefined) return origin
  const key = settings.key
  if (key._tag === "Named") return key.name
  return key._tag === "PerRequest" && settings.keyOf !== undefined ? settings.keyOf(request) : origin
}

/**
 * The call's gate, or `undefined` when its policy has no rate limit and reads no headers.
 *
 * @internal
 */
export const gateFor = (
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  origin: string,
  store: Service,
  clock: Clock.Clock,
  deadlineMillis: number
): Gate | undefined => {
  const { rateLimit, rateLimitHeaders } = policy
  if (rateLimit === undefined && rateLimitHeaders === undefined) return undefined
  const key = keyOf(rateLimit, request, origin)
  const gate: Gate = {
    store,
    clock,
    origin,
    key: isKey(key) ? key : origin,
    limit: rateLimit,
    deadlineMillis,
    badKey: isKey(key)
      ? undefined
      : new InvalidRetryPolicy({
          option: "rateLimit.key",
          reason: `returned no key: it must return a name of 1 to ${TokenBucket.bounds.maxKeyLength} characters`,
          value: key
        }),
    heard: rateLimitHeaders === undefined ? undefined : (headers) => learn(gate, rateLimitHeaders, headers)
  }
  return gate
}

// A response that says nothing is left until its reset blocks the key until then, for every
// call sharing the store. A remaining count of 0 without a reset says nothing of when: the 429
// that may follow carries its Retry-After.
const learn = (
  gate: Gate,
  settings: NonNullable<ResolvedPolicy["rateLimitHeaders"]>,
  headers: Headers.Headers
): Effect.Effect<void> => {
  const announced = RateLimitHeaders.read(headers, gate.clock.currentTimeMillisUnsafe(), settings.extra)
  return announced !== undefined && announced.remaining === 0 && announced.resetMillis !== undefined
    ? gate.store.rateLimitBlock(gate.key, announced.resetMillis)
    : Effect.void
}

const counted = (metric: typeof metrics.rateLimitWaits, origin: string): Effect.Effect<void> =>
  Metric.update(Metric.withAttributes(metric, metrics.originAttributes(origin)), 1)

const refused = (gate: Gate, attempt: Attempt, waitMillis: number): Effect.Effect<never, HttpFailure.ConnectionError> =>
  Effect.andThen(
    counted(metrics.rateLimitRefusals, gate.origin),
    Effect.fail(
      connectionError(
        attempt,
        "RateLimited",
        new HttpFailure.RateLimitExceeded({
          key: gate.key,
          limit: gate.limit?.limit,
          windowMillis: gate.limit?.windowMillis,
          waitMillis
        })
      )
    )
  )

/**
 * Sends an attempt once its token is there: at once, after a wait that ends before the call's
 * deadline (its time limit cut to what is left then; a wait interrupted gives the token back), or
 * never: a `ConnectionError` "RateLimited". A hedge never waits: a copy is worth sending only now.
 *
 * @internal
 */
export const admit = <A, E, R>(
  gate: Gate,
  attempt: Attempt,
  limitMillis: number,
  hedge: boolean,
  send: (attempt: Attempt, limitMillis: number) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Effect.suspend(() => {
    if (gate.badKey !== undefined) return Effect.fail(connectionError(attempt, "InvalidRequest", gate.badKey))
    const now = monotonicMillis(gate.clock)
    const maxWaitMillis = hedge ? 0 : Math.max(0, gate.deadlineMillis - now - 1)
    const heard = gate.heard === undefined ? attempt : { ...attempt, heard: gate.heard }
    return Effect.flatMap(
      gate.store.rateLimitTake(gate.key, gate.limit, maxWaitMillis),
      (taken): Effect.Effect<A, E | HttpFailure.ConnectionError, R> => {
        if (!taken.granted) return refused(gate, attempt, taken.waitMillis)
        if (taken.waitMillis <= 0) return send(heard, limitMillis)
        const { limit } = gate
        const wait = Effect.sleep(Duration.millis(taken.waitMillis))
        return Effect.andThen(
          Effect.andThen(
            counted(metrics.rateLimitWaits, gate.origin),
            limit === undefined ? wait : Effect.onInterrupt(wait, () => gate.store.rateLimitRefund(gate.key, limit))
          ),
          Effect.suspend(() => send(heard, Math.min(limitMillis, gate.deadlineMillis - now - taken.waitMillis)))
        )
      }
    )
  })

/**
 * Whether a failure is the rate limit's refusal: it ends the call at once, never retried.
 *
 * @internal
 */
export const isRefusal = (failure: unknown): failure is HttpFailure.ConnectionError =>
  HttpFailure.isConnectionError(failure) && failure.reason === "RateLimited"
