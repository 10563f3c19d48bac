import * as Data from "effect/Data"
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
import { hasOneShotBody, isIdempotent } from "./idempotency.js"

/** @internal */
export const TypeId: unique symbol = Symbol.for("effect-http-resilience/RetryPolicy")

/** @internal */
export class InvalidRetryPolicy extends Data.TaggedError("InvalidRetryPolicy")<{
  readonly option: string
  readonly reason: string
  readonly value: unknown
}> {
  override get message(): string {
    return `Invalid retry policy option "${this.option}": ${this.reason} (got ${describeValue(this.value)})`
  }
}

const describeValue = (value: unknown): string => {
  if (typeof value === "function") return "a function"
  if (typeof value === "bigint") return `${value}n`
  if (Duration.isDuration(value)) return Duration.format(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

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
  attemptTimeout: Duration.seconds(10)
} as const satisfies Required<RetryPolicy.Options>

const optionNames: ReadonlySet<string> = new Set(Object.keys(defaultOptions))
const jitterModes: ReadonlyArray<RetryPolicy.Jitter> = ["none", "full", "equal", "decorrelated"]
const retryAfterModes: ReadonlyArray<RetryPolicy.RetryAfterMode> = ["respect", "ignore"]
const overCapModes: ReadonlyArray<RetryPolicy.OverCapMode> = ["wait-max-delay", "give-up"]

type Validated<A> = Either.Either<A, InvalidRetryPolicy>

const invalid = (option: string, reason: string, value: unknown): Validated<never> =>
  Either.left(new InvalidRetryPolicy({ option, reason, value }))

const isNegativeInput = (input: unknown): boolean => {
  if (typeof input === "number") return input < 0 || Number.isNaN(input)
  if (typeof input === "bigint") return input < BigInt(0)
  if (typeof input === "string") return input.trim().startsWith("-")
  if (Array.isArray(input)) return input.some((part) => typeof part === "number" && (part < 0 || Number.isNaN(part)))
  return false
}

// Duration.decode clamps negative numbers to zero and throws on unknown strings; an option
// must say which instead.
const validateDuration = (
  option: string,
  input: unknown,
  constraints: { readonly allowInfinite: boolean; readonly allowZero: boolean }
): Validated<Duration.Duration> => {
  if (isNegativeInput(input)) return invalid(option, "must not be negative", input)
  // Duration.decode knows "Infinity" only; the documented spelling is "infinity".
  const decoded =
    typeof input === "string" && input.trim().toLowerCase() === "infinity"
      ? Option.some(Duration.infinity)
      : Duration.decodeUnknown(input)
  if (decoded._tag === "None") return invalid(option, "is not a duration", input)
  const duration = decoded.value
  if (!constraints.allowInfinite && !Duration.isFinite(duration)) return invalid(option, "must be finite", input)
  if (!constraints.allowZero && Duration.isZero(duration)) return invalid(option, "must be greater than zero", input)
  return Either.right(duration)
}

const finiteDuration = { allowInfinite: false, allowZero: true } as const

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

/** @internal */
export const validate = (options: RetryPolicy.Options = {}): Validated<RetryPolicy.RetryPolicy> => {
  if (typeof options !== "object" || options === null) return invalid("options", "must be an object", options)
  for (const [key, value] of Object.entries(options)) {
    if (!optionNames.has(key)) return invalid(key, "is not a retry policy option", value)
  }
  const maxAttempts = options.maxAttempts ?? defaultOptions.maxAttempts
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    return invalid("maxAttempts", "must be a whole number of at least 1 (it counts the first attempt)", maxAttempts)
  }
  return Either.all({
    backoff: validateBackoff(options.backoff ?? defaultOptions.backoff),
    maxDelay: validateDuration("maxDelay", options.maxDelay ?? defaultOptions.maxDelay, finiteDuration),
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
    })
  }).pipe(Either.map((fields): RetryPolicy.RetryPolicy => ({ [TypeId]: TypeId, maxAttempts, ...fields })))
}

const validateFunction = (input: unknown): Validated<(status: number) => boolean> =>
  typeof input === "function"
    ? Either.right((status: number) => input(status) === true)
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
          capped: wanted > maxDelayMillis
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
