/**
 * A bench mode's policy (`PolicySpec`, plain data both lines share) as the Effect 3 line's
 * `RetryPolicy.Options`: each opt-in stage built by its module's constructor. The Effect 4 line's
 * is `packages/bench-effect4/src/policyOptions.ts`.
 */
import { CircuitBreaker, ConcurrencyLimit, Hedging, RateLimit, type RetryPolicy } from "effect-http-resilience"
import type { PolicySpec } from "./benchClient.js"

export const policyOptions = (spec: PolicySpec): RetryPolicy.Options => ({
  retryBudget: spec.retryBudget,
  circuitBreaker: spec.circuitBreaker === undefined ? undefined : CircuitBreaker.perOrigin(spec.circuitBreaker),
  hedging:
    spec.hedging === undefined
      ? undefined
      : "percentile" in spec.hedging
        ? Hedging.percentile(spec.hedging.percentile)
        : Hedging.after(spec.hedging.delay),
  concurrencyLimit:
    spec.concurrencyLimit === undefined
      ? undefined
      : "adaptive" in spec.concurrencyLimit
        ? ConcurrencyLimit.adaptive({ algorithm: spec.concurrencyLimit.algorithm })
        : ConcurrencyLimit.fixed(spec.concurrencyLimit.limit),
  rateLimit: spec.rateLimit === undefined ? undefined : RateLimit.make(spec.rateLimit),
  rateLimitHeaders: spec.rateLimitHeaders === undefined ? undefined : RateLimit.fromHeaders()
})
