import * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import type * as RetryBudget from "../RetryBudget.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import * as retryBudgetService from "./retryBudgetService.js"
import { InvalidRetryPolicy, IsTransientStatusError } from "./invalidOption.js"
import { durationCodec, fromChecked, type Validated } from "./invalidOption.js"

export { InvalidRetryPolicy }

/** @internal */
export const TypeId: unique symbol = Symbol.for("effect-http-resilience/RetryPolicy")

/** @internal */
export const isDefaultTransientStatus: (status: number) => boolean = RetryPolicyOptions.isDefaultTransientStatus

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
  retryAfterScope: "origin",
  isTransientStatus: RetryPolicyOptions.isDefaultTransientStatus,
  retryNonIdempotent: false,
  maxElapsed: Duration.infinity,
  attemptTimeout: Duration.seconds(10),
  totalTimeout: Duration.seconds(30),
  maxBodyBytes: 16 * 1024 * 1024,
  urlCredentials: "basic-auth",
  retryBudget: retryBudgetService.finagle(),
  circuitBreaker: "none"
} as const satisfies Required<Omit<RetryPolicy.Options, "hedging">>

// The option checks are the shared core's; Effect 3's Duration is how it reads durations.
const hooks: RetryPolicyOptions.Hooks<Duration.Duration> = {
  duration: durationCodec,
  defaultInputs: defaultOptions,
  predicateThrew: (status, cause) => new IsTransientStatusError({ status, cause })
}

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
  return Either.flatMap(fromChecked(RetryPolicyOptions.check(options, hooks)), (resolved) =>
    Either.all({
      retryBudget: validateRetryBudget(options.retryBudget ?? defaultOptions.retryBudget),
      circuitBreaker: validateCircuitBreaker(options.circuitBreaker ?? defaultOptions.circuitBreaker)
    }).pipe(Either.map((guards): RetryPolicy.RetryPolicy => ({ [TypeId]: TypeId, ...resolved, ...guards })))
  )
}

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
): RetryPolicy.GiveUpReason | undefined => RetrySchedule.refusal(failure, policy)

/** The server's delay on a transient status, in milliseconds, if it gave one. @internal */
export const serverDelayMillis = (failure: HttpFailure.HttpFailure): number | undefined =>
  failure._tag === "TransientStatus" && Option.isSome(failure.retryAfter)
    ? Duration.toMillis(failure.retryAfter.value)
    : undefined

// The jitter's draw, when the core asks for one, from Effect's Random (fixed in tests).
const completed = (planned: RetrySchedule.Step | RetrySchedule.Draw): Effect.Effect<RetrySchedule.Step> =>
  "complete" in planned ? Effect.map(Random.next, planned.complete) : Effect.succeed(planned)

/**
 * The policy as a schedule: the decisions are the shared core's (`RetrySchedule.step`); this
 * gives them Effect 3's schedule shape (a state, an output, an interval).
 *
 * @internal
 */
export const toSchedule = (
  policy: RetryPolicy.RetryPolicy
): Schedule.Schedule<RetryPolicy.RetryDecision, HttpFailure.HttpFailure> => {
  const schedulePolicy = RetryPolicyOptions.toSchedulePolicy(policy, Duration.toMillis)
  return Schedule.makeWithState<RetrySchedule.State, HttpFailure.HttpFailure, RetryPolicy.RetryDecision>(
    RetrySchedule.initialState(schedulePolicy),
    (now, failure, state) => {
      const input = { refusal: nonRetryableReason(failure, policy), serverDelayMillis: serverDelayMillis(failure) }
      return Effect.map(
        completed(RetrySchedule.step(schedulePolicy, state, now, input)),
        ({ state: next, decision }) =>
          decision._tag === "GiveUp"
            ? [next, decision, ScheduleDecision.done]
            : [
                next,
                {
                  _tag: "Retry",
                  attempt: decision.attempt,
                  delay: Duration.millis(decision.delayMillis),
                  source: decision.source,
                  capped: decision.capped
                },
                ScheduleDecision.continueWith(ScheduleInterval.after(now + decision.delayMillis))
              ]
      )
    }
  )
}
