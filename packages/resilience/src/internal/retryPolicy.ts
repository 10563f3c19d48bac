import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import type * as RetryBudget from "../RetryBudget.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import { hasOneShotBody, isIdempotent } from "./idempotency.js"
import * as retryBudgetService from "./retryBudgetService.js"
import { InvalidRetryPolicy, IsTransientStatusError, isPlainObject } from "./invalidOption.js"

export { InvalidRetryPolicy }

/** @internal */
export const TypeId: unique symbol = Symbol.for("effect-http-resilience/RetryPolicy")

/** @internal */
export const defaultTransientStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504])

/** @internal */
export const isDefaultTransientStatus = (status: number): boolean => defaultTransientStatuses.has(status)

/** @internal */
export const linear = (base: Duration.DurationInput): RetryPolicy.Backoff => ({ _tag: "Linear", base })

/** @internal */
export const exponential = (base: Duration.DurationInput, factor = 2): RetryPolicy.Backoff => ({
  _tag: "Exponential",
  base,
  factor
})

/** @internal */
export const constant = (delay: Duration.DurationInput): RetryPolicy.Backoff => ({ _tag: "Constant", base: delay })

/** @internal */
export const defaultOptions = {
  maxAttempts: 3,
  backoff: exponential(Duration.millis(500), 2),
  maxDelay: Duration.seconds(30),
  jitter: "equal",
  retryAfter: "respect",
  whenRetryAfterExceedsMaxDelay: "wait-max-delay",
  isTransientStatus: isDefaultTransientStatus,
  retryNonIdempotent: false,
  maxElapsed: Duration.infinity,
  attemptTimeout: Duration.seconds(10),
  totalTimeout: Duration.seconds(30),
  maxBodyBytes: 16 * 1024 * 1024,
  retryBudget: retryBudgetService.finagle(),
  circuitBreaker: "none"
} as const satisfies Required<RetryPolicy.Options>

const optionNames: ReadonlySet<string> = new Set(Object.keys(defaultOptions))
const jitterModes: ReadonlyArray<RetryPolicy.Jitter> = ["none", "full", "equal", "decorrelated"]
const retryAfterModes: ReadonlyArray<RetryPolicy.RetryAfterMode> = ["respect", "ignore"]
const overCapModes: ReadonlyArray<RetryPolicy.OverCapMode> = ["wait-max-delay", "give-up"]

type Validated<A> = Either.Either<A, InvalidRetryPolicy>

const invalid = (option: string, reason: string, value: unknown): Validated<never> =>
  Either.left(new InvalidRetryPolicy({ option, reason, value }))

// Duration.decode reads NaN, and a tuple holding one, as zero.
const holdsNaN = (input: unknown): boolean =>
  Number.isNaN(input) || (Array.isArray(input) && input.some((part) => Number.isNaN(part)))

const isNegativeInput = (input: unknown): boolean => {
  if (typeof input === "number") return input < 0
  if (typeof input === "bigint") return input < BigInt(0)
  if (typeof input === "string") return input.trim().startsWith("-")
  if (Array.isArray(input)) return input.some((part) => typeof part === "number" && part < 0)
  return false
}

const oneMillisecond = Duration.millis(1)

interface DurationConstraints {
  readonly allowInfinite: boolean
  /**
   * Whether zero (and so anything) is allowed. If not, the least is 1 millisecond: timers
   * count whole milliseconds, so a shorter limit or cap acts as zero.
   */
  readonly allowZero: boolean
  /** Why zero is refused, said after "must be greater than zero". */
  readonly whyNotZero?: string
}

// Duration.decode clamps negative numbers to zero, reads NaN as zero and throws on unknown
// strings; an option must say which instead.
const validateDuration = (
  option: string,
  input: unknown,
  constraints: DurationConstraints
): Validated<Duration.Duration> => {
  if (holdsNaN(input)) return invalid(option, "is not a duration", input)
  if (isNegativeInput(input)) return invalid(option, "must not be negative", input)
  // Duration.decode knows "Infinity" only; the documented spelling is "infinity".
  const decoded =
    typeof input === "string" && input.trim().toLowerCase() === "infinity"
      ? Option.some(Duration.infinity)
      : Duration.decodeUnknown(input)
  if (decoded._tag === "None") return invalid(option, "is not a duration", input)
  const duration = decoded.value
  if (!constraints.allowInfinite && !Duration.isFinite(duration)) return invalid(option, "must be finite", input)
  if (!constraints.allowZero && Duration.isZero(duration)) {
    const why = constraints.whyNotZero === undefined ? "" : `: ${constraints.whyNotZero}`
    return invalid(option, `must be greater than zero${why}`, input)
  }
  if (!constraints.allowZero && Duration.lessThan(duration, oneMillisecond)) {
    return invalid(option, "must be at least 1 millisecond: timers count whole milliseconds", input)
  }
  return Either.right(duration)
}

const finiteDuration: DurationConstraints = { allowInfinite: false, allowZero: true }
const maxDelayConstraints: DurationConstraints = {
  allowInfinite: false,
  allowZero: false,
  whyNotZero:
    "a zero cap would cut every wait, Retry-After included, to none; to retry without waiting, use backoff: RetryPolicy.constant(0)"
}

const notANumber = (option: string, input: unknown): Validated<never> | undefined =>
  Number.isNaN(input) ? invalid(option, "is not a number", input) : undefined

const validateBackoff = (input: unknown): Validated<RetryPolicy.Backoff> => {
  if (!Predicate.hasProperty(input, "_tag") || !Predicate.hasProperty(input, "base")) {
    return invalid("backoff", "must be built with RetryPolicy.linear, exponential or constant", input)
  }
  const tag = input._tag
  if (tag !== "Linear" && tag !== "Constant" && tag !== "Exponential") {
    return invalid("backoff", "must be built with RetryPolicy.linear, exponential or constant", input)
  }
  const base = validateDuration("backoff.base", input.base, finiteDuration)
  if (Either.isLeft(base)) return Either.left(base.left)
  if (tag !== "Exponential") return Either.right({ _tag: tag, base: base.right })
  const factor = Predicate.hasProperty(input, "factor") ? input.factor : undefined
  const factorNaN = notANumber("backoff.factor", factor)
  if (factorNaN !== undefined) return factorNaN
  if (typeof factor !== "number" || !Number.isFinite(factor) || factor < 1) {
    return invalid("backoff.factor", "must be a finite number of at least 1", factor)
  }
  return Either.right({ _tag: "Exponential", base: base.right, factor })
}

const isOneOf =
  <A extends string>(allowed: ReadonlyArray<A>) =>
  (input: unknown): input is A =>
    allowed.some((choice) => choice === input)

const validateChoice = <A extends string>(option: string, allowed: ReadonlyArray<A>, input: unknown): Validated<A> =>
  isOneOf(allowed)(input)
    ? Either.right(input)
    : invalid(option, `must be one of ${allowed.map((choice) => `"${choice}"`).join(", ")}`, input)

const validateByteCount = (option: string, input: unknown): Validated<number> =>
  typeof input === "number" && Number.isSafeInteger(input) && input >= 1
    ? Either.right(input)
    : invalid(option, "must be a whole number of bytes, at least 1", input)

const isBudgetService = (input: unknown): input is RetryBudget.RetryBudget.Service =>
  Predicate.hasProperty(input, "tryRetry") && typeof input.tryRetry === "function"

// A service is shared as it is; anything else is a budget's options, checked now.
const validateRetryBudget = (
  input: RetryBudget.Input | RetryBudget.RetryBudget.Service
): Validated<RetryBudget.Settings | RetryBudget.RetryBudget.Service> =>
  isBudgetService(input) ? Either.right(input) : retryBudgetService.validate(input)

const isBreakerService = (input: unknown): input is CircuitBreaker.CircuitBreaker.Service =>
  Predicate.hasProperty(input, "acquire") && typeof input.acquire === "function"

const validateCircuitBreaker = (
  input: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none"
): Validated<CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none"> =>
  input === "none" || isBreakerService(input)
    ? Either.right(input)
    : Either.map(circuitBreakerService.validate(input), () => input)

/** @internal */
export const validate = (options: RetryPolicy.Options = {}): Validated<RetryPolicy.RetryPolicy> => {
  if (options === null) return invalid("options", "must not be null: omit them for the defaults", options)
  if (!isPlainObject(options)) {
    return invalid("options", "must be a plain object such as { maxAttempts: 5 }", options)
  }
  for (const [key, value] of Object.entries(options)) {
    if (!optionNames.has(key)) return invalid(key, "is not a retry policy option", value)
    // Only undefined (or leaving the option out) means the default: a null is likely a bug.
    if (value === null) return invalid(key, "must not be null: omit the option for its default", value)
  }
  const maxAttempts = options.maxAttempts ?? defaultOptions.maxAttempts
  const maxAttemptsNaN = notANumber("maxAttempts", maxAttempts)
  if (maxAttemptsNaN !== undefined) return maxAttemptsNaN
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    return invalid("maxAttempts", "must be a whole number of at least 1 (it counts the first attempt)", maxAttempts)
  }
  return Either.all({
    backoff: validateBackoff(options.backoff ?? defaultOptions.backoff),
    maxDelay: validateDuration("maxDelay", options.maxDelay ?? defaultOptions.maxDelay, maxDelayConstraints),
    jitter: validateChoice("jitter", jitterModes, options.jitter ?? defaultOptions.jitter),
    retryAfter: validateChoice("retryAfter", retryAfterModes, options.retryAfter ?? defaultOptions.retryAfter),
    whenRetryAfterExceedsMaxDelay: validateChoice(
      "whenRetryAfterExceedsMaxDelay",
      overCapModes,
      options.whenRetryAfterExceedsMaxDelay ?? defaultOptions.whenRetryAfterExceedsMaxDelay
    ),
    isTransientStatus: validateFunction(options.isTransientStatus ?? defaultOptions.isTransientStatus),
    retryNonIdempotent: validateBoolean(options.retryNonIdempotent ?? defaultOptions.retryNonIdempotent),
    maxElapsed: validateDuration("maxElapsed", options.maxElapsed ?? defaultOptions.maxElapsed, {
      allowInfinite: true,
      allowZero: true
    }),
    attemptTimeout: validateDuration("attemptTimeout", options.attemptTimeout ?? defaultOptions.attemptTimeout, {
      allowInfinite: true,
      allowZero: false
    }),
    totalTimeout: validateDuration("totalTimeout", options.totalTimeout ?? defaultOptions.totalTimeout, {
      allowInfinite: true,
      allowZero: false
    }),
    maxBodyBytes: validateByteCount("maxBodyBytes", options.maxBodyBytes ?? defaultOptions.maxBodyBytes),
    retryBudget: validateRetryBudget(options.retryBudget ?? defaultOptions.retryBudget),
    circuitBreaker: validateCircuitBreaker(options.circuitBreaker ?? defaultOptions.circuitBreaker)
  }).pipe(Either.map((fields): RetryPolicy.RetryPolicy => ({ [TypeId]: TypeId, maxAttempts, ...fields })))
}

// A predicate that throws is a bug in the caller's code: a defect, as Effect treats a throwing
// callback. It is wrapped so the defect names the option and the status, the throw as cause.
const validateFunction = (input: unknown): Validated<(status: number) => boolean> =>
  typeof input === "function"
    ? Either.right((status: number) => {
        try {
          return input(status) === true
        } catch (cause) {
          throw new IsTransientStatusError({ status, cause })
        }
      })
    : invalid("isTransientStatus", "must be a function from status code to boolean", input)

const validateBoolean = (input: unknown): Validated<boolean> =>
  typeof input === "boolean" ? Either.right(input) : invalid("retryNonIdempotent", "must be true or false", input)

/** @internal */
export const make = (options?: RetryPolicy.Options): RetryPolicy.RetryPolicy =>
  Either.getOrThrowWith(validate(options), (error) => error)

/** @internal */
export const isRetryPolicy = (u: unknown): u is RetryPolicy.RetryPolicy => Predicate.hasProperty(u, TypeId)

/** @internal */
export const defaultPolicy: RetryPolicy.RetryPolicy = make()

/** @internal */
export const nonRetryableReason = (
  failure: HttpFailure.HttpFailure,
  policy: Pick<RetryPolicy.RetryPolicy, "isTransientStatus" | "retryNonIdempotent">
): RetryPolicy.GiveUpReason | undefined => {
  if (
    !HttpFailure.isRetryableKind(failure) ||
    (failure._tag === "TransientStatus" && !policy.isTransientStatus(failure.status))
  ) {
    return "not-retryable"
  }
  if (!policy.retryNonIdempotent && !isIdempotent(failure.request)) return "not-idempotent"
  if (hasOneShotBody(failure.request)) return "one-shot-body"
  return undefined
}

interface ScheduleState {
  readonly failures: number
  readonly previousDelayMillis: number
  readonly firstFailureAt: number
}

// The n-th retry's wait before jitter and cap; n starts at 1.
const backoffMillis = (backoff: RetryPolicy.Backoff): ((retry: number) => number) => {
  const base = Duration.toMillis(backoff.base)
  switch (backoff._tag) {
    case "Linear":
      return (retry) => base * retry
    case "Constant":
      return () => base
    case "Exponential": {
      const factor = backoff.factor
      // base 0 times an overflowed Infinity would be NaN.
      return (retry) => (base === 0 ? 0 : base * factor ** (retry - 1))
    }
  }
}

const uniform = (low: number, high: number): Effect.Effect<number> =>
  high <= low ? Effect.succeed(low) : Effect.map(Random.next, (u) => low + u * (high - low))

/** @internal */
export const toSchedule = (
  policy: RetryPolicy.RetryPolicy
): Schedule.Schedule<RetryPolicy.RetryDecision, HttpFailure.HttpFailure> => {
  // Waits are whole milliseconds, like the clocks that time them: fractions would only add
  // floating-point drift to every deadline.
  const maxDelayMillis = Math.floor(Duration.toMillis(policy.maxDelay))
  const maxElapsedMillis = Duration.toMillis(policy.maxElapsed)
  const baseMillis = Duration.toMillis(policy.backoff.base)
  const computeBackoff = backoffMillis(policy.backoff)
  const respectRetryAfter = policy.retryAfter === "respect"
  const giveUpOverCap = policy.whenRetryAfterExceedsMaxDelay === "give-up"

  const jittered = (retry: number, previousDelayMillis: number): Effect.Effect<number> => {
    const computed = computeBackoff(retry)
    switch (policy.jitter) {
      case "none":
        return Effect.succeed(computed)
      case "full":
        return uniform(0, Math.min(maxDelayMillis, computed))
      case "equal": {
        const capped = Math.min(maxDelayMillis, computed)
        return uniform(capped / 2, capped)
      }
      case "decorrelated":
        return uniform(baseMillis, Math.max(baseMillis, 3 * previousDelayMillis))
    }
  }

  type Step = readonly [ScheduleState, RetryPolicy.RetryDecision, ScheduleDecision.ScheduleDecision]
  const giveUp = (state: ScheduleState, attempt: number, reason: RetryPolicy.GiveUpReason): Effect.Effect<Step> =>
    Effect.succeed([state, { _tag: "GiveUp", attempt, reason }, ScheduleDecision.done])

  return Schedule.makeWithState<ScheduleState, HttpFailure.HttpFailure, RetryPolicy.RetryDecision>(
    { failures: 0, previousDelayMillis: baseMillis, firstFailureAt: -1 },
    (now, failure, previous) => {
      const attempt = previous.failures + 1
      const state: ScheduleState = {
        failures: attempt,
        previousDelayMillis: previous.previousDelayMillis,
        firstFailureAt: previous.firstFailureAt < 0 ? now : previous.firstFailureAt
      }
      const refusal = nonRetryableReason(failure, policy)
      if (refusal !== undefined) return giveUp(state, attempt, refusal)
      if (attempt >= policy.maxAttempts) return giveUp(state, attempt, "attempts-exhausted")

      const serverDelay =
        respectRetryAfter && failure._tag === "TransientStatus" && failure.retryAfter._tag === "Some"
          ? Duration.toMillis(failure.retryAfter.value)
          : undefined
      if (serverDelay !== undefined && serverDelay > maxDelayMillis && giveUpOverCap) {
        return giveUp(state, attempt, "retry-after-exceeds-max-delay")
      }
      // "full" and "equal" jitter draw below the capped backoff: it was cut if the cap lowered it.
      const backoffOverCap =
        serverDelay === undefined && policy.jitter !== "decorrelated" && computeBackoff(attempt) > maxDelayMillis
      const chosen: Effect.Effect<readonly [number, RetryPolicy.DelaySource]> =
        serverDelay === undefined
          ? Effect.map(jittered(attempt, previous.previousDelayMillis), (millis) => [millis, "backoff"] as const)
          : Effect.succeed([serverDelay, "retry-after"] as const)
      return Effect.flatMap(chosen, ([wanted, source]): Effect.Effect<Step> => {
        const delayMillis = Math.min(Math.round(wanted), maxDelayMillis)
        if (now + delayMillis - state.firstFailureAt > maxElapsedMillis) {
          return giveUp(state, attempt, "deadline-exceeded")
        }
        const decision: RetryPolicy.RetryDecision = {
          _tag: "Retry",
          attempt,
          delay: Duration.millis(delayMillis),
          source,
          capped: backoffOverCap || wanted > maxDelayMillis
        }
        return Effect.succeed([
          { ...state, previousDelayMillis: delayMillis },
          decision,
          ScheduleDecision.continueWith(ScheduleInterval.after(now + delayMillis))
        ])
      })
    }
  )
}
