/**
 * One attempt's hedged copies, with no I/O and no Effect: given what happened, what to do next
 * (send, set the timer, ask, finish), by gRPC A6's and Polly's rules (docs/hedging.md).
 *
 * @example
 * ```ts
 * import type { HedgeRace } from "@effect-http-resilience/core"
 *
 * const outcome: HedgeRace.Outcome = { _tag: "Transient", pushback: true }
 * ```
 *
 * @since 0.2.0
 */

/**
 * How a copy ended, as the race needs it.
 *
 * - `Won`: an acceptable response; the race ends with it.
 * - `Final`: a failure another copy would not cure (a 4xx, an undecodable body); the race ends.
 * - `Transient`: a failure another copy might not meet; `pushback` when the server asked clients
 *   to slow down (a 429, or any `Retry-After`).
 *
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Won" }
  | { readonly _tag: "Final" }
  | { readonly _tag: "Transient"; readonly pushback: boolean }

/**
 * What to do next. Copies are numbered from 1 in the order they are sent.
 *
 * - `Send`: send copy `copy` now.
 * - `Ask`: ask whether another copy may go (the retry budget, an open circuit, a cool-down), and
 *   tell the race with {@link answered}.
 * - `SetTimer`: tell the race with {@link timerFired} in `afterMillis`, replacing any timer set.
 * - `Finish`: the race is over: interrupt the copies in `interrupt` (in flight, losers), and end
 *   with copy `copy`'s outcome: its response when it won, its failure otherwise.
 *
 * @since 0.2.0
 * @category models
 */
export type Action =
  | { readonly _tag: "Send"; readonly copy: number }
  | { readonly _tag: "Ask" }
  | { readonly _tag: "SetTimer"; readonly afterMillis: number }
  | { readonly _tag: "Finish"; readonly copy: number; readonly interrupt: ReadonlyArray<number> }

/**
 * A race in progress. Plain data: each step returns a new one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Race {
  readonly maxCopies: number
  readonly delayMillis: number
  /** Copies sent so far. */
  readonly sent: number
  /** Copies sent and not ended, in the order they were sent. */
  readonly inFlight: ReadonlyArray<number>
  /** No further copy: pushback was met, or a copy was refused. */
  readonly hedgingStopped: boolean
  /** An `Ask` is awaiting its answer. */
  readonly asking: boolean
  /**
   * The failed copy that is the race's outcome if every copy fails: the latest sent, so that its
   * attempt number counts every request; one that met pushback before any that did not, so that
   * the retry policy hears the server's delay.
   */
  readonly lastFailed: number | undefined
  /** Whether `lastFailed` met pushback. */
  readonly lastFailedPushback: boolean
  readonly finished: boolean
}

/**
 * What a step returns: the race as it now is, and the actions to carry out, in order.
 *
 * @since 0.2.0
 * @category models
 */
export type Step = readonly [Race, ReadonlyArray<Action>]

const canHedge = (race: Race): boolean =>
  !race.finished && !race.hedgingStopped && !race.asking && race.sent < race.maxCopies

// Asks for the next copy when one may go, else waits; with nothing in flight and nothing to ask,
// every copy has failed.
const next = (race: Race, actions: ReadonlyArray<Action>): Step => {
  if (canHedge(race)) return [{ ...race, asking: true }, [...actions, { _tag: "Ask" }]]
  if (race.inFlight.length === 0 && !race.asking) {
    return [
      { ...race, finished: true },
      [...actions, { _tag: "Finish", copy: race.lastFailed ?? race.sent, interrupt: [] }]
    ]
  }
  return [race, actions]
}

/**
 * Starts a race: copy 1 goes at once, and, when a further copy may come, the timer is set for
 * `delayMillis` (a `delayMillis` of 0 asks for the next copy at once).
 *
 * @since 0.2.0
 * @category steps
 */
export const start = (settings: { readonly maxCopies: number; readonly delayMillis: number }): Step => {
  const race: Race = {
    maxCopies: Math.max(1, Math.floor(settings.maxCopies)),
    delayMillis: Math.max(0, settings.delayMillis),
    sent: 1,
    inFlight: [1],
    hedgingStopped: false,
    asking: false,
    lastFailed: undefined,
    lastFailedPushback: false,
    finished: false
  }
  const sendFirst: ReadonlyArray<Action> = [{ _tag: "Send", copy: 1 }]
  if (race.sent >= race.maxCopies) return [race, sendFirst]
  if (race.delayMillis === 0) return next(race, sendFirst)
  return [race, [...sendFirst, { _tag: "SetTimer", afterMillis: race.delayMillis }]]
}

/**
 * The hedge timer fired: ask for another copy, if one may go.
 *
 * @since 0.2.0
 * @category steps
 */
export const timerFired = (race: Race): Step => (canHedge(race) ? next(race, []) : [race, []])

/**
 * The answer to an `Ask`: send the next copy and set the timer for the one after, or, refused,
 * send no further copy and wait for those in flight.
 *
 * @since 0.2.0
 * @category steps
 */
export const answered = (race: Race, allowed: boolean): Step => {
  if (!race.asking || race.finished) return [race, []]
  const asked: Race = { ...race, asking: false }
  // Pushback met while asking: the answer no longer matters.
  if (!allowed || asked.hedgingStopped) return next({ ...asked, hedgingStopped: true }, [])
  const copy = asked.sent + 1
  const sending: Race = { ...asked, sent: copy, inFlight: [...asked.inFlight, copy] }
  const actions: ReadonlyArray<Action> = [{ _tag: "Send", copy }]
  if (sending.sent >= sending.maxCopies) return [sending, actions]
  if (sending.delayMillis === 0) return next(sending, actions)
  return [sending, [...actions, { _tag: "SetTimer", afterMillis: sending.delayMillis }]]
}

/**
 * A copy ended. A win or a final failure ends the race, interrupting the others; a transient
 * failure asks for the next copy at once (pushback stops them instead), and, when no copy is
 * left in flight or to come, ends the race with the failure that tells most (see `lastFailed`):
 * the latest sent, one with pushback first.
 *
 * @since 0.2.0
 * @category steps
 */
export const ended = (race: Race, copy: number, outcome: Outcome): Step => {
  if (race.finished || !race.inFlight.includes(copy)) return [race, []]
  const others = race.inFlight.filter((other) => other !== copy)
  if (outcome._tag !== "Transient") {
    return [{ ...race, inFlight: [], finished: true }, [{ _tag: "Finish", copy, interrupt: others }]]
  }
  const replaces =
    race.lastFailed === undefined ||
    (outcome.pushback && !race.lastFailedPushback) ||
    (outcome.pushback === race.lastFailedPushback && copy > race.lastFailed)
  return next(
    {
      ...race,
      inFlight: others,
      lastFailed: replaces ? copy : race.lastFailed,
      lastFailedPushback: replaces ? outcome.pushback : race.lastFailedPushback,
      hedgingStopped: race.hedgingStopped || outcome.pushback
    },
    []
  )
}
