/**
 * One call's decisions, with no I/O and no Effect: from what happened and the monotonic time,
 * send (after how long, under which limit) or stop (and why). Both lines send as it says.
 *
 * @example
 * ```ts
 * import type { CallMachine } from "@effect-http-resilience/core"
 *
 * const limits: CallMachine.Limits = {
 *   attemptTimeoutMillis: 10_000,
 *   totalTimeoutMillis: 30_000,
 *   maxDelayMillis: 30_000,
 *   whenRetryAfterExceedsMaxDelay: "wait-max-delay"
 * }
 * ```
 *
 * @since 0.2.0
 */
import type { GiveUpReason } from "./FailureMessage.js"

/**
 * The limits a call runs under, in milliseconds (`Infinity`: none).
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  readonly attemptTimeoutMillis: number
  readonly totalTimeoutMillis: number
  /** The longest wait a `Retry-After` (or an origin's cool-down) may impose. */
  readonly maxDelayMillis: number
  readonly whenRetryAfterExceedsMaxDelay: "wait-max-delay" | "give-up"
}

/**
 * A call in progress: its limits and its deadline on the monotonic clock.
 *
 * @since 0.2.0
 * @category models
 */
export interface Call {
  readonly limits: Limits
  readonly deadlineMillis: number
}

/**
 * What the schedule said after a failure: stop (and why), or wait this long.
 *
 * @since 0.2.0
 * @category models
 */
export type ScheduleAnswer =
  | { readonly _tag: "Done"; readonly reason: GiveUpReason }
  | { readonly _tag: "Delay"; readonly millis: number }

/**
 * The machine's answer: send attempt `attempt` after `waitMillis`, under `limitMillis`; or stop.
 * `coolDownMillis` is the part of the wait the origin's cool-down added (0: none).
 *
 * @since 0.2.0
 * @category models
 */
export type Answer =
  | {
      readonly _tag: "Send"
      readonly attempt: number
      readonly waitMillis: number
      readonly limitMillis: number
      readonly coolDownMillis: number
    }
  | { readonly _tag: "Stop"; readonly reason: GiveUpReason }

/**
 * Starts a call at `nowMillis` (monotonic).
 *
 * @since 0.2.0
 * @category constructors
 */
export const start = (limits: Limits, nowMillis: number): Call => ({
  limits,
  deadlineMillis: nowMillis + limits.totalTimeoutMillis
})

const stop = (reason: GiveUpReason): Answer => ({ _tag: "Stop", reason })

/**
 * The retry budget's answer to a retry the machine planned: the retry as planned, or a stop.
 *
 * @since 0.2.0
 * @category answers
 */
export const afterBudget = (planned: Answer, allowed: boolean): Answer =>
  allowed || planned._tag === "Stop" ? planned : stop("retry-budget-exhausted")

// A wait that ends past the deadline is not started; an origin cooling down for longer than the
// policy allows a wait either stretches it to the cap or stops the call, as a Retry-After would.
const send = (
  call: Call,
  attempt: number,
  nowMillis: number,
  plannedMillis: number,
  coolDownMillis: number
): Answer => {
  const { limits } = call
  let waitMillis = Math.max(0, plannedMillis)
  let addedMillis = 0
  if (coolDownMillis > waitMillis) {
    if (coolDownMillis > limits.maxDelayMillis && limits.whenRetryAfterExceedsMaxDelay === "give-up") {
      return stop("retry-after-exceeds-max-delay")
    }
    const cooled = Math.max(waitMillis, Math.min(coolDownMillis, limits.maxDelayMillis))
    addedMillis = cooled - waitMillis
    waitMillis = cooled
  }
  if (nowMillis + waitMillis >= call.deadlineMillis) return stop("deadline-exceeded")
  return {
    _tag: "Send",
    attempt,
    waitMillis,
    limitMillis: Math.min(limits.attemptTimeoutMillis, call.deadlineMillis - nowMillis - waitMillis),
    coolDownMillis: addedMillis
  }
}

/**
 * The first attempt: sent at once, unless the origin is cooling down (`coolDownMillis` left).
 *
 * @since 0.2.0
 * @category answers
 */
export const first = (call: Call, nowMillis: number, coolDownMillis: number): Answer =>
  send(call, 1, nowMillis, 0, coolDownMillis)

/**
 * After attempt `attempt` failed: what must never be retried stops at once (`refusal`), then the
 * schedule decides, then the origin's cool-down may stretch the wait, and a wait that would end
 * past the deadline is not started. A `Send` still needs the retry budget's yes.
 *
 * @since 0.2.0
 * @category answers
 */
export const afterFailure = (
  call: Call,
  attempt: number,
  nowMillis: number,
  refusal: GiveUpReason | undefined,
  schedule: ScheduleAnswer,
  coolDownMillis: number
): Answer => {
  if (refusal !== undefined) return stop(refusal)
  if (schedule._tag === "Done") return stop(schedule.reason)
  return send(call, attempt + 1, nowMillis, schedule.millis, coolDownMillis)
}

/**
 * How long a response asks every caller of its origin to hold off: a `429` with a
 * `Retry-After` (RFC 6585: the client sent too many requests) cools the origin down; anything
 * else does not (0).
 *
 * @since 0.2.0
 * @category answers
 */
export const coolDownAsked = (status: number, retryAfterMillis: number | undefined): number =>
  status === 429 && retryAfterMillis !== undefined && retryAfterMillis > 0 ? retryAfterMillis : 0
