// @generated from templates/test/clockStep.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A wall clock stepped by an hour either way changes no decision of the budget or the breaker
 * (issue #16): both measure time on the Clock's monotonic nanos (`process.hrtime` on the live
 * Clock). On the live Clock, with `Date.now` stepped; real waits of about a second, and no upper
 * bound on any of them.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as RetryBudget from "../src/RetryBudget.js"

const origin = "http://stepped.test:80"
const hour = 60 * 60 * 1000

const stepWallClock = (offsetMillis: number) =>
  Effect.sync(() => {
    const realNow = Date.now
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + offsetMillis)
  })

afterEach(() => {
  vi.restoreAllMocks()
})

describe.each([
  ["back", -hour],
  ["forward", hour]
])("the wall clock stepped %s an hour", (_, offset) => {
  it.live("an open breaker stays open for its break, then lets a probe through", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "800 millis"
      })
      yield* Effect.flatMap(breaker.acquire(origin), (permit) => permit.report(CircuitBreaker.failure()))
      yield* stepWallClock(offset)
      expect((yield* Effect.flip(breaker.acquire(origin)))._tag).toBe("CircuitOpen")
      yield* Effect.sleep("1 second")
      const probe = yield* breaker.acquire(origin)
      expect(probe.probe).toBe(true)
    })
  )

  it.live("the budget's floor, once spent, lends again after its ttl, not before", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.finagle({ ratio: 0, minPerSecond: 2, ttl: "1 second" }))
      const retry = budget.tryRetry(origin, "transient-status")
      expect([yield* retry, yield* retry, yield* retry]).toEqual([true, true, false])
      yield* stepWallClock(offset)
      expect(yield* retry).toBe(false)
      yield* Effect.sleep("1200 millis")
      expect([yield* retry, yield* retry, yield* retry]).toEqual([true, true, false])
    })
  )
})
