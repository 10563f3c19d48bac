// @generated from templates/src/internal/retryPolicy.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as RetryAfterCore from "@effect-http-resilience/core/RetryAfter"
import * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import type * as Schedule from "effect/Schedule"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import {
  durationCodec,
  fromChecked,
  IsTransientStatusError,
  InvalidRetryPolicy,
  type Validated
} from "./invalidOption.js"
import * as line from "./line.js"
import * as retryBudgetService from "./retryBudgetService.js"

export { InvalidRetryPolicy }

/** @internal */
export const TypeId = "~effect-http-resilience/RetryPolicy" as const

/** @internal */
export const linear = (base: Duration.Input): RetryPolicy.Backoff => ({ _tag: "Linear", base })

/** @internal */
export const exponential = (base: Duration.Input, factor = 2): RetryPolicy.Backoff => ({
  _tag: "Exponential",
  base,
  factor
})

/** @internal */
export const constant = (delay: Duration.Input): RetryPolicy.Backoff => ({ _tag: "Constant", base: delay })

const coreDefaults = RetryPolicyOptions.defaults

// The option checks are the shared core's; Effect 4's Duration is how it reads durations.
const hooks: RetryPolicyOptions.Hooks<Duration.Duration> = {
  duration: durationCodec,
  defaultInputs: {
    backoff: exponential(Duration.millis(coreDefaults.backoff.baseMillis), coreDefaults.backoff.factor),
    maxDelay: Duration.millis(coreDefaults.maxDelayMillis),
    maxElapsed: Duration.infinity,
    attemptTimeout: Duration.millis(coreDefaults.attemptTimeoutMillis),
    totalTimeout: Duration.millis(coreDefaults.totalTimeoutMillis)
  },
  predicateThrew: (status, cause) => new IsTransientStatusError({ status, cause })
}

const isBudgetService = (input: unknown): input is RetryBudget.RetryBudget.Service =>
  Predicate.hasProperty(input, "tryRetry") && typeof input.tryRetry === "function"

// A service is shared as it is; anything else is a budget's options, checked now.
const budgetOf = (input: RetryPolicy.Options["retryBudget"]): Validated<RetryPolicy.RetryPolicy["retryBudget"]> =>
  isBudgetService(input) ? Result.succeed(input) : retryBudgetService.validate(input)

// The core checked that each opt-in stage is one (its module checked the rest when it built it);
// the policy keeps the stage values as given, typed as this line's.
/** @internal */
export const validate = (options?: RetryPolicy.Options): Validated<RetryPolicy.RetryPolicy> =>
  Result.flatMap(fromChecked(RetryPolicyOptions.check(options, hooks)), (resolved) =>
    Result.map(
      budgetOf(options?.retryBudget),
      (retryBudget): RetryPolicy.RetryPolicy => ({
        [TypeId]: TypeId,
        ...resolved,
        isTransientConnectionError:
          options?.isTransientConnectionError ?? RetryPolicyOptions.isDefaultTransientConnectionError,
        hedging: options?.hedging,
        concurrencyLimit: options?.concurrencyLimit,
        rateLimit: options?.rateLimit,
        rateLimitHeaders: options?.rateLimitHeaders,
        circuitBreaker: options?.circuitBreaker,
        coalesce: options?.coalesce,
        bodyIdleTimeout: options?.bodyIdleTimeout,
        retryBudget
      })
    )
  )

/** @internal */
export const make = (options?: RetryPolicy.Options): RetryPolicy.RetryPolicy =>
  Result.getOrThrowWith(validate(options), (error) => error)

/** @internal */
export const isRetryPolicy = (u: unknown): u is RetryPolicy.RetryPolicy => Predicate.hasProperty(u, TypeId)

/** @internal */
export const defaultPolicy: RetryPolicy.RetryPolicy = make()

/** The server's delay on a transient status, in milliseconds, if it gave one. @internal */
export const serverDelayMillis = (failure: HttpFailure.HttpFailure): number | undefined =>
  failure._tag === "TransientStatus" && Option.isSome(failure.retryAfter)
    ? Duration.toMillis(failure.retryAfter.value)
    : undefined

/** What must never be retried, the server's `shouldRetry` hint on a transient status heard. @internal */
export const nonRetryableReason = (
  failure: HttpFailure.HttpFailure,
  policy: Pick<
    RetryPolicy.RetryPolicy,
    "isTransientStatus" | "isTransientConnectionError" | "retryNonIdempotent" | "retryHints"
  >
): RetryPolicy.GiveUpReason | undefined =>
  RetrySchedule.refusal(
    failure,
    policy,
    failure._tag === "TransientStatus"
      ? RetryAfterCore.shouldRetry(failure.headers, policy.retryHints.shouldRetry)
      : undefined
  )

const toDecision = (decision: RetrySchedule.Decision): RetryPolicy.RetryDecision =>
  decision._tag === "GiveUp"
    ? decision
    : {
        _tag: "Retry",
        attempt: decision.attempt,
        delay: Duration.millis(decision.delayMillis),
        source: decision.source,
        capped: decision.capped
      }

// The jitter's draw, when the core asks for one, from Effect's Random (fixed in tests).
const completed = (planned: RetrySchedule.Step | RetrySchedule.Draw): Effect.Effect<RetrySchedule.Step> =>
  "complete" in planned ? Effect.map(Random.next, planned.complete) : Effect.succeed(planned)

const stepOf = (
  schedulePolicy: RetrySchedule.Policy,
  policy: RetryPolicy.RetryPolicy,
  state: RetrySchedule.State,
  now: number,
  failure: HttpFailure.HttpFailure
): Effect.Effect<RetrySchedule.Step> =>
  completed(
    RetrySchedule.step(schedulePolicy, state, now, {
      refusal: nonRetryableReason(failure, policy),
      serverDelayMillis: serverDelayMillis(failure)
    })
  )

/**
 * The policy as a schedule: the decisions are the shared core's (`RetrySchedule.step`); a
 * give-up ends the schedule with its decision as the last output.
 * `line.scheduleFromStep` gives them the line's schedule shape.
 *
 * @internal
 */
export const toSchedule = (
  policy: RetryPolicy.RetryPolicy
): Schedule.Schedule<RetryPolicy.RetryDecision, HttpFailure.HttpFailure> => {
  const schedulePolicy = RetryPolicyOptions.toSchedulePolicy(policy, Duration.toMillis)
  return line.scheduleFromStep(
    () => RetrySchedule.initialState(schedulePolicy),
    (now, failure: HttpFailure.HttpFailure, state) =>
      Effect.map(stepOf(schedulePolicy, policy, state, now, failure), (step) => ({
        state: step.state,
        out: toDecision(step.decision),
        delayMillis: step.decision._tag === "GiveUp" ? undefined : step.decision.delayMillis
      }))
  )
}
