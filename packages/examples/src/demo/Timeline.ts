/**
 * Renders the resilient client's retry decisions (seen through
 * `ResilientHttpClient.observeDecisions`) as a timeline a person can follow: attempt, what went
 * wrong, the wait chosen and why (or why it gave up), and the time since the start.
 *
 * Effect-free, so that the demo prints the same lines on either Effect line: each line turns its
 * `HttpFailure` and `Decision` into the plain views below (`demo/Effect3.ts` here,
 * `packages/examples-effect4` for Effect 4). Free of Node too, so that the browser page
 * (`browser/page.ts`) draws the same decisions in the same words.
 *
 * @since 0.1.0
 */
import type { FailureMessage, RetrySchedule } from "@effect-http-resilience/core"
import { reasonPhrase } from "./ReasonPhrases.js"

/**
 * ANSI styling, or none at all.
 *
 * @since 0.1.0
 * @category models
 */
export interface Style {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly red: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly cyan: (text: string) => string
}

const ansi =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`

/**
 * @since 0.1.0
 * @category styles
 */
export const colour: Style = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  red: ansi(31, 39),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  cyan: ansi(36, 39)
}

const same = (text: string): string => text

/**
 * @since 0.1.0
 * @category styles
 */
export const plain: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same }

/**
 * Colour on a terminal, plain otherwise (and whenever `NO_COLOR` is set).
 *
 * @since 0.1.0
 * @category styles
 */
export const styleFor = (
  stream: { readonly isTTY?: boolean | undefined },
  env: { readonly NO_COLOR?: string | undefined }
): Style => (stream.isTTY === true && env.NO_COLOR === undefined ? colour : plain)

/**
 * @since 0.1.0
 * @category formatting
 */
export const seconds = (millis: number): string => `${(millis / 1000).toFixed(2)}s`

/**
 * `503 Service Unavailable`, `ConnectionError (Transport)`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeStatus = (status: number): string => `${status} ${reasonPhrase(status) ?? ""}`.trimEnd()

/**
 * The fields of either line's `HttpFailure` that the demo reads.
 *
 * @since 0.3.0
 * @category models
 */
export interface HttpFailureLike {
  readonly _tag: "ConnectionError" | "TransientStatus" | "PermanentStatus" | "DecodeError"
  readonly attempt: number
  readonly status?: number
  readonly reason?: string
  readonly giveUpReason?: FailureMessage.GiveUpReason | undefined
  readonly message: string
  readonly request: { readonly method: string; readonly url: string }
}

/**
 * A failure as the demo shows it, whichever line it comes from.
 *
 * @since 0.3.0
 * @category models
 */
export interface FailureView {
  readonly _tag: HttpFailureLike["_tag"]
  readonly attempt: number
  /** Of a status failure or a decode error. */
  readonly status: number | undefined
  /** Of a `ConnectionError`. */
  readonly reason: string | undefined
  /** The server's `Retry-After` on a `TransientStatus`, if it sent one. */
  readonly retryAfterMillis: number | undefined
  readonly giveUpReason: FailureMessage.GiveUpReason | undefined
  readonly message: string
  readonly method: string
  readonly url: string
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const failureView = (failure: HttpFailureLike, retryAfterMillis: number | undefined): FailureView => ({
  _tag: failure._tag,
  attempt: failure.attempt,
  status: failure.status,
  reason: failure._tag === "ConnectionError" ? failure.reason : undefined,
  retryAfterMillis,
  giveUpReason: failure.giveUpReason,
  message: failure.message,
  method: failure.request.method,
  url: failure.request.url
})

/**
 * One decision of the resilient client, as the demo shows it.
 *
 * @since 0.3.0
 * @category models
 */
export type DecisionView = RetryView | GiveUpView

/**
 * A failed attempt followed by a wait.
 *
 * @since 0.3.0
 * @category models
 */
export interface RetryView {
  readonly _tag: "Retry"
  readonly failure: FailureView
  readonly delayMillis: number
  readonly source: RetrySchedule.DelaySource
  readonly capped: boolean
}

/**
 * A failed attempt after which the call stops.
 */
interface GiveUpView {
  readonly _tag: "GiveUp"
  readonly failure: FailureView
  readonly reason: FailureMessage.GiveUpReason
}

const giveUpReasons: Record<FailureMessage.GiveUpReason, string> = {
  "not-retryable": "not worth retrying",
  "server-declined": "the server said not to",
  "not-idempotent": "not idempotent",
  "one-shot-body": "the body cannot be sent twice",
  "attempts-exhausted": "attempts exhausted",
  "retry-after-exceeds-max-delay": "Retry-After exceeds maxDelay",
  "deadline-exceeded": "the total timeout would pass",
  "retry-budget-exhausted": "retry budget spent",
  "circuit-open": "circuit open",
  "concurrency-limit": "concurrency limit and queue full",
  "rate-limit": "rate limit",
  "body-idle-timeout": "body stalled after it was handed over"
}

/**
 * Why the call stopped, in a few words: `attempts exhausted`, `not idempotent`.
 *
 * @since 0.3.0
 * @category formatting
 */
export const describeGiveUp = (reason: FailureMessage.GiveUpReason): string => giveUpReasons[reason]

/**
 * What went wrong on one attempt: `503 Service Unavailable`, `ConnectionError (Transport)`.
 *
 * @since 0.3.0
 * @category formatting
 */
export const describeFailedAttempt = (failure: FailureView): string => {
  switch (failure._tag) {
    case "ConnectionError":
      return `ConnectionError (${failure.reason})`
    case "DecodeError":
      return `${describeStatus(failure.status ?? 0)}, body did not decode`
    case "TransientStatus":
    case "PermanentStatus":
      return describeStatus(failure.status ?? 0)
  }
}

/**
 * Why the wait is as long as it is: `backoff`, `Retry-After 5.00s, capped at maxDelay`.
 *
 * @since 0.3.0
 * @category formatting
 */
export const describeWaitReason = (decision: RetryView): string => {
  const capped = decision.capped ? ", capped at maxDelay" : ""
  if (decision.source === "backoff") return `backoff${capped}`
  const asked = decision.failure.retryAfterMillis
  return `${asked === undefined ? "Retry-After" : `Retry-After ${seconds(asked)}`}${capped}`
}

/**
 * A timeline for one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeline {
  /** Shows one decision, taken at `now` (epoch millis, by the fiber's `Clock`). */
  readonly record: (decision: DecisionView, now: number) => void
  /** Attempts that failed so far. */
  readonly failedAttempts: () => number
  /** Milliseconds since the timeline started. */
  readonly elapsed: () => number
}

/**
 * Starts a timeline at `start` (epoch millis, now by default) that hands each decision to `show`
 * with the milliseconds since the start: the terminal writes a line ({@link make}), the browser
 * page draws it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const track = (
  show: (decision: DecisionView, sinceStartMillis: number) => void,
  start: number = Date.now()
): Timeline => {
  let failed = 0
  const record = (decision: DecisionView, now: number): void => {
    failed++
    show(decision, now - start)
  }
  return { record, failedAttempts: () => failed, elapsed: () => Date.now() - start }
}

/**
 * The terminal's line for one decision: `  +2.05s  attempt 2  503 Service Unavailable  -> wait 2.00s (...)`.
 */
const decisionLine = (decision: DecisionView, sinceStartMillis: number, style: Style): string => {
  const head = `  ${style.dim(`+${seconds(sinceStartMillis)}`)}  attempt ${decision.failure.attempt}  ${style.red(describeFailedAttempt(decision.failure))}`
  return decision._tag === "Retry"
    ? `${head}  ${style.yellow(`-> wait ${seconds(decision.delayMillis)}`)} (${describeWaitReason(decision)})`
    : `${head}  ${style.yellow("-> give up")} (${describeGiveUp(decision.reason)})`
}

/**
 * Starts a timeline at `start` (epoch millis, now by default); every line goes to `write`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (write: (line: string) => void, style: Style, start: number = Date.now()): Timeline =>
  track((decision, sinceStartMillis) => write(decisionLine(decision, sinceStartMillis, style)), start)
