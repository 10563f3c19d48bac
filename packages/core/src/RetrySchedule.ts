/**
 * What a retry policy decides after a failed attempt, as a plain function: whether to retry, and
 * how long to wait. Both libraries make it a `Schedule` and supply the randomness.
 *
 * @example
 * ```ts
 * import type { RetrySchedule } from "@effect-http-resilience/core"
 *
 * const jitter: RetrySchedule.Jitter = "equal"
 * ```
 *
 * @since 0.1.0
 */
import type { Failure as FailureFacts, GiveUpReason } from "./FailureMessage.js"
import * as Idempotency from "./Idempotency.js"

/**
 * How a computed backoff is randomised (base b, cap c, computed backoff v): `"none"` exactly
 * v; `"full"` uniform in [0, min(c, v)]; `"equal"` uniform in [min(c, v)/2, min(c, v)];
 * `"decorrelated"` min(c, uniform in [b, 3 × previous wait]).
 *
 * @since 0.1.0
 * @category models
 */
export type Jitter = "none" | "full" | "equal" | "decorrelated"

/**
 * Where a wait came from: the policy's backoff, or the server's `Retry-After`.
 *
 * @since 0.1.0
 * @category models
 */
export type DelaySource = "backoff" | "retry-after"

/**
 * How waits grow, in milliseconds: `base × n` (linear), `base` (constant) or
 * `base × factor^(n-1)` (exponential) for the n-th retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface Backoff {
  readonly _tag: "Linear" | "Constant" | "Exponential"
  readonly baseMillis: number
  /** Exponential only; ignored by the others. */
  readonly factor: number
}

/**
 * A validated policy in milliseconds (`Infinity` where unbounded).
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly maxAttempts: number
  readonly backoff: Backoff
  /** Cap on one wait; fractions of a millisecond are dropped. */
  readonly maxDelayMillis: number
  readonly maxElapsedMillis: number
  readonly jitter: Jitter
  readonly respectRetryAfter: boolean
  /** A `Retry-After` over the cap stops the schedule instead of waiting the cap. */
  readonly giveUpOverCap: boolean
}

/**
 * What the schedule remembers between failures of one call.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly failures: number
  readonly previousDelayMillis: number
  /** When the first failure was seen; -1 before it. */
  readonly firstFailureAt: number
}

/**
 * What the schedule decided after the failure of `attempt` (1-based), waits in milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | {
      readonly _tag: "Retry"
      readonly attempt: number
      readonly delayMillis: number
      readonly source: DelaySource
      /** Whether the wanted wait was cut down to the cap. */
      readonly capped: boolean
    }
  | { readonly _tag: "GiveUp"; readonly attempt: number; readonly reason: GiveUpReason }

/**
 * A decision and the state after it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly state: State
  readonly decision: Decision
}

/**
 * A step that needs one uniform random number in [0, 1) to finish: the jitter's draw. Only
 * asked for when there is a range to draw from, so a policy without jitter draws nothing.
 *
 * @since 0.1.0
 * @category models
 */
export interface Draw {
  readonly _tag: "Draw"
  readonly complete: (uniform: number) => Step
}

/**
 * The facts of a failure the schedule decides on: why it must not be retried at all (see
 * {@link refusal}), and the delay the server asked for, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface FailureInput {
  readonly refusal: GiveUpReason | undefined
  readonly serverDelayMillis: number | undefined
}

/**
 * The state before the first failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initialState = (policy: Policy): State => ({
  failures: 0,
  previousDelayMillis: policy.backoff.baseMillis,
  firstFailureAt: -1
})

/**
 * The n-th retry's wait before jitter and cap, in milliseconds; n starts at 1.
 *
 * @since 0.1.0
 * @category arithmetic
 */
export const backoffMillis = (backoff: Backoff, retry: number): number => {
  const base = backoff.baseMillis
  switch (backoff._tag) {
    case "Linear":
      return base * retry
    case "Constant":
      return base
    case "Exponential":
      // base 0 times an overflowed Infinity would be NaN.
      return base === 0 ? 0 : base * backoff.factor ** (retry - 1)
  }
}

/**
 * Decides after a failure: give up (and why), or retry after how many whole milliseconds; a
 * {@link Draw} when the jitter needs a random number.
 *
 * @since 0.1.0
 * @category deciding
 */
export const step = (policy: Policy, state: State, nowMillis: number, failure: FailureInput): Step | Draw => {
  const attempt = state.failures + 1
  const next: State = {
    failures: attempt,
    previousDelayMillis: state.previousDelayMillis,
    firstFailureAt: state.firstFailureAt < 0 ? nowMillis : state.firstFailureAt
  }
  const giveUp = (reason: GiveUpReason): Step => ({ state: next, decision: { _tag: "GiveUp", attempt, reason } })
  if (failure.refusal !== undefined) return giveUp(failure.refusal)
  if (attempt >= policy.maxAttempts) return giveUp("attempts-exhausted")

  const maxDelayMillis = Math.floor(policy.maxDelayMillis)
  const serverDelay = policy.respectRetryAfter ? failure.serverDelayMillis : undefined
  if (serverDelay !== undefined && serverDelay > maxDelayMillis && policy.giveUpOverCap) {
    return giveUp("retry-after-exceeds-max-delay")
  }
  const computed = backoffMillis(policy.backoff, attempt)
  // "full" and "equal" jitter draw below the capped backoff: it was cut if the cap lowered it.
  const backoffOverCap = serverDelay === undefined && policy.jitter !== "decorrelated" && computed > maxDelayMillis

  const finish = (wanted: number, source: DelaySource): Step => {
    const delayMillis = Math.min(Math.round(wanted), maxDelayMillis)
    if (nowMillis + delayMillis - next.firstFailureAt > policy.maxElapsedMillis) return giveUp("deadline-exceeded")
    return {
      state: { ...next, previousDelayMillis: delayMillis },
      decision: { _tag: "Retry", attempt, delayMillis, source, capped: backoffOverCap || wanted > maxDelayMillis }
    }
  }
  const uniform = (low: number, high: number): Step | Draw =>
    high <= low
      ? finish(low, "backoff")
      : { _tag: "Draw", complete: (u: number) => finish(low + u * (high - low), "backoff") }

  if (serverDelay !== undefined) return finish(serverDelay, "retry-after")
  switch (policy.jitter) {
    case "none":
      return finish(computed, "backoff")
    case "full":
      return uniform(0, Math.min(maxDelayMillis, computed))
    case "equal": {
      const capped = Math.min(maxDelayMillis, computed)
      return uniform(capped / 2, capped)
    }
    case "decorrelated": {
      const base = policy.backoff.baseMillis
      return uniform(base, Math.max(base, 3 * state.previousDelayMillis))
    }
  }
}

/**
 * A failure as the retry rules see it: its kind and the request it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export type Failure = FailureFacts & { readonly request: Idempotency.Request }

/**
 * Whether a failure is of a kind another attempt could cure: a transport failure, a timeout or
 * a transient status.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isRetryableKind = (failure: Pick<FailureFacts, "_tag"> & { readonly reason?: unknown }): boolean =>
  failure._tag === "TransientStatus" ||
  (failure._tag === "ConnectionError" && (failure.reason === "Transport" || failure.reason === "Timeout"))

// Whether a connection failure was an attempt sent, not one a stage held back unsent (an open
// circuit, a cool-down, a full concurrency limit, no rate-limit token): only those are a
// caller's `isTransientConnectionError` to retry.
const isSentConnectionFailure = (failure: { readonly _tag: string; readonly reason?: unknown }): boolean =>
  failure._tag === "ConnectionError" &&
  (failure.reason === "Transport" ||
    failure.reason === "Timeout" ||
    failure.reason === "InvalidRequest" ||
    failure.reason === "Unrecoverable")

const isConnectionFailure = <F extends Failure>(
  failure: F
): failure is Extract<F, { readonly _tag: "ConnectionError" }> => failure._tag === "ConnectionError"

/**
 * Why a failure must not be retried whatever a schedule says, or `undefined`: not of a
 * retryable kind (or a status the policy does not count as transient, unless the server said
 * `shouldRetry` true, or a connection failure its `isTransientConnectionError` does not count),
 * the server's `shouldRetry` false on a transient status, a non-idempotent request (unless
 * allowed), or a one-shot body. A server's word never overrides the last two, and a connection
 * failure held back unsent is never retried.
 *
 * @since 0.1.0
 * @category deciding
 */
export const refusal = <F extends Failure>(
  failure: F,
  policy: {
    readonly isTransientStatus: (status: number) => boolean
    readonly retryNonIdempotent: boolean
    /** Which sent connection failures are retried. [reasons `"Transport"` and `"Timeout"`] */
    readonly isTransientConnectionError?:
      | ((failure: Extract<F, { readonly _tag: "ConnectionError" }>) => boolean)
      | undefined
  },
  shouldRetry?: boolean | undefined
): GiveUpReason | undefined => {
  const predicate = policy.isTransientConnectionError
  if (predicate !== undefined && isConnectionFailure(failure)) {
    if (!isSentConnectionFailure(failure) || predicate(failure) !== true) return "not-retryable"
  } else if (!isRetryableKind(failure)) {
    return "not-retryable"
  } else if (failure._tag === "TransientStatus") {
    if (shouldRetry === false) return "server-declined"
    if (shouldRetry !== true && !policy.isTransientStatus(failure.status)) return "not-retryable"
  }
  if (!policy.retryNonIdempotent && !Idempotency.isIdempotent(failure.request)) return "not-idempotent"
  if (Idempotency.hasOneShotBody(failure.request)) return "one-shot-body"
  return undefined
}

/**
 * The wait of a schedule that is not a policy, once the server's delay replaces it and the cap
 * bounds it: `undefined` when the schedule must stop (a server's delay over the cap, with
 * `giveUpOverCap`).
 *
 * @since 0.1.0
 * @category deciding
 */
export const withServerDelay = (
  scheduleDelayMillis: number,
  serverDelayMillis: number | undefined,
  options: { readonly capMillis: number; readonly giveUpOverCap: boolean }
): number | undefined => {
  if (serverDelayMillis !== undefined && options.giveUpOverCap && serverDelayMillis > options.capMillis)
    return undefined
  return Math.min(serverDelayMillis ?? scheduleDelayMillis, options.capMillis)
}

/**
 * Where a wait of a schedule that is not a policy came from, inferred from the server's delay:
 * the server's when it asked for one, and cut when the wait is shorter than what it asked.
 *
 * @since 0.1.0
 * @category deciding
 */
export const inferSource = (
  serverDelayMillis: number | undefined,
  waitMillis: number
): { readonly source: DelaySource; readonly capped: boolean } =>
  serverDelayMillis === undefined
    ? { source: "backoff", capped: false }
    : { source: "retry-after", capped: serverDelayMillis > waitMillis }
