/**
 * A client-side rate limit, `{ limit, window, burst }`, as a bucket in plain data (GCRA: the generic cell rate
 * algorithm, a token bucket of `burst` tokens): a call takes a token, or learns how long until one is there; a
 * server that says "nothing left until the reset" blocks the bucket until then. The state is two numbers, so a
 * memory table holds it per key and a store's script (Redis Lua) can keep it with the same arithmetic, written
 * down here to be ported:
 *
 * ```text
 * W = windowMillis (units per token)     C = burst * W (capacity: a full bucket, `burst` tokens)
 * t = floor(now)                         state = { units, updated }   fresh: { C, t }
 *
 * refill:  if t > updated then units = min(C, units + (t - updated) * limit); updated = t
 * take(maxWait):
 *   sendAt = max(t, updated + ceil(max(0, W - units) / limit))   -- when `units` has reached W
 *   wait   = sendAt - t
 *   if wait <= maxWait then units = units - W; granted after `wait`  -- units may go below 0: reserved
 *   else refused, state unchanged (but refilled); `wait` says how long
 * block(until): refill; units = min(units, 0); updated = max(updated, until)   -- nothing refills before `until`
 * refund(left): refill; if units + left * limit >= 0 then units = min(C, units + W)
 *               -- a reserved token not used, `left` ms before its send: given back only when no call
 *               -- reserved a later one, which would otherwise share its time
 * ```
 *
 * Every number is a whole number while times are whole milliseconds, and at most `limit * W` (at most
 * 1,000,000 × 1 day ≈ 8.6 × 10^13), so exact in a double and in Lua's numbers. Refill is continuous: `limit`
 * tokens per `window`, one every `window / limit`.
 *
 * **The bound.** With `burst` 1 (the default) the k-th call after an idle bucket goes at `ceil(k × window /
 * limit)`: any span of one window (`[t, t + window)`) holds at most `limit` sends, which is what a server that
 * counts `limit` per window, fixed or sliding, lets through. A `burst` of `b` lets `b` go at once and then one
 * every `window / limit`: at most `limit + b - 1` in any window, `limit` per window in the long run.
 *
 * @example
 * ```ts
 * import { TokenBucket } from "@effect-http-resilience/core"
 *
 * const settings = { limit: 10, windowMillis: 1000, burst: 1 }
 * const state = TokenBucket.make(settings, 0)
 * const taken = TokenBucket.take(settings, state, 0, 500) // { _tag: "Granted", waitMillis: 0, state }
 * ```
 *
 * @since 0.2.0
 */
import * as Settings from "./Settings.js"

/**
 * A rate limit: `limit` calls per `windowMillis`, refilled continuously, at most `burst` at once.
 *
 * @since 0.2.0
 * @category models
 */
export interface Limit {
  /** Tokens per window; a whole number from 1 to 1,000,000. */
  readonly limit: number
  /** The window, in whole milliseconds, from 1 ms to 1 day. */
  readonly windowMillis: number
  /** The bucket's capacity: how many calls may go at once after it was idle; a whole number from 1 to `limit`. */
  readonly burst: number
}

/**
 * One key's bucket: `units` (a token is `windowMillis` units; below 0 when tokens are reserved ahead) as of
 * `updatedMillis`, which is in the future while the bucket is blocked.
 *
 * @since 0.2.0
 * @category models
 */
export interface State {
  readonly units: number
  readonly updatedMillis: number
}

/**
 * A take's answer: granted, to be sent after `waitMillis` (0: now), or refused because the wait is longer than
 * the caller would wait (`waitMillis` says how long it would be). `state` is the bucket after it.
 *
 * @since 0.2.0
 * @category models
 */
export type Take =
  | { readonly _tag: "Granted"; readonly waitMillis: number; readonly state: State }
  | { readonly _tag: "Refused"; readonly waitMillis: number; readonly state: State }

const capacityOf = (limit: Limit): number => limit.burst * limit.windowMillis

/**
 * A full bucket.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (limit: Limit, nowMillis: number): State => ({
  units: capacityOf(limit),
  updatedMillis: Math.floor(nowMillis)
})

const refilled = (limit: Limit, state: State, nowMillis: number): State => {
  const now = Math.floor(nowMillis)
  // A clock that went back, or a block still in force, adds nothing.
  if (!(now > state.updatedMillis)) return state
  return {
    units: Math.min(capacityOf(limit), state.units + (now - state.updatedMillis) * limit.limit),
    updatedMillis: now
  }
}

/**
 * Takes one token if it is there within `maxWaitMillis` (0 by default: only now): the token is then reserved and
 * the call is sent after `waitMillis`. Otherwise the bucket is left as it was and the answer says how long the
 * wait would be. Calls that wait are served in the order they took.
 *
 * @since 0.2.0
 * @category operations
 */
export const take = (limit: Limit, state: State, nowMillis: number, maxWaitMillis = 0): Take => {
  const now = Math.floor(nowMillis)
  const current = refilled(limit, state, now)
  const missing = Math.max(0, limit.windowMillis - current.units)
  const sendAt = Math.max(now, current.updatedMillis + Math.ceil(missing / limit.limit))
  const waitMillis = sendAt - now
  return waitMillis <= maxWaitMillis
    ? { _tag: "Granted", waitMillis, state: { ...current, units: current.units - limit.windowMillis } }
    : { _tag: "Refused", waitMillis, state: current }
}

/**
 * The server said nothing is left until `untilMillis` (a `remaining` of 0 with its reset): no token until then,
 * and the bucket refills from then on. Tokens reserved before stay reserved. Never shortens a block.
 *
 * @since 0.2.0
 * @category operations
 */
export const block = (limit: Limit, state: State, nowMillis: number, untilMillis: number): State => {
  const current = refilled(limit, state, nowMillis)
  return {
    units: Math.min(current.units, 0),
    updatedMillis: Math.max(current.updatedMillis, Math.floor(untilMillis))
  }
}

/**
 * Gives back a reserved token that was not used (its call was interrupted, or gave up, while it waited), due
 * `leftMillis` from now: only when no call reserved a later token, since that one would then be sent at the
 * same time as the next take's (kept: the bound holds, one send fewer).
 *
 * @since 0.2.0
 * @category operations
 */
export const refund = (limit: Limit, state: State, nowMillis: number, leftMillis = 0): State => {
  const current = refilled(limit, state, nowMillis)
  // The refill up to the send starts where a block ends, not now.
  const sendMillis = Math.floor(nowMillis) + Math.max(0, Math.floor(leftMillis))
  const unitsAtSend = current.units + Math.max(0, sendMillis - current.updatedMillis) * limit.limit
  return unitsAtSend < 0
    ? current
    : { ...current, units: Math.min(capacityOf(limit), current.units + limit.windowMillis) }
}

/**
 * Whole tokens there now: 0 while blocked or when tokens are reserved ahead.
 *
 * @since 0.2.0
 * @category operations
 */
export const available = (limit: Limit, state: State, nowMillis: number): number =>
  Math.max(0, Math.floor(refilled(limit, state, nowMillis).units / limit.windowMillis))

/**
 * Whether the bucket is full and unblocked, as a fresh one is, so that a table may drop it.
 *
 * @since 0.2.0
 * @category operations
 */
export const isFull = (limit: Limit, state: State, nowMillis: number): boolean => {
  const current = refilled(limit, state, nowMillis)
  return current.units >= capacityOf(limit) && current.updatedMillis <= Math.floor(nowMillis)
}

// ---------------------------------------------------------------------------------------------
// The `rateLimit` option

/**
 * Whose bucket a call takes from: its origin's (the default), one named by the user (an API key, shared by
 * every origin the policy calls), or one the user computes per request (the line keeps the function).
 *
 * @since 0.2.0
 * @category models
 */
export type Key =
  | { readonly _tag: "Origin" }
  | { readonly _tag: "Named"; readonly name: string }
  | { readonly _tag: "PerRequest" }

/**
 * The `rateLimit` option checked.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resolved extends Limit {
  readonly key: Key
}

/**
 * The bounds of the `rateLimit` option: `limit` from 1 to 1,000,000 a window, `window` from 1 ms to a day,
 * `burst` from 1 to `limit`, a named `key` of 1 to 256 characters.
 *
 * @since 0.2.0
 * @category constants
 */
export const bounds = { maxLimit: 1_000_000, maxWindowMillis: 86_400_000, maxKeyLength: 256 } as const

const limitOf = (value: unknown): Settings.Checked<number> =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= bounds.maxLimit
    ? Settings.valid(value)
    : Settings.invalid(
        "rateLimit.limit",
        `must be a whole number from 1 to ${bounds.maxLimit}: calls per window`,
        value
      )

const windowOf = <D>(codec: Settings.DurationCodec<D>, value: unknown): Settings.Checked<number> => {
  if (value === undefined)
    return Settings.invalid("rateLimit.window", "is required: a duration such as 1 second", value)
  return Settings.andThen(
    Settings.duration(codec, "rateLimit.window", value, { allowInfinite: false, allowZero: false }),
    (duration) => {
      const millis = codec.toMillis(duration)
      return Number.isInteger(millis) && millis <= bounds.maxWindowMillis
        ? Settings.valid(millis)
        : Settings.invalid("rateLimit.window", "must be whole milliseconds, at most 1 day", value)
    }
  )
}

// The default burst is 1: calls spaced `window / limit` apart, so that no span of one window holds more than
// `limit`. A larger burst is asked for by name, and bounded by the limit.
const burstOf = (value: unknown, limit: number): Settings.Checked<number> => {
  if (value === undefined) return Settings.valid(1)
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= limit
    ? Settings.valid(value)
    : Settings.invalid(
        "rateLimit.burst",
        `must be a whole number from 1 to the limit (${limit}): calls that may go at once`,
        value
      )
}

const keyOf = (value: unknown): Settings.Checked<Key> => {
  if (value === undefined) return Settings.valid({ _tag: "Origin" })
  if (typeof value === "function") return Settings.valid({ _tag: "PerRequest" })
  return typeof value === "string" && value.length >= 1 && value.length <= bounds.maxKeyLength
    ? Settings.valid({ _tag: "Named", name: value })
    : Settings.invalid(
        "rateLimit.key",
        `must be a name of 1 to ${bounds.maxKeyLength} characters or a function of the request`,
        value
      )
}

/**
 * Checks the `rateLimit` option, durations in the library's own type: `{ limit, window, burst?, key? }`.
 * `undefined` is off (the default). Without `burst`, 1: no span of one window holds more than `limit` calls.
 * Without `key`, each origin has its bucket. A bad value is named in full (`rateLimit.window`).
 *
 * @since 0.2.0
 * @category checks
 */
export const check = <D>(input: unknown, codec: Settings.DurationCodec<D>): Settings.Checked<Resolved | undefined> => {
  if (input === undefined) return Settings.valid(undefined)
  if (!Settings.isPlainObject(input)) {
    return Settings.invalid("rateLimit", "must be an options object such as { limit: 10, window: ... }", input)
  }
  return Settings.andThen(Settings.optionsRecord("rateLimit", input, ["limit", "window", "burst", "key"]), (given) =>
    Settings.andThen(
      Settings.all({ limit: limitOf(given.limit), windowMillis: windowOf(codec, given.window), key: keyOf(given.key) }),
      ({ limit, windowMillis, key }) =>
        Settings.andThen(
          burstOf(given.burst, limit),
          (burst): Settings.Checked<Resolved> => Settings.valid({ limit, windowMillis, burst, key })
        )
    )
  )
}

// ---------------------------------------------------------------------------------------------
// A table of buckets, one per key

// The most keys a `Buckets` table holds: past it, full buckets (as good as fresh) are dropped, then the one
// used longest ago.
const maxKeys = 10_000

/**
 * The buckets of one rate limit, one per key, in memory, at most 10,000 by default: a bucket that refilled whole
 * is forgotten first when room is needed (a fresh one would be the same), then the one used longest ago.
 *
 * @since 0.2.0
 * @category constructors
 */
export class Buckets {
  private readonly states = new Map<string, State>()

  constructor(
    readonly limit: Limit,
    private readonly capacity: number = maxKeys
  ) {}

  /** Takes a token of `key`'s bucket within `maxWaitMillis` (see {@link take}). */
  take(key: string, nowMillis: number, maxWaitMillis: number): Take {
    const taken = take(this.limit, this.stateOf(key, nowMillis), nowMillis, maxWaitMillis)
    if (taken._tag === "Granted") this.keep(key, taken.state, nowMillis)
    return taken
  }

  /** Gives back a token of `key`'s bucket that was taken and not used, due `leftMillis` from now (see {@link refund}). */
  refund(key: string, nowMillis: number, leftMillis = 0): void {
    const state = this.states.get(key)
    if (state !== undefined) this.states.set(key, refund(this.limit, state, nowMillis, leftMillis))
  }

  /** Keys held now, full buckets included until room is needed. */
  get size(): number {
    return this.states.size
  }

  private stateOf(key: string, nowMillis: number): State {
    return this.states.get(key) ?? make(this.limit, nowMillis)
  }

  private keep(key: string, state: State, nowMillis: number): void {
    // Most recently used last: the first key is the one used longest ago.
    this.states.delete(key)
    if (this.states.size >= this.capacity) this.evict(nowMillis)
    this.states.set(key, state)
  }

  private evict(nowMillis: number): void {
    for (const [key, state] of this.states) {
      if (isFull(this.limit, state, nowMillis)) this.states.delete(key)
    }
    const oldest = this.states.keys().next()
    if (this.states.size >= this.capacity && oldest.done !== true) this.states.delete(oldest.value)
  }
}
