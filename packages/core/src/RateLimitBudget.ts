/**
 * The remaining count a server announces (`RateLimit`, `X-RateLimit-Remaining`), spent as a budget until its
 * reset, so that calls already in flight do not race past it (issue #34). Per rate-limit key, in plain data:
 *
 * ```text
 * taken                    attempts admitted through the gate so far; each take is numbered takenAt = taken + 1
 * heard(takenAt, R, until) the server's view after counting attempt takenAt: R left until `until`. Attempts
 *                          admitted after it are not yet counted, so the budget is spent once
 *                          taken >= takenAt + R. Kept as view = { ceiling: takenAt + R, viewAt: takenAt, until }
 *                          when takenAt >= view.viewAt (a fresher view), ignored otherwise
 * admitted                 while there is no view, now >= view.until (the view is forgotten), or taken < ceiling;
 *                          otherwise the wait is until - now
 * ```
 *
 * An attempt taken and never sent (interrupted, failed before the server saw it) is counted all the same: the
 * next view sets the ceiling from the server's own count again, so such an attempt only makes the client send
 * less until then. Responses are assumed to reach the server in the order taken; one that overtakes earlier
 * attempts can let the client send one more per attempt overtaken.
 *
 * @example
 * ```ts
 * import { RateLimitBudget } from "@effect-http-resilience/core"
 *
 * const budgets = new RateLimitBudget.Budgets()
 * const first = budgets.take("api", 0) // 1
 * budgets.take("api", 0) // 2
 * budgets.heard("api", first, 1, 1000, 0) // after attempt 1, one left until 1000: attempt 2 spent it
 * budgets.waitMillis("api", 10) // 990
 * ```
 *
 * @since 0.2.0
 */

/**
 * The freshest view a key's server gave: attempts may be admitted while fewer than `ceiling` were taken, until
 * `untilMillis` (monotonic milliseconds).
 *
 * @since 0.2.0
 * @category models
 */
export interface View {
  readonly ceiling: number
  /** The number of the attempt whose response gave the view. */
  readonly viewAt: number
  readonly untilMillis: number
}

/**
 * One key's count and view. `since`: the count it started from; a number at or below it belongs to an earlier
 * entry of the key (dropped from a table), whose responses are not this entry's to hear.
 *
 * @since 0.2.0
 * @category models
 */
export interface State {
  readonly taken: number
  readonly since: number
  readonly view: View | undefined
}

/**
 * A key's state before any attempt, its numbers starting after `base`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (base = 0): State => ({ taken: base, since: base, view: undefined })

const live = (state: State, nowMillis: number): View | undefined =>
  state.view !== undefined && nowMillis < state.view.untilMillis ? state.view : undefined

/**
 * How long until an attempt may be admitted: 0 now, otherwise until the view's reset.
 *
 * @since 0.2.0
 * @category operations
 */
export const waitMillis = (state: State, nowMillis: number): number => {
  const view = live(state, nowMillis)
  return view === undefined || state.taken < view.ceiling ? 0 : view.untilMillis - nowMillis
}

/**
 * Counts an admitted attempt: its number, and the state after it.
 *
 * @since 0.2.0
 * @category operations
 */
export const take = (state: State): { readonly takenAt: number; readonly state: State } => {
  const takenAt = state.taken + 1
  return { takenAt, state: { ...state, taken: takenAt } }
}

/**
 * The response of attempt `takenAt` announced `remaining` left until `untilMillis`: kept when it is a fresher view
 * than the one held (or the one held has ended), ignored when older, already over, or not this entry's.
 *
 * @since 0.2.0
 * @category operations
 */
export const heard = (
  state: State,
  takenAt: number,
  remaining: number,
  untilMillis: number,
  nowMillis: number
): State => {
  if (!(untilMillis > nowMillis) || takenAt <= state.since || takenAt > state.taken) return state
  const view = live(state, nowMillis)
  if (view !== undefined && takenAt < view.viewAt) return state
  return { ...state, view: { ceiling: takenAt + remaining, viewAt: takenAt, untilMillis } }
}

/**
 * Whether the state holds nothing a fresh one would not: no view in force, so that a table may drop it.
 *
 * @since 0.2.0
 * @category operations
 */
export const isIdle = (state: State, nowMillis: number): boolean => live(state, nowMillis) === undefined

// The most keys a `Budgets` table holds, as the token buckets' and blocks' tables.
const maxKeys = 10_000

/**
 * The budgets of many keys, in memory, at most 10,000 by default: past it, keys without a view in force go
 * first, then the one used longest ago. A key dropped and taken again numbers its attempts after every number
 * the table gave, so that a response to an attempt of the dropped entry is ignored.
 *
 * @since 0.2.0
 * @category constructors
 */
export class Budgets {
  private readonly states = new Map<string, State>()
  // The highest number given to any key: where a new entry starts.
  private issued = 0

  constructor(private readonly capacity: number = maxKeys) {}

  /** How long until `key` admits an attempt (see {@link waitMillis}); 0 for a key the table does not hold. */
  waitMillis(key: string, nowMillis: number): number {
    const state = this.states.get(key)
    return state === undefined ? 0 : waitMillis(state, nowMillis)
  }

  /** Counts an admitted attempt of `key`, holding the key from now on: its number. */
  take(key: string, nowMillis: number): number {
    const counted = take(this.states.get(key) ?? make(this.issued))
    this.issued = Math.max(this.issued, counted.takenAt)
    this.keep(key, counted.state, nowMillis)
    return counted.takenAt
  }

  /** Counts an attempt of `key` only when the table holds the key already; `undefined` otherwise. */
  takeIfHeld(key: string, nowMillis: number): number | undefined {
    return this.states.has(key) ? this.take(key, nowMillis) : undefined
  }

  /** What the response of `key`'s attempt `takenAt` announced (see {@link heard}). */
  heard(key: string, takenAt: number, remaining: number, untilMillis: number, nowMillis: number): void {
    const state = this.states.get(key)
    if (state !== undefined) this.states.set(key, heard(state, takenAt, remaining, untilMillis, nowMillis))
  }

  /** Keys held now. */
  get size(): number {
    return this.states.size
  }

  private keep(key: string, state: State, nowMillis: number): void {
    // Most recently used last: the first key is the one used longest ago.
    this.states.delete(key)
    if (this.states.size >= this.capacity) this.evict(nowMillis)
    this.states.set(key, state)
  }

  private evict(nowMillis: number): void {
    for (const [key, state] of this.states) {
      if (isIdle(state, nowMillis)) this.states.delete(key)
    }
    const oldest = this.states.keys().next()
    if (this.states.size >= this.capacity && oldest.done !== true) this.states.delete(oldest.value)
  }
}
