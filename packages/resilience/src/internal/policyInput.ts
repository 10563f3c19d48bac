// @generated from templates/src/internal/policyInput.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import type * as CallMachine from "@effect-http-resilience/core/CallMachine"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import type * as HttpFailure from "../HttpFailure.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as attemptLoop from "./attemptLoop.js"
import type { InvalidRetryPolicy } from "./invalidOption.js"
import { withRetryAfter } from "./retryAfterSchedule.js"
import * as retryPolicy from "./retryPolicy.js"

/**
 * What a policy input comes to, for the attempt loop: the schedule that decides waits, what
 * must never be retried whatever the schedule says, the call's limits, which budget to ask of the
 * store, and the attempt: the policy's stages composed once.
 *
 * @internal
 */
export interface ResolvedPolicy {
  readonly schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  readonly refusal: (failure: HttpFailure.HttpFailure) => RetryPolicy.GiveUpReason | undefined
  readonly isTransientStatus: (status: number) => boolean
  /** The headers of vendors' retry hints. */
  readonly retryHints: RetryPolicy.RetryHints
  readonly limits: CallMachine.Limits
  readonly maxBodyBytes: number
  /** What credentials in a request's URL become. */
  readonly urlCredentials: RetryPolicy.UrlCredentialsMode
  /** Whether a 429's `Retry-After` cools its origin down for every call sharing the store. */
  readonly shareRetryAfter: boolean
  readonly retryBudget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
  /** The opt-in stages, as the policy has them; `undefined`: off. */
  readonly hedging: RetryPolicy.RetryPolicy["hedging"]
  readonly concurrencyLimit: RetryPolicy.RetryPolicy["concurrencyLimit"]
  readonly rateLimit: RetryPolicy.RetryPolicy["rateLimit"]
  readonly rateLimitHeaders: RetryPolicy.RetryPolicy["rateLimitHeaders"]
  readonly circuitBreaker: RetryPolicy.RetryPolicy["circuitBreaker"]
  /** Identical calls in flight shared (outside the retry loop: one whole call); `undefined`: off. */
  readonly coalesce: RetryPolicy.RetryPolicy["coalesce"]
  readonly bodyIdleTimeout: RetryPolicy.RetryPolicy["bodyIdleTimeout"]
  /** One attempt through the policy's stages (see `attemptLoop`), composed once. */
  readonly send: attemptLoop.Send
  /** Whether a request is hedged: the policy hedges, and the request may be. */
  readonly hedges: (request: HttpClientRequest.HttpClientRequest) => boolean
  /**
   * The store provided where the client was built (its layer's, with `Layer.provide`): its calls use
   * it over the store in their own context. `undefined`: each call reads its context's.
   */
  readonly store?: ResilienceStore.ResilienceStore.Service | undefined
}

/**
 * The three accepted inputs: a validated policy, plain options (validated here), or any
 * `Schedule` over failures.
 *
 * @internal
 */
export type PolicyInput =
  | RetryPolicy.RetryPolicy
  | RetryPolicy.Options
  | Schedule.Schedule<unknown, HttpFailure.HttpFailure>

const fromPolicy = (policy: RetryPolicy.RetryPolicy): ResolvedPolicy => ({
  schedule: retryPolicy.toSchedule(policy),
  refusal: (failure) => retryPolicy.nonRetryableReason(failure, policy),
  isTransientStatus: policy.isTransientStatus,
  retryHints: policy.retryHints,
  limits: {
    attemptTimeoutMillis: Duration.toMillis(policy.attemptTimeout),
    totalTimeoutMillis: Duration.toMillis(policy.totalTimeout),
    maxDelayMillis: Duration.toMillis(policy.maxDelay),
    whenRetryAfterExceedsMaxDelay: policy.whenRetryAfterExceedsMaxDelay
  },
  maxBodyBytes: policy.maxBodyBytes,
  urlCredentials: policy.urlCredentials,
  shareRetryAfter: policy.retryAfter === "respect" && policy.retryAfterScope === "origin",
  retryBudget: policy.retryBudget,
  hedging: policy.hedging,
  concurrencyLimit: policy.concurrencyLimit,
  rateLimit: policy.rateLimit,
  rateLimitHeaders: policy.rateLimitHeaders,
  circuitBreaker: policy.circuitBreaker,
  coalesce: policy.coalesce,
  bodyIdleTimeout: policy.bodyIdleTimeout,
  send: attemptLoop.compose(policy),
  hedges: policy.hedging === undefined ? never : policy.hedging.hedges
})

const never = (): boolean => false

// A caller's own schedule decides when and how long, with the default Retry-After handling
// and cap applied; what must never be retried stays out of its reach, and the default time
// limits apply.
const fromSchedule = (schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>): ResolvedPolicy => ({
  ...defaultResolved,
  schedule: withRetryAfter(schedule, {
    maxDelay: retryPolicy.defaultPolicy.maxDelay,
    whenRetryAfterExceedsMaxDelay: retryPolicy.defaultPolicy.whenRetryAfterExceedsMaxDelay
  })
})

const defaultResolved = fromPolicy(retryPolicy.defaultPolicy)

// Resolved once per input value: a client built inside every call with the same policy (or the
// same options, written out anew each time) costs what one built once does.
const byIdentity = new WeakMap<object, Either.Either<ResolvedPolicy, InvalidRetryPolicy>>()
const byOptionsText = new Map<string, Either.Either<ResolvedPolicy, InvalidRetryPolicy>>()
const maxOptionsTexts = 256

// Options made only of data (numbers, strings, Durations, nested records) are keyed by their
// text; any function or service in them keys by identity only.
const optionsText = (options: RetryPolicy.Options): string | undefined => {
  let plain = true
  const text = JSON.stringify(options, (_key, value: unknown) => {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") plain = false
    // JSON writes NaN and Infinity as null: keep them apart.
    return typeof value === "number" && !Number.isFinite(value) ? { number: String(value) } : value
  })
  return plain ? text : undefined
}

const resolveOptions = (options: RetryPolicy.Options): Either.Either<ResolvedPolicy, InvalidRetryPolicy> => {
  const text = optionsText(options)
  const cached = text === undefined ? undefined : byOptionsText.get(text)
  if (cached !== undefined) return cached
  const resolved = Either.map(retryPolicy.validate(options), fromPolicy)
  if (text !== undefined) {
    if (byOptionsText.size >= maxOptionsTexts) byOptionsText.clear()
    byOptionsText.set(text, resolved)
  }
  return resolved
}

/** @internal */
export const resolve = (input: PolicyInput | undefined): Either.Either<ResolvedPolicy, InvalidRetryPolicy> => {
  if (input === undefined) return Either.right(defaultResolved)
  const known = byIdentity.get(input)
  if (known !== undefined) return known
  // A policy is told by its brand, read in place: a call given fresh options passes here each time.
  const resolved = Schedule.isSchedule(input)
    ? Either.right(fromSchedule(input))
    : retryPolicy.TypeId in input
      ? Either.right(fromPolicy(input))
      : resolveOptions(input)
  byIdentity.set(input, resolved)
  return resolved
}
