/**
 * Renders the resilient client's retry decisions (its debug logs) as a timeline a person can
 * follow: attempt, what went wrong, the wait chosen and why, and the time since the start.
 *
 * @since 0.1.0
 */
import { STATUS_CODES } from "node:http"
import * as HashMap from "effect/HashMap"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"

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

const giveUpReasons: Record<string, string> = {
  "not-retryable": "not worth retrying",
  "not-idempotent": "the method is not idempotent",
  "one-shot-body": "the body cannot be sent twice",
  "attempts-exhausted": "attempts exhausted",
  "retry-after-exceeds-max-delay": "Retry-After exceeds maxDelay",
  "deadline-exceeded": "maxElapsed would be exceeded"
}

/**
 * A timeline for one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeline {
  /** Install with `Logger.replace(Logger.defaultLogger, timeline.logger)` and debug level. */
  readonly logger: Logger.Logger<unknown, void>
  /** Attempts that failed so far. */
  readonly failedAttempts: () => number
  /** Milliseconds since the timeline started. */
  readonly elapsed: () => number
}

const annotation = (annotations: HashMap.HashMap<string, unknown>, key: string): unknown =>
  Option.getOrUndefined(HashMap.get(annotations, key))

const whatFailed = (annotations: HashMap.HashMap<string, unknown>): string => {
  const status = annotation(annotations, "http.response.status_code")
  if (annotation(annotations, "retry.failure") === "DecodeError") {
    return `${typeof status === "number" ? describeStatus(status) : "response"}, body did not decode`
  }
  if (typeof status === "number") return describeStatus(status)
  return `${String(annotation(annotations, "retry.failure"))} (${String(annotation(annotations, "retry.reason"))})`
}

const whyThisWait = (annotations: HashMap.HashMap<string, unknown>): string => {
  const source = annotation(annotations, "retry.wait_source")
  const capped = annotation(annotations, "retry.wait_capped") === true
  const asked = annotation(annotations, "retry.retry_after_millis")
  if (source === "retry-after") {
    const requested = typeof asked === "number" ? `Retry-After ${seconds(asked)}` : "Retry-After"
    return capped ? `${requested}, capped at maxDelay` : requested
  }
  return capped ? "backoff, capped at maxDelay" : "backoff"
}

/**
 * Starts a timeline at `start` (epoch millis, now by default); every line goes to `write`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (write: (line: string) => void, style: Style, start: number = Date.now()): Timeline => {
  let failed = 0
  // Lines are timed by the log entry's own date, which follows the fiber's Clock (TestClock in tests).
  const logger = Logger.make<unknown, void>(({ annotations, date, message }) => {
    const text = Array.isArray(message) ? message[0] : message
    if (text !== "retrying" && text !== "giving up") return
    failed++
    const attempt = annotation(annotations, "retry.attempt")
    const head = `  ${style.dim(`+${seconds(date.getTime() - start)}`)}  attempt ${String(attempt)}  ${style.red(whatFailed(annotations))}`
    if (text === "retrying") {
      const wait = Number(annotation(annotations, "retry.wait_millis"))
      write(`${head}  ${style.yellow(`-> wait ${seconds(wait)}`)} (${whyThisWait(annotations)})`)
    } else {
      const reason = String(annotation(annotations, "retry.give_up_reason"))
      write(`${head}  ${style.yellow("-> give up")} (${giveUpReasons[reason] ?? reason})`)
    }
  })
  return { logger, failedAttempts: () => failed, elapsed: () => Date.now() - start }
}
