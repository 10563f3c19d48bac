// @generated from templates/src/internal/rateLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The client's rate limit: a token bucket per origin (or per the user's key) kept by the
// ResilienceStore, and blocks and budgets learnt from a server's rate-limit headers. Each attempt takes a
// token just before it is sent (retries and hedges included): at once, after a wait that ends
// within the call's deadline, or not at all (a `ConnectionError` "RateLimited", unsent). A call
// whose policy has neither option gets no gate, and pays nothing.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as RateLimitBudget from "@effect-http-resilience/core/RateLimitBudget"
import * as RateLimitHeaders from "@effect-http-resilience/core/RateLimitHeaders"
import * as RateLimitLog from "@effect-http-resilience/core/RateLimitLog"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import * as TokenBucket from "@effect-http-resilience/core/TokenBucket"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpFailure from "../HttpFailure.js"
import type * as RateLimit from "../RateLimit.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type { Call, Send } from "./attemptLoop.js"
import { type Attempt, connectionError } from "./classify.js"
import { InvalidRetryPolicy } from "./invalidOption.js"
import * as line from "./line.js"
import * as metrics from "./metrics.js"
import { monotonicMillis } from "./retryBudgetService.js"
import { remember } from "./settingsTable.js"

type Operations = ResilienceStore.ResilienceStore.RateLimitOperations

const settingsKey = (limit: TokenBucket.Limit): string => `${limit.limit}/${limit.windowMillis}/${limit.burst}`

/**
 * The memory store's rate limit, and what the store on Redis asks of it: a take of this process's own
 * bucket at `atMillis` or later, by `latestMillis` (the send time the fleet's bucket gave, on the
 * monotonic clock), so that this process's bucket sees every attempt it sends, granted by the fleet
 * or by itself while Redis is away. It answers when (`atMillis`, or now when that has passed), and
 * whether that is the time asked, within the clocks' millisecond (`agreed`).
 *
 * @internal
 */
export interface MemoryOperations extends Operations {
  readonly takeOwnAt: (
    key: string,
    limit: TokenBucket.Limit,
    atMillis: number,
    latestMillis: number
  ) => Effect.Effect<{ readonly granted: boolean; readonly atMillis: number; readonly agreed: boolean }>
}

/**
 * The memory store's buckets, per settings and key, its blocks and its budgets, per key: all bounded
 * (10,000 keys each), a bucket refilled whole, a block that ended or a budget past its reset
 * forgotten first. A block, or a budget spent, holds every attempt of its key until it ends; the
 * bucket is asked as of then.
 *
 * @internal
 */
export const makeMemory = (): MemoryOperations => {
  const tables = new Map<string, TokenBucket.Buckets>()
  const blocks = new CoolDown.CoolDownTable()
  const budgets = new RateLimitBudget.Budgets()
  const bucketsOf = (limit: TokenBucket.Limit): TokenBucket.Buckets =>
    remember(tables, settingsKey(limit), () => new TokenBucket.Buckets(limit))
  // Counted once granted: a take refused is not sent.
  const granted = (
    key: string,
    counted: boolean,
    waitMillis: number,
    now: number
  ): ResilienceStore.ResilienceStore.RateLimitTake => ({
    granted: true,
    waitMillis,
    budget: counted ? budgets.take(key, now) : budgets.takeIfHeld(key, now)
  })
  const take = (
    key: string,
    limit: TokenBucket.Limit | undefined,
    maxWaitMillis: number,
    counted: boolean,
    now: number
  ) => {
    const blocked = Math.max(blocks.left(key, now), budgets.waitMillis(key, now))
    if (blocked > maxWaitMillis) return { granted: false, waitMillis: blocked }
    if (limit === undefined) return granted(key, counted, blocked, now)
    const taken = bucketsOf(limit).take(key, now + blocked, maxWaitMillis - blocked)
    const waitMillis = blocked + taken.waitMillis
    return taken._tag === "Granted" ? granted(key, counted, waitMillis, now) : { granted: false, waitMillis }
  }
  const takeOwnAt = (key: string, limit: TokenBucket.Limit, atMillis: number, latestMillis: number, now: number) => {
    const at = Math.max(now, atMillis)
    // A time the fleet gave is within the caller's latest on Redis's clock; here it may be past it
    // by the answer's way back: then only a token there at once agrees.
    const taken = bucketsOf(limit).take(key, at, Math.max(0, latestMillis - at))
    // Within a millisecond is agreement: Redis's clock and this one are read in whole milliseconds.
    return { granted: taken._tag === "Granted", atMillis: at + taken.waitMillis, agreed: taken.waitMillis <= 1 }
  }
  return {
    rateLimitTake: (key, limit, maxWaitMillis, counted = false) =>
      Effect.clockWith((clock) => Effect.sync(() => take(key, limit, maxWaitMillis, counted, monotonicMillis(clock)))),
    takeOwnAt: (key, limit, atMillis, latestMillis) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => takeOwnAt(key, limit, atMillis, latestMillis, monotonicMillis(clock)))
      ),
    rateLimitRefund: (key, limit, leftMillis) =>
      Effect.clockWith((clock) => Effect.sync(() => bucketsOf(limit).refund(key, monotonicMillis(clock), leftMillis))),
    rateLimitBlock: (key, millis) =>
      Effect.clockWith((clock) => Effect.sync(() => blocks.start(key, millis, monotonicMillis(clock)))),
    rateLimitEnded: (key, budget, ending) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const now = monotonicMillis(clock)
          budgets.ended(key, budget, endingAt(ending, now), now)
        })
      )
  }
}

const endingAt = (ending: ResilienceStore.ResilienceStore.RateLimitEnding, now: number): RateLimitBudget.Ending =>
  ending._tag === "Answered"
    ? {
        _tag: "Answered",
        remaining: ending.remaining,
        untilMillis: now + Math.min(ending.millis, CoolDown.maxMillis),
        sentAtMillis: now - ending.sentMillisAgo
      }
    : ending

/**
 * One call's rate limit: its store, its key and limit, its deadline, and what it learns from
 * responses.
 *
 * @internal
 */
interface Gate {
  readonly store: Operations
  readonly clock: Clock.Clock
  readonly origin: string
  /** The key as the store keeps it: an origin's and a named key's live apart (`storeKey`). */
  readonly key: string
  /** The key as the user gave it, or the origin: what a refusal names. */
  readonly shownKey: string
  readonly limit: TokenBucket.Limit | undefined
  readonly deadlineMillis: number
  /** What a key function returned that is no key: every attempt fails unsent. */
  readonly badKey: InvalidRetryPolicy | undefined
  /** The `rateLimitHeaders` option: every response's headers are read when it is on. */
  readonly headers: RateLimit.HeadersSettings | undefined
  /** The key before any quota a server named, and the request's route (that key, method and path). */
  readonly baseKey: string
  readonly route: string
  /** The quotas this process learnt of each route, when the call reads headers and has no token bucket. */
  readonly quotas: QuotaRoutes | undefined
  /** The key's sends counted until a window after their answers, with a token bucket. */
  readonly turns: Turns | undefined
}

// The most keys' logs, and routes whose quota is remembered, as the store's other tables (10,000).
const maxEntries = 10_000

/** A key's sends, counted until a window after their answers, and the attempts waiting for the oldest's answer. */
interface Turns {
  readonly log: RateLimitLog.RateLimitLog
  readonly waiting: Array<Deferred.Deferred<void>>
}

// This process's logs, per settings and key, at most 10,000: one whose sends were all answered a window ago
// says nothing and goes first, then the one used longest ago.
class TurnsTable {
  private readonly logs = new Map<string, Turns>()
  of(key: string, limit: TokenBucket.Limit, nowMillis: number): Turns {
    const id = `${settingsKey(limit)} ${key}`
    const known = this.logs.get(id)
    this.logs.delete(id)
    if (known === undefined && this.logs.size >= maxEntries) this.evict(nowMillis)
    const turns = known ?? {
      log: new RateLimitLog.RateLimitLog(limit.limit + limit.burst - 1, limit.windowMillis),
      waiting: []
    }
    this.logs.set(id, turns)
    return turns
  }
  private evict(nowMillis: number): void {
    for (const [id, turns] of this.logs)
      if (turns.log.isIdle(nowMillis) && turns.waiting.length === 0) this.logs.delete(id)
    const oldest = this.logs.keys().next()
    if (this.logs.size >= maxEntries && oldest.done !== true) this.logs.delete(oldest.value)
  }
}

// Which of its origin's quotas each route spends, as the servers named them (IETF `pk`, Discord's bucket, GitHub's
// resource): a route's attempts keep the budget of its quota, apart from the origin's other quotas. And each
// route's attempts sent before its quota was known, not answered yet: the server counts them in that quota.
class QuotaRoutes {
  private readonly routes = new Map<string, string>()
  private readonly unanswered = new Map<string, number>()
  get(route: string): string | undefined {
    return this.routes.get(route)
  }
  unansweredOf(route: string): number {
    return this.unanswered.get(route) ?? 0
  }
  sent(route: string, by: 1 | -1): void {
    const left = this.unansweredOf(route) + by
    if (left > 0) this.unanswered.set(route, left)
    else this.unanswered.delete(route)
  }
  set(route: string, quota: string): void {
    this.routes.delete(route)
    if (this.routes.size >= maxEntries) {
      const oldest = this.routes.keys().next()
      if (oldest.done !== true) this.routes.delete(oldest.value)
    }
    this.routes.set(route, quota)
  }
}

const quotaKey = (key: string, quota: string): string => `${key}#${quota}`

const routeOf = (key: string, request: HttpClientRequest.HttpClientRequest): string => {
  const query = request.url.indexOf("?")
  return `${key} ${request.method} ${query === -1 ? request.url : request.url.slice(0, query)}`
}

const isKey = (value: unknown): value is string =>
  typeof value === "string" && value.length >= 1 && value.length <= TokenBucket.bounds.maxKeyLength

const keyOf = (
  settings: RateLimit.Settings | undefined,
  request: HttpClientRequest.HttpClientRequest,
  origin: string
): unknown => {
  if (settings === undefined) return origin
  const key = settings.key
  if (key._tag === "Named") return key.name
  return key._tag === "PerRequest" && settings.keyOf !== undefined ? settings.keyOf(request) : origin
}

// Where a key's bucket, block and budget live in a store: an origin's apart from a key the user names,
// so that a key spelled like an origin (a header's value, say) never spends that origin's bucket.
const storeKey = (key: string, isOrigin: boolean): string => (isOrigin ? `origin ${key}` : `key ${key}`)

// The call's gate: its key worked out once (a key function is asked once per call), its store's
// rate-limit operations (this process's, kept in the store, unless the store shares them).
// A quota named by the server keys the budget only without a token bucket, whose key is the user's.
const gateOf = <A, E, R>(call: Call<A, E, R>): Gate => {
  const { policy, store } = call
  const limit = policy.rateLimit?.settings
  const origin = call.origin.key
  const key = keyOf(limit, call.request, origin)
  const isOrigin = limit === undefined || limit.key._tag === "Origin" || !isKey(key)
  const shownKey = isKey(key) ? key : origin
  const baseKey = storeKey(shownKey, isOrigin)
  const quotas =
    policy.rateLimitHeaders !== undefined && limit === undefined
      ? store.keep("rateLimitQuotas", () => new QuotaRoutes())
      : undefined
  const route = routeOf(shownKey, call.request)
  const quota = quotas?.get(route)
  return {
    store: store.rateLimit ?? store.keep("rateLimit", makeMemory),
    clock: call.clock,
    origin,
    baseKey,
    route,
    quotas,
    key: quota === undefined ? baseKey : quotaKey(baseKey, quota),
    shownKey,
    limit,
    deadlineMillis: call.machine.deadlineMillis,
    badKey: isKey(key)
      ? undefined
      : new InvalidRetryPolicy({
          option: "rateLimit.key",
          reason: `returned no key: it must return a name of 1 to ${TokenBucket.bounds.maxKeyLength} characters`,
          value: key
        }),
    headers: policy.rateLimitHeaders?.settings,
    turns:
      limit === undefined
        ? undefined
        : store.keep("rateLimitTurns", () => new TurnsTable()).of(baseKey, limit, monotonicMillis(call.clock))
  }
}

const gates = new WeakMap<object, Gate>()

// The rate limit and its headers are one stage: one token, one key, whichever option is set.
const wrap =
  (next: Send): Send =>
  (call, attempt, limitMillis, kind) => {
    let gate = gates.get(call)
    if (gate === undefined) {
      gate = gateOf(call)
      gates.set(call, gate)
    }
    return admit(gate, attempt, limitMillis, kind === "hedge", (admitted, limit) => next(call, admitted, limit, kind))
  }

/**
 * The rate-limit stage: each attempt below it takes a token of its key's bucket (and waits out
 * its key's block or spent budget) just before it is sent.
 *
 * @internal
 */
export const make = (settings: RateLimit.Settings): RateLimit.RateLimit => ({
  [StageTypeId]: "rateLimit",
  settings,
  wrap
})

/**
 * The rate-limit headers' stage: the same stage, reading every response's rate-limit headers.
 *
 * @internal
 */
export const fromHeaders = (settings: RateLimit.HeadersSettings): RateLimit.FromHeaders => ({
  [StageTypeId]: "rateLimitHeaders",
  settings,
  wrap
})

// What a response announces of the key's quota, when the call reads it and it says when it resets.
const announcement = (gate: Gate, headers: Headers.Headers): RateLimitHeaders.Announcement | undefined => {
  if (gate.headers === undefined) return undefined
  const announced = RateLimitHeaders.read(headers, gate.clock.currentTimeMillisUnsafe(), gate.headers.extra)
  return announced?.resetMillis === undefined ? undefined : announced
}

const isOtherQuota = (gate: Gate, announced: RateLimitHeaders.Announcement): boolean =>
  gate.quotas !== undefined && announced.quota !== undefined && quotaKey(gate.baseKey, announced.quota) !== gate.key

// A quota the server named for a route the gate did not know it of: remembered, and its budget set from this
// answer (as if one attempt of it ended so), less the route's other attempts still unanswered (sent before the
// quota was known, each counted in it by the server), so that the route's next attempts spend it and no other.
const learnQuota = (
  gate: Gate,
  announced: RateLimitHeaders.Announcement,
  sentAtMillis: number
): Effect.Effect<void> => {
  const { quota, resetMillis } = announced
  if (gate.quotas === undefined || quota === undefined || resetMillis === undefined) return Effect.void
  const key = quotaKey(gate.baseKey, quota)
  if (key === gate.key) return Effect.void
  gate.quotas.set(gate.route, quota)
  const seeded = Effect.flatMap(gate.store.rateLimitTake(key, undefined, 0, true), (taken) =>
    taken.budget === undefined
      ? Effect.void
      : gate.store.rateLimitEnded(key, taken.budget, {
          _tag: "Answered",
          remaining: Math.max(0, announced.remaining - (gate.quotas?.unansweredOf(gate.route) ?? 0)),
          millis: resetMillis,
          sentMillisAgo: monotonicMillis(gate.clock) - sentAtMillis
        })
  )
  return announced.remaining === 0 ? Effect.andThen(gate.store.rateLimitBlock(key, resetMillis), seeded) : seeded
}

// A response that says nothing is left until its reset blocks the key until then, for every
// call sharing the store. Any remaining count it announces sets the key's budget: the calls in
// flight spend it, and the rest wait for the reset, so that none races past the block. Without a
// reset nothing is learnt: the 429 that may follow carries its Retry-After.
const learn = (
  gate: Gate,
  headers: Headers.Headers,
  budget: number | undefined,
  sentAtMillis: number
): Effect.Effect<void> => {
  const heard = announcement(gate, headers)
  const quota = heard === undefined ? Effect.void : learnQuota(gate, heard, sentAtMillis)
  // What another quota than the gate's says is that quota's alone: this key learns nothing of it.
  const announced = heard !== undefined && isOtherQuota(gate, heard) ? undefined : heard
  const ended =
    budget === undefined
      ? Effect.void
      : gate.store.rateLimitEnded(
          gate.key,
          budget,
          announced?.resetMillis === undefined
            ? { _tag: "Silent" }
            : {
                _tag: "Answered",
                remaining: announced.remaining,
                millis: announced.resetMillis,
                sentMillisAgo: monotonicMillis(gate.clock) - sentAtMillis
              }
        )
  const learnt =
    announced?.remaining === 0 && announced.resetMillis !== undefined
      ? Effect.andThen(gate.store.rateLimitBlock(gate.key, announced.resetMillis), ended)
      : ended
  return Effect.andThen(learnt, quota)
}

// Sends the attempt, told its response's headers when the call learns from them or the attempt
// counts in the key's budget; an attempt that ends with no response stops counting there (spent,
// if it was sent: the server may have counted it).
const sendCounted = <A, E, R>(
  gate: Gate,
  attempt: Attempt,
  budget: number | undefined,
  limitMillis: number,
  send: (attempt: Attempt, limitMillis: number) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (budget === undefined && gate.headers === undefined) return Effect.suspend(() => send(attempt, limitMillis))
  // An attempt of a route whose quota is not known yet: counted until answered, for the quota its answer may name.
  const unknownQuota = gate.key === gate.baseKey ? gate.quotas : undefined
  let answered = false
  let sent = false
  let sentAtMillis = 0
  const told: Attempt = {
    ...attempt,
    heard: (headers) =>
      Effect.suspend(() => {
        if (sent && !answered) unknownQuota?.sent(gate.route, -1)
        answered = true
        return learn(gate, headers, budget, sentAtMillis)
      })
  }
  const exchange = Effect.suspend(() => {
    sent = true
    sentAtMillis = monotonicMillis(gate.clock)
    unknownQuota?.sent(gate.route, 1)
    return send(told, limitMillis)
  })
  if (budget === undefined && unknownQuota === undefined) return exchange
  return Effect.onExit(exchange, () => {
    if (answered) return Effect.void
    if (sent) unknownQuota?.sent(gate.route, -1)
    return budget === undefined
      ? Effect.void
      : gate.store.rateLimitEnded(gate.key, budget, { _tag: "Unanswered", sent })
  })
}

const tally = (metric: typeof metrics.rateLimitWaits, origin: string): Effect.Effect<void> =>
  line.update(metric, 1, metrics.originAttributes(origin))

const refused = (gate: Gate, attempt: Attempt, waitMillis: number): Effect.Effect<never, HttpFailure.ConnectionError> =>
  Effect.andThen(
    tally(metrics.rateLimitRefusals, gate.origin),
    Effect.fail(
      connectionError(
        attempt,
        "RateLimited",
        new HttpFailure.RateLimitExceeded({
          key: gate.shownKey,
          limit: gate.limit?.limit,
          windowMillis: gate.limit?.windowMillis,
          waitMillis
        })
      )
    )
  )

// The attempt's send counted in its key's log from now until its answer (its headers heard), or its end.
const counted = <A, E, R>(
  gate: Gate,
  turns: Turns,
  attempt: Attempt,
  go: (attempt: Attempt) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const sent = turns.log.sent()
  const ended = Effect.suspend(() => {
    turns.log.ended(sent, monotonicMillis(gate.clock))
    const woken = turns.waiting.splice(0)
    return Effect.forEach(woken, (waiter) => Deferred.succeed(waiter, undefined), { discard: true })
  })
  const { heard } = attempt
  const told: Attempt = {
    ...attempt,
    heard: (headers) => (heard === undefined ? ended : Effect.andThen(ended, heard(headers)))
  }
  return Effect.ensuring(go(told), ended)
}

// An attempt whose token is there goes when its key's log has a place: when the send a window's
// worth of sends back was answered a window ago. It waits for that within the call's deadline
// (a hedge does not wait), its time limit cut to what is left; past it, it is refused unsent.
const inTurn = <A, E, R>(
  gate: Gate,
  attempt: Attempt,
  limitMillis: number,
  hedge: boolean,
  go: (attempt: Attempt, limitMillis: number) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> => {
  const { turns } = gate
  if (turns === undefined) return go(attempt, limitMillis)
  return Effect.suspend(() => {
    const now = monotonicMillis(gate.clock)
    const at = turns.log.nextAt(now)
    if (at === now) return counted(gate, turns, attempt, (told) => go(told, limitMillis))
    const maxWaitMillis = hedge ? 0 : gate.deadlineMillis - now - 1
    const waitMillis = at === undefined ? maxWaitMillis : at - now
    if (waitMillis > maxWaitMillis || maxWaitMillis <= 0) return refused(gate, attempt, waitMillis)
    const again = (awake: number) =>
      inTurn(gate, attempt, Math.min(limitMillis, gate.deadlineMillis - awake), hedge, go)
    const woken =
      at === undefined
        ? Effect.flatMap(Deferred.make<void>(), (waiter) => {
            turns.waiting.push(waiter)
            return Effect.timeoutOption(Deferred.await(waiter), Duration.millis(waitMillis))
          })
        : Effect.sleep(Duration.millis(waitMillis))
    return Effect.flatMap(woken, () => Effect.suspend(() => again(monotonicMillis(gate.clock))))
  })
}

/**
 * Sends an attempt once its token is there (and its key's block or spent budget is over, and its
 * key's log has a place: `inTurn`): at once,
 * after a wait that ends before the call's deadline (its time limit cut to what is left then; a
 * wait interrupted gives the token back; one counted in the budget asks it again when it wakes),
 * or never: a `ConnectionError` "RateLimited". A hedge never waits: a copy is worth sending only now.
 *
 * @internal
 */
const admit = <A, E, R>(
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
    const counted = gate.headers !== undefined
    return Effect.flatMap(
      gate.store.rateLimitTake(gate.key, gate.limit, maxWaitMillis, counted),
      (taken): Effect.Effect<A, E | HttpFailure.ConnectionError, R> => {
        if (!taken.granted) return refused(gate, attempt, taken.waitMillis)
        if (taken.waitMillis <= 0)
          return inTurn(gate, attempt, limitMillis, hedge, (ready, left) =>
            sendCounted(gate, ready, taken.budget, left, send)
          )
        const { budget } = taken
        const { limit } = gate
        const unsent =
          budget === undefined
            ? Effect.void
            : gate.store.rateLimitEnded(gate.key, budget, { _tag: "Unanswered", sent: false })
        const sendAtMillis = now + taken.waitMillis
        const wait = Effect.onInterrupt(Effect.sleep(Duration.millis(taken.waitMillis)), () =>
          Effect.andThen(
            limit === undefined
              ? Effect.void
              : gate.store.rateLimitRefund(gate.key, limit, Math.max(0, sendAtMillis - monotonicMillis(gate.clock))),
            unsent
          )
        )
        const leftMillis = Math.min(limitMillis, gate.deadlineMillis - now - taken.waitMillis)
        // Awake, an attempt counted in the budget asks it again (its token, if any, is taken): an
        // answer heard meanwhile may have spent the window it waited for.
        const after: Effect.Effect<A, E | HttpFailure.ConnectionError, R> =
          budget === undefined
            ? inTurn(gate, attempt, leftMillis, hedge, (ready, left) => sendCounted(gate, ready, undefined, left, send))
            : Effect.andThen(unsent, admit({ ...gate, limit: undefined }, attempt, leftMillis, hedge, send))
        return Effect.andThen(Effect.andThen(tally(metrics.rateLimitWaits, gate.origin), wait), after)
      }
    )
  })
