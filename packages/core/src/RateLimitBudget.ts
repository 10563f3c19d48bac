/**
 * The remaining count a server announces (`RateLimit`, `X-RateLimit-Remaining`), spent as a budget until its
 * reset, so that calls already in flight do not race past it (issue #34). Per rate-limit key, in plain data:
 *
 * ```text
 * inFlight   attempts admitted whose exchange has not ended
 * lost       attempts that ended with no answer (a timeout, a hedge that lost): the server may have
 *            counted them, in the window it was in then, so they stay spent until a view's reset has passed
 *            twice since (`lostBefore`: those lost before the last reset)
 * view       { remaining, until }: the lowest remaining heard since the view began, and the soonest reset
 * from       attempts sent before it belong to a window whose view is over: their answers are stale
 *
 * admitted   while there is no view, now >= view.until (the view is forgotten, and `from` becomes its until), or
 *            inFlight + lost + lostBefore < view.remaining; otherwise the wait is until - now
 * answered   remaining R, reset `until`, of an attempt sent at `sent`: inFlight - 1; when sent < from, lost + 1 (it
 *            may have reached the server in the next window); else the view becomes { min(R, view's),
 *            min(untils) }, or { R, until } when there was none
 * ```
 *
 * Why the lowest remaining and every attempt not answered: a server's count only grows within its window, so
 * the lowest remaining heard is its latest state; every attempt it counted since is one not yet answered. An
 * attempt is admitted only while those, and it, fit in that remaining: the server may take the requests in any
 * order (one connection faster than another), and none is refused once a view is known. In a new window the
 * server's remaining is higher again, so an old view only holds the client back until its reset, never lets it
 * send too much. The soonest reset heard, not the latest: each is the window's end rounded up (to whole seconds,
 * plus the answer's way back), so the soonest is the closest; a later one kept the last window's view in force
 * after the server's next window began, and the answers of that window, not lower, were not heard.
 *
 * @example
 * ```ts
 * import { RateLimitBudget } from "@effect-http-resilience/core"
 *
 * const budgets = new RateLimitBudget.Budgets()
 * const first = budgets.take("api", 0)
 * const second = budgets.take("api", 0)
 * budgets.ended("api", first, { _tag: "Answered", remaining: 1, untilMillis: 1000, sentAtMillis: 0 }, 0)
 * budgets.waitMillis("api", 10) // 990: the one left is the second's, still in flight
 * ```
 *
 * @since 0.2.0
 */

/**
 * What a key's server last said: `remaining` requests left until `untilMillis` (monotonic milliseconds).
 *
 * @since 0.2.0
 * @category models
 */
export interface View {
  readonly remaining: number
  readonly untilMillis: number
}

/**
 * One key's attempts in flight, those lost, and its view.
 *
 * @since 0.2.0
 * @category models
 */
export interface State {
  readonly inFlight: number
  readonly lost: number
  readonly lostBefore: number
  readonly view: View | undefined
  /** Attempts sent before then belong to a window whose view is over (monotonic milliseconds). */
  readonly fromMillis: number
}

/**
 * How an attempt's exchange ended: a response (and what it announced, when it did), or no response at all.
 * `sent: false`: it never left (interrupted while it waited), so the server cannot have counted it.
 *
 * @since 0.2.0
 * @category models
 */
export type Ending =
  | {
      readonly _tag: "Answered"
      readonly remaining: number
      readonly untilMillis: number
      readonly sentAtMillis: number
    }
  | { readonly _tag: "Silent" }
  | { readonly _tag: "Unanswered"; readonly sent: boolean }

/**
 * A key's state before any attempt.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): State => ({
  inFlight: 0,
  lost: 0,
  lostBefore: 0,
  view: undefined,
  fromMillis: Number.NEGATIVE_INFINITY
})

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
  return view === undefined || state.inFlight + state.lost + state.lostBefore < view.remaining
    ? 0
    : view.untilMillis - nowMillis
}

/**
 * Counts an admitted attempt.
 *
 * @since 0.2.0
 * @category operations
 */
export const take = (state: State): State => ({ ...state, inFlight: state.inFlight + 1 })

const learnt = (state: State, answer: Extract<Ending, { _tag: "Answered" }>, nowMillis: number): State => {
  const { remaining, untilMillis } = answer
  if (!(untilMillis > nowMillis)) return state
  const view = live(state, nowMillis)
  if (view === undefined) return { ...state, view: { remaining, untilMillis } }
  return {
    ...state,
    view: { remaining: Math.min(remaining, view.remaining), untilMillis: Math.min(untilMillis, view.untilMillis) }
  }
}

/**
 * An attempt's exchange ended: it leaves the attempts in flight, and teaches what its response announced.
 *
 * @since 0.2.0
 * @category operations
 */
export const ended = (state: State, ending: Ending, nowMillis: number): State => {
  // A view whose reset passed is forgotten; an attempt lost before it may still count in the window
  // that began then, so it is kept until the next reset.
  const current =
    state.view !== undefined && live(state, nowMillis) === undefined
      ? { ...state, lost: 0, lostBefore: state.lost, view: undefined, fromMillis: state.view.untilMillis }
      : state
  const left = { ...current, inFlight: Math.max(0, current.inFlight - 1) }
  switch (ending._tag) {
    case "Answered":
      // Sent under the last window's view, it may have reached the server in the next: spent, as one lost.
      return ending.sentAtMillis < current.fromMillis
        ? { ...left, lost: left.lost + 1 }
        : learnt(left, ending, nowMillis)
    case "Silent":
      return left
    case "Unanswered":
      return ending.sent ? { ...left, lost: left.lost + 1 } : left
  }
}

/**
 * Whether the state holds nothing a fresh one would not: nothing in flight and no view in force.
 *
 * @since 0.2.0
 * @category operations
 */
export const isIdle = (state: State, nowMillis: number): boolean =>
  state.inFlight === 0 && live(state, nowMillis) === undefined

// The most keys a `Budgets` table holds, as the token buckets' and blocks' tables.
const maxKeys = 10_000

interface Entry {
  readonly generation: number
  readonly state: State
}

/**
 * The budgets of many keys, in memory, at most 10,000 by default: past it, idle keys go first, then the one used
 * longest ago. Each take answers the entry it counted in (a generation): an attempt of an entry since dropped
 * ends without touching the key's new entry.
 *
 * @since 0.2.0
 * @category constructors
 */
export class Budgets {
  private readonly entries = new Map<string, Entry>()
  private generations = 0

  constructor(private readonly capacity: number = maxKeys) {}

  /** How long until `key` admits an attempt (see {@link waitMillis}); 0 for a key the table does not hold. */
  waitMillis(key: string, nowMillis: number): number {
    const entry = this.entries.get(key)
    return entry === undefined ? 0 : waitMillis(entry.state, nowMillis)
  }

  /** Counts an admitted attempt of `key`, holding the key from now on: the entry's generation, for {@link ended}. */
  take(key: string, nowMillis: number): number {
    const entry = this.entries.get(key) ?? { generation: ++this.generations, state: make() }
    this.keep(key, { generation: entry.generation, state: take(entry.state) }, nowMillis)
    return entry.generation
  }

  /** Counts an attempt of `key` only when the table holds the key already; `undefined` otherwise. */
  takeIfHeld(key: string, nowMillis: number): number | undefined {
    return this.entries.has(key) ? this.take(key, nowMillis) : undefined
  }

  /** An attempt counted in `generation` ended (see {@link ended}). */
  ended(key: string, generation: number, ending: Ending, nowMillis: number): void {
    const entry = this.entries.get(key)
    if (entry !== undefined && entry.generation === generation) {
      this.entries.set(key, { generation, state: ended(entry.state, ending, nowMillis) })
    }
  }

  /** Keys held now. */
  get size(): number {
    return this.entries.size
  }

  private keep(key: string, entry: Entry, nowMillis: number): void {
    // Most recently used last: the first key is the one used longest ago.
    this.entries.delete(key)
    if (this.entries.size >= this.capacity) this.evict(nowMillis)
    this.entries.set(key, entry)
  }

  private evict(nowMillis: number): void {
    for (const [key, entry] of this.entries) {
      if (isIdle(entry.state, nowMillis)) this.entries.delete(key)
    }
    const oldest = this.entries.keys().next()
    if (this.entries.size >= this.capacity && oldest.done !== true) this.entries.delete(oldest.value)
  }
}
