/**
 * Renders the resilient client's retry decisions (seen through
 * `ResilientHttpClient.observeDecisions`) as a timeline a person can follow: attempt, what went
 * wrong, the wait chosen and why (or why it gave up), and the time since the start.
 *
 * @since 0.1.0
 */
import { STATUS_CODES } from "node:http"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { HttpFailure, ResilientHttpClient, RetryPolicy } from "effect-http-resilience"

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
export const styleFor = (stream: { readonly isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv): Style =>
  stream.isTTY === true && env.NO_COLOR === undefined ? colour : plain

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
export const describeStatus = (status: number): string => `${status} ${STATUS_CODES[status] ?? ""}`.trimEnd()

const giveUpReasons: Record<RetryPolicy.GiveUpReason, string> = {
  "not-retryable": "not worth retrying",
  "not-idempotent": "not idempotent",
  "one-shot-body": "the body cannot be sent twice",
  "attempts-exhausted": "attempts exhausted",
  "retry-after-exceeds-max-delay": "Retry-After exceeds maxDelay",
  "deadline-exceeded": "the total timeout would pass",
  "retry-budget-exhausted": "retry budget spent",
  "circuit-open": "circuit open"
}

/**
 * A timeline for one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeline {
  /** Install with `ResilientHttpClient.observeDecisions(timeline.observer)`. */
  readonly observer: (decision: ResilientHttpClient.Decision) => Effect.Effect<void>
  /** Attempts that failed so far. */
  readonly failedAttempts: () => number
  /** Milliseconds since the timeline started. */
  readonly elapsed: () => number
}

const whatFailed = (failure: HttpFailure.HttpFailure): string => {
  switch (failure._tag) {
    case "ConnectionError":
      return `ConnectionError (${failure.reason})`
    case "DecodeError":
      return `${describeStatus(failure.status)}, body did not decode`
    case "TransientStatus":
    case "PermanentStatus":
      return describeStatus(failure.status)
  }
}

const whyThisWait = (decision: Extract<ResilientHttpClient.Decision, { readonly _tag: "Retry" }>): string => {
  const capped = decision.capped ? ", capped at maxDelay" : ""
  if (decision.source === "backoff") return `backoff${capped}`
  const asked =
    decision.failure._tag === "TransientStatus" ? Option.getOrUndefined(decision.failure.retryAfter) : undefined
  return `${asked === undefined ? "Retry-After" : `Retry-After ${seconds(Duration.toMillis(asked))}`}${capped}`
}

/**
 * Starts a timeline at `start` (epoch millis, now by default); every line goes to `write`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (write: (line: string) => void, style: Style, start: number = Date.now()): Timeline => {
  let failed = 0
  // Lines are timed by the fiber's Clock (TestClock in tests).
  const observer = (decision: ResilientHttpClient.Decision) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      failed++
      const head = `  ${style.dim(`+${seconds(now - start)}`)}  attempt ${decision.failure.attempt}  ${style.red(whatFailed(decision.failure))}`
      write(
        decision._tag === "Retry"
          ? `${head}  ${style.yellow(`-> wait ${seconds(Duration.toMillis(decision.delay))}`)} (${whyThisWait(decision)})`
          : `${head}  ${style.yellow("-> give up")} (${giveUpReasons[decision.reason]})`
      )
    })
  return { observer, failedAttempts: () => failed, elapsed: () => Date.now() - start }
}
