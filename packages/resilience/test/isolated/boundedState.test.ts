// @generated from templates/test/isolated/boundedState.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Per-origin state is bounded (issue #16): the budget's and the breaker's entries are forgotten
 * once idle (an hour unused; an open circuit an hour after its break ended; an isolated one
 * never), and a table holds at most 10,000 origins. On the TestClock; a table looks for idle
 * entries when a new origin arrives, at most once a minute.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as RetryBudget from "../../src/RetryBudget.js"

const origin = "http://kept.test:80"
let others = 0
const another = () => `http://other-${others++}.test:80`

const drained = Effect.gen(function* () {
  const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 10 }))
  for (let i = 0; i < 6; i++) yield* budget.onFailure(origin, "transient-status")
  expect(yield* budget.tryRetry(origin, "transient-status")).toBe(false)
  expect(yield* budget.balance(origin)).toBe(4)
  return budget
})

const breakerWith = (options: CircuitBreaker.Options) =>
  Effect.map(CircuitBreaker.make(options), (breaker) => {
    const report = (at: string, outcome: CircuitBreaker.Outcome) =>
      Effect.flatMap(breaker.acquire(at), (permit) => permit.report(outcome))
    // A use of an origin never seen, each time.
    const touch = Effect.suspend(() => report(another(), CircuitBreaker.success))
    return { breaker, fail: report(origin, CircuitBreaker.failure()), touch }
  })

describe("idle entries are forgotten", () => {
  it.effect("a token bucket drained by failures, after an idle hour (it starts over full)", () =>
    Effect.gen(function* () {
      const budget = yield* drained
      yield* TestClock.adjust("59 minutes")
      yield* budget.onRequest(another())
      expect(yield* budget.balance(origin)).toBe(4)
      yield* TestClock.adjust("1 minute")
      yield* budget.onRequest(another())
      expect(yield* budget.balance(origin)).toBe(10)
    })
  )

  it.effect("a consecutive breaker's failure streak, after an idle hour", () =>
    Effect.gen(function* () {
      const { breaker, fail, touch } = yield* breakerWith({ tripPolicy: CircuitBreaker.consecutive(3) })
      yield* fail
      yield* fail
      yield* TestClock.adjust("1 hour")
      yield* touch
      // Remembered, the streak would be 3 now and the circuit open.
      yield* fail
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Closed" })
      yield* fail
      yield* fail
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Open" })
    })
  )

  it.effect("an open breaker, an idle hour after its break ended, not before", () =>
    Effect.gen(function* () {
      const { breaker, fail, touch } = yield* breakerWith({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds"
      })
      yield* fail
      yield* TestClock.adjust("1 hour")
      yield* touch
      // An hour since its last use, but only 59 min 55 s since the break ended: kept.
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Open" })
      yield* TestClock.adjust("1 minute")
      yield* touch
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
    })
  )

  it.effect("an isolated circuit is kept, idle or not, and never evicted to make room", () =>
    Effect.gen(function* () {
      const { breaker } = yield* breakerWith({ tripPolicy: CircuitBreaker.consecutive(1) })
      yield* breaker.isolate(origin)
      yield* TestClock.adjust("1 day")
      for (let i = 0; i <= 10_000; i++) yield* Effect.ignore(breaker.acquire(`http://o${i}.test:80`))
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Isolated" })
    })
  )
})

describe("a table holds at most 10,000 origins", () => {
  it.effect("the least recently used origin goes first", () =>
    Effect.gen(function* () {
      const budget = yield* drained
      yield* TestClock.adjust("1 second")
      const fail = (i: number) => budget.onFailure(`http://o${i}.test:80`, "transient-status")
      for (let i = 0; i < 9_999; i++) yield* fail(i)
      // 10,000 origins: all kept.
      expect(yield* budget.balance(origin)).toBe(4)
      yield* fail(9_999)
      expect(yield* budget.balance(origin)).toBe(10)
      expect(yield* budget.balance("http://o0.test:80")).toBe(9)
      yield* fail(10_000)
      expect(yield* budget.balance("http://o0.test:80")).toBe(10)
      expect(yield* budget.balance("http://o1.test:80")).toBe(9)
    })
  )
})
