import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  awsQuotaDefaults,
  checkSettings,
  type FinagleSettings,
  finagleDefaults,
  isIdle,
  makeFleetShare,
  makeRetryBudgetState,
  type RetryBudgetSettings,
  tokenBucketDefaults,
  WindowedAdder
} from "../src/RetryBudget.js"

const finagle = (overrides: Partial<Omit<FinagleSettings, "_tag">> = {}): FinagleSettings => ({
  ...finagleDefaults,
  ...overrides
})

/** Runs `requests` calls at `nowMillis`, each followed by one retry request; returns the retries allowed. */
const depositThenRetry = (settings: RetryBudgetSettings, requests: number): number => {
  const budget = makeRetryBudgetState(settings, 0)
  let retried = 0
  for (let i = 0; i < requests; i++) {
    budget.onRequest(0)
    if (budget.tryRetry(0, "transient-status")) retried++
    else expect(budget.balance(0)).toBe(0)
  }
  return retried
}

// twitter/util WindowedAdderTest, on a 3 s range in 3 slices.
describe("WindowedAdder (twitter/util)", () => {
  it("sums things up when time stands still", () => {
    const adder = new WindowedAdder(3000, 3, 0)
    adder.add(0, 1)
    expect(adder.sum(0)).toBe(1)
    adder.add(0, 1)
    expect(adder.sum(0)).toBe(2)
    adder.add(0, 3)
    expect(adder.sum(0)).toBe(5)
  })

  it("maintains a sliding window", () => {
    const adder = new WindowedAdder(3000, 3, 0)
    adder.add(0, 1)
    expect(adder.sum(0)).toBe(1)
    expect(adder.sum(1000)).toBe(1)
    adder.add(1000, 2)
    expect(adder.sum(1000)).toBe(3)
    expect(adder.sum(2000)).toBe(3)
    expect(adder.sum(3000)).toBe(2)
    expect(adder.sum(4000)).toBe(0)
  })

  it("maintains a sliding window when slices are skipped", () => {
    const adder = new WindowedAdder(3000, 3, 0)
    adder.add(0, 1)
    expect(adder.sum(0)).toBe(1)
    adder.add(1000, 2)
    expect(adder.sum(1000)).toBe(3)
    adder.add(2000, 1)
    expect(adder.sum(2000)).toBe(4)
    expect(adder.sum(4000)).toBe(1)
    expect(adder.sum(104_000)).toBe(0)
    adder.add(104_000, 100)
    expect(adder.sum(105_000)).toBe(100)
    adder.add(105_000, 100)
    adder.add(106_000, 100)
    expect(adder.sum(106_000)).toBe(300)
    expect(adder.sum(206_000)).toBe(0)
  })

  it("maintains negative sums", () => {
    const adder = new WindowedAdder(3000, 3, 0)
    adder.add(0, -2)
    expect(adder.sum(0)).toBe(-2)
    adder.add(0, 4)
    expect(adder.sum(0)).toBe(2)
    adder.add(1000, -2)
    expect(adder.sum(1000)).toBe(0)
    adder.add(1000, -2)
    expect(adder.sum(1000)).toBe(-2)
    adder.add(2000, -2)
    expect(adder.sum(2000)).toBe(-4)
    expect(adder.sum(3000)).toBe(-6)
    expect(adder.sum(4000)).toBe(-2)
    expect(adder.sum(5000)).toBe(0)
    expect(adder.sum(105_000)).toBe(0)
  })
})

describe("Finagle budget", () => {
  it("starts with the floor: minPerSecond × ttl retries, then refuses", () => {
    const budget = makeRetryBudgetState(finagle(), 0)
    expect(budget.balance(0)).toBe(100)
    for (let i = 0; i < 100; i++) expect(budget.tryRetry(0, "transient-status")).toBe(true)
    expect(budget.tryRetry(0, "transient-status")).toBe(false)
    expect(budget.balance(0)).toBe(0)
  })

  it("a refused retry leaves the balance untouched", () => {
    const budget = makeRetryBudgetState(finagle({ minPerSecond: 0 }), 0)
    for (let i = 0; i < 9; i++) budget.onRequest(0)
    expect(budget.tryRetry(0, "timeout")).toBe(false)
    budget.onRequest(0)
    expect(budget.tryRetry(0, "timeout")).toBe(true)
  })

  it("every 10 requests buy one retry at ratio 0.1, on top of the floor", () => {
    const budget = makeRetryBudgetState(finagle(), 0)
    for (let i = 0; i < 1000; i++) budget.onRequest(0)
    expect(budget.balance(0)).toBe(200)
    let allowed = 0
    while (budget.tryRetry(0, "transient-status")) allowed++
    expect(allowed).toBe(200)
  })

  it("the floor spent at 0 is back exactly ttl later when nothing happened in between", () => {
    const budget = makeRetryBudgetState(finagle(), 0)
    while (budget.tryRetry(0, "transient-status")) {}
    expect(budget.tryRetry(9_999, "transient-status")).toBe(false)
    const fresh = makeRetryBudgetState(finagle(), 0)
    while (fresh.tryRetry(0, "transient-status")) {}
    expect(fresh.balance(10_000)).toBe(100)
  })

  it("expiry is counted in slices of ttl/10 that start at the first access after the last: about ttl", () => {
    const budget = makeRetryBudgetState(finagle(), 0)
    while (budget.tryRetry(0, "transient-status")) {}
    // A look at 9.999 s starts a new slice there; the withdrawals of the slice that began at 0
    // then last until that slice has aged nine slices more: one more second.
    expect(budget.balance(9_999)).toBe(0)
    expect(budget.balance(10_000)).toBe(0)
    expect(budget.balance(10_998)).toBe(0)
    expect(budget.balance(10_999)).toBe(100)
  })

  it("a withdrawal counts for at least 9/10 of ttl, which is why the bound below holds within 9/10 of ttl", () => {
    // Spent at 999, in the slice that began at 0; the slice closes at 1000 and is overwritten
    // once nine more slice-widths have passed: at 10 000, 9.001 s after the spending. (Each
    // look closes slices, so each instant is looked at on a budget of its own.)
    const spentAt999 = () => {
      const budget = makeRetryBudgetState(finagle(), 0)
      while (budget.tryRetry(999, "transient-status")) {}
      expect(budget.balance(1_000)).toBe(0)
      return budget
    }
    expect(spentAt999().balance(9_999)).toBe(0)
    expect(spentAt999().balance(10_000)).toBe(100)
  })

  it("deposits expire after ttl, so past requests stop paying for retries", () => {
    const budget = makeRetryBudgetState(finagle({ minPerSecond: 0 }), 0)
    for (let i = 0; i < 100; i++) budget.onRequest(0)
    expect(budget.balance(0)).toBe(10)
    expect(budget.balance(9_000)).toBe(10)
    expect(budget.balance(10_000)).toBe(0)
    expect(budget.tryRetry(10_000, "transient-status")).toBe(false)
  })

  // Finagle's RetryBudgetTest.testBudget: time frozen, 10 000 requests each followed by a retry request.
  const finagleCases: ReadonlyArray<readonly [number, number, number, number]> = [
    // ttl s, minPerSecond, ratio, retries Finagle expects (± 1 in its test)
    [60, 0, 0.1, 1000],
    [60, 0, 0.5, 5000],
    [60, 0, 0.25, 2500],
    [60, 0, 0.75, 7500],
    [60, 0, 0.99, 9900],
    [60, 0, 0.999, 9990],
    [60, 0, 0.9999, 9999],
    [60, 0, 0.01, 100],
    [60, 0, 0.001, 10],
    [60, 0, 0.0001, 1],
    [1, 10, 0, 10],
    [2, 5, 0, 10],
    [1, 10, 0.1, 1010],
    [2, 5, 0.5, 5010]
  ]
  for (const [ttlSeconds, minPerSecond, ratio, expected] of finagleCases) {
    it(`ttl ${ttlSeconds} s, minPerSecond ${minPerSecond}, ratio ${ratio}: ${expected} retries (± 1)`, () => {
      const settings = finagle({ ttlMillis: ttlSeconds * 1000, minPerSecond, ratio })
      expect(makeRetryBudgetState(settings, 0).balance(0)).toBe(ttlSeconds * minPerSecond)
      expect(Math.abs(depositThenRetry(settings, 10_000) - expected)).toBeLessThanOrEqual(1)
    })
  }

  it("ratio 0.1 with a floor of 10 per second over 10 s: exactly 1100 retries for 10 000 requests", () => {
    expect(depositThenRetry(finagle(), 10_000)).toBe(1100)
  })

  it("a ratio above 1 lets each request buy several retries (Finagle: percentCanRetry 2.0)", () => {
    const budget = makeRetryBudgetState(finagle({ ratio: 2, minPerSecond: 0, ttlMillis: 60_000 }), 0)
    expect(budget.tryRetry(0, "transient-status")).toBe(false)
    for (let i = 0; i < 10_000; i++) budget.onRequest(0)
    expect(budget.balance(0)).toBe(20_000)
  })

  it("ratio 0 and no floor never allows a retry (Finagle's Empty)", () => {
    expect(depositThenRetry(finagle({ ratio: 0, minPerSecond: 0 }), 1000)).toBe(0)
  })

  // The invariant a budget exists for: over a stretch shorter than 9/10 of ttl (nothing it
  // records expires sooner), N requests buy at most ratio × N + minPerSecond × ttl retries.
  const event = fc.record({ at: fc.integer({ min: 0, max: 9_000 }), request: fc.boolean() })
  it("N requests within 9/10 of ttl get at most ratio × N + minPerSecond × ttl retries", () =>
    fc.assert(
      fc.property(
        fc.constantFrom(0, 0.05, 0.1, 0.2, 0.25, 0.5, 1),
        fc.integer({ min: 0, max: 20 }),
        fc.constantFrom(1, 5, 10, 60),
        fc.array(event, { maxLength: 600 }),
        (ratio, minPerSecond, ttlSeconds, events) => {
          const ttlMillis = ttlSeconds * 1000
          const budget = makeRetryBudgetState(finagle({ ratio, minPerSecond, ttlMillis }), 0)
          const sorted = events
            .map((e) => ({ ...e, at: Math.floor((e.at * (ttlMillis * 0.9)) / 9_000) }))
            .sort((a, b) => a.at - b.at)
          let requests = 0
          let retries = 0
          for (const { at, request } of sorted) {
            if (request) {
              budget.onRequest(at)
              requests++
            } else if (budget.tryRetry(at, "transient-status")) {
              retries++
            }
          }
          expect(retries).toBeLessThanOrEqual(Math.floor(ratio * requests + 1e-9) + minPerSecond * ttlSeconds)
        }
      )
    ))

  it("the floor alone: retries spread over any span get minPerSecond × ttl per ttl, never more", () =>
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 400 }), (times) => {
        const budget = makeRetryBudgetState(finagle({ ratio: 0, minPerSecond: 2, ttlMillis: 5_000 }), 0)
        const allowedAt = [...times].sort((a, b) => a - b).filter((at) => budget.tryRetry(at, "timeout"))
        // Any 4.5 s stretch (9/10 of ttl) holds at most 2 × 5 allowed retries.
        for (let i = 0; i < allowedAt.length; i++) {
          const inStretch = allowedAt.filter((at) => at >= allowedAt[i]! && at - allowedAt[i]! <= 4_500)
          expect(inStretch.length).toBeLessThanOrEqual(10)
        }
      })
    ))

  it("is pristine once everything it recorded has expired", () => {
    const budget = makeRetryBudgetState(finagle(), 0)
    expect(budget.isPristine(0)).toBe(true)
    budget.onRequest(0)
    expect(budget.isPristine(5_000)).toBe(false)
    expect(budget.isPristine(10_000)).toBe(true)
  })
})

describe("token bucket (gRPC A6)", () => {
  it("starts full; each failure takes a token; retries stop at half (10 tokens: 4 failures retry, the 5th not)", () => {
    const budget = makeRetryBudgetState(tokenBucketDefaults, 0)
    expect(budget.balance(0)).toBe(10)
    const decisions: Array<boolean> = []
    for (let i = 0; i < 6; i++) {
      budget.onFailure(0, "transient-status")
      decisions.push(budget.tryRetry(0, "transient-status"))
    }
    expect(decisions).toEqual([true, true, true, true, false, false])
    expect(budget.balance(0)).toBe(4)
  })

  it("a success adds tokenRatio; retries resume as soon as the count is above half again", () => {
    const budget = makeRetryBudgetState(tokenBucketDefaults, 0)
    for (let i = 0; i < 5; i++) budget.onFailure(0, "timeout")
    expect(budget.tryRetry(0, "timeout")).toBe(false)
    budget.onSuccess(0, undefined)
    expect(budget.balance(0)).toBe(5.1)
    expect(budget.tryRetry(0, "timeout")).toBe(true)
  })

  it("ten successes of 0.1 add exactly one token (thousandths, no floating-point drift)", () => {
    const budget = makeRetryBudgetState(tokenBucketDefaults, 0)
    for (let i = 0; i < 6; i++) budget.onFailure(0, "connection")
    for (let i = 0; i < 10; i++) budget.onSuccess(0, undefined)
    expect(budget.balance(0)).toBe(5)
    expect(budget.tryRetry(0, "connection")).toBe(false)
  })

  it("never goes below 0 nor above maxTokens; tryRetry itself costs nothing", () => {
    const budget = makeRetryBudgetState({ _tag: "TokenBucket", maxTokens: 3, tokenRatio: 1 }, 0)
    for (let i = 0; i < 10; i++) budget.onFailure(0, "transient-status")
    expect(budget.balance(0)).toBe(0)
    for (let i = 0; i < 10; i++) budget.onSuccess(0, undefined)
    expect(budget.balance(0)).toBe(3)
    for (let i = 0; i < 10; i++) expect(budget.tryRetry(0, "transient-status")).toBe(true)
  })

  it("ignores decimal places of tokenRatio beyond 3", () => {
    const budget = makeRetryBudgetState({ _tag: "TokenBucket", maxTokens: 10, tokenRatio: 0.5466 }, 0)
    budget.onFailure(0, "transient-status")
    budget.onSuccess(0, undefined)
    expect(budget.balance(0)).toBe(9.546)
  })
})

describe("AWS standard retry quota", () => {
  it("500 tokens at 5 a retry: exactly 100 retries, then refusals that take nothing", () => {
    const budget = makeRetryBudgetState(awsQuotaDefaults, 0)
    let allowed = 0
    while (budget.tryRetry(0, "transient-status")) allowed++
    expect(allowed).toBe(100)
    expect(budget.balance(0)).toBe(0)
  })

  it("a retry after a timeout costs 10; a connection failure 5", () => {
    const budget = makeRetryBudgetState(awsQuotaDefaults, 0)
    expect(budget.tryRetry(0, "timeout")).toBe(true)
    expect(budget.balance(0)).toBe(490)
    expect(budget.tryRetry(0, "connection")).toBe(true)
    expect(budget.balance(0)).toBe(485)
  })

  it("refuses a retry that costs more than is left", () => {
    const budget = makeRetryBudgetState({ ...awsQuotaDefaults, capacity: 12 }, 0)
    expect(budget.tryRetry(0, "timeout")).toBe(true)
    expect(budget.tryRetry(0, "timeout")).toBe(false)
    expect(budget.tryRetry(0, "transient-status")).toBe(false)
    expect(budget.balance(0)).toBe(2)
  })

  it("a successful retry puts back its cost; a first-attempt success puts back 1; never above capacity", () => {
    const budget = makeRetryBudgetState(awsQuotaDefaults, 0)
    budget.tryRetry(0, "timeout")
    budget.tryRetry(0, "transient-status")
    expect(budget.balance(0)).toBe(485)
    budget.onSuccess(0, "timeout")
    expect(budget.balance(0)).toBe(495)
    budget.onSuccess(0, undefined)
    expect(budget.balance(0)).toBe(496)
    for (let i = 0; i < 10; i++) budget.onSuccess(0, "transient-status")
    expect(budget.balance(0)).toBe(500)
  })

  it("failures alone cost nothing", () => {
    const budget = makeRetryBudgetState(awsQuotaDefaults, 0)
    for (let i = 0; i < 1000; i++) budget.onFailure(0, "timeout")
    expect(budget.balance(0)).toBe(500)
  })
})

describe("no budget", () => {
  it("allows every retry and reads as infinite", () => {
    const budget = makeRetryBudgetState({ _tag: "None" }, 0)
    for (let i = 0; i < 10_000; i++) expect(budget.tryRetry(0, "timeout")).toBe(true)
    expect(budget.balance(0)).toBe(Number.POSITIVE_INFINITY)
  })
})

describe("checkSettings", () => {
  const cases: ReadonlyArray<readonly [string, RetryBudgetSettings, string | undefined]> = [
    ["Finagle defaults", finagleDefaults, undefined],
    ["ratio 0 with a floor", finagle({ ratio: 0 }), undefined],
    ["negative ratio", finagle({ ratio: -0.1 }), "ratio"],
    ["ratio above 1000", finagle({ ratio: 1001 }), "ratio"],
    ["ratio too small to count", finagle({ ratio: 0.00001 }), "ratio"],
    ["NaN ratio", finagle({ ratio: Number.NaN }), "ratio"],
    ["fractional floor", finagle({ minPerSecond: 1.5 }), "minPerSecond"],
    ["negative floor", finagle({ minPerSecond: -1 }), "minPerSecond"],
    ["ttl under 1 s", finagle({ ttlMillis: 999 }), "ttl"],
    ["ttl over 60 s", finagle({ ttlMillis: 60_001 }), "ttl"],
    ["token bucket defaults", tokenBucketDefaults, undefined],
    ["0 tokens", { ...tokenBucketDefaults, maxTokens: 0 }, "maxTokens"],
    ["1001 tokens", { ...tokenBucketDefaults, maxTokens: 1001 }, "maxTokens"],
    ["fractional tokens", { ...tokenBucketDefaults, maxTokens: 2.5 }, "maxTokens"],
    ["tokenRatio 0", { ...tokenBucketDefaults, tokenRatio: 0 }, "tokenRatio"],
    ["AWS defaults", awsQuotaDefaults, undefined],
    ["AWS capacity 0", { ...awsQuotaDefaults, capacity: 0 }, "capacity"],
    ["AWS retry cost 0", { ...awsQuotaDefaults, retryCost: 0 }, "retryCost"],
    ["AWS timeout cost 2.5", { ...awsQuotaDefaults, timeoutRetryCost: 2.5 }, "timeoutRetryCost"],
    ["AWS no-retry increment 0", { ...awsQuotaDefaults, noRetryIncrement: 0 }, undefined],
    ["AWS no-retry increment -1", { ...awsQuotaDefaults, noRetryIncrement: -1 }, "noRetryIncrement"]
  ]
  for (const [label, settings, option] of cases) {
    it(`${label}: ${option === undefined ? "valid" : `names "${option}"`}`, () => {
      expect(checkSettings(settings)?.option).toBe(option)
    })
  }
})

describe("isIdle: when an origin's budget may be forgotten", () => {
  const hour = 60 * 60 * 1000

  it("a Finagle budget once its ttl passed without calls, as it is then pristine", () => {
    const budget = makeRetryBudgetState(finagle({ ttlMillis: 10_000 }), 0)
    budget.onRequest(0)
    expect(budget.tryRetry(0, "transient-status")).toBe(true)
    expect(isIdle(budget, 5000, 0)).toBe(false)
    expect(isIdle(budget, 11_000, 0)).toBe(true)
  })

  it("a drained token bucket or AWS quota after an idle hour, not before", () => {
    for (const settings of [tokenBucketDefaults, awsQuotaDefaults] as const) {
      const budget = makeRetryBudgetState(settings, 0)
      for (let i = 0; i < 200; i++) {
        budget.onFailure(0, "transient-status")
        budget.tryRetry(0, "transient-status")
      }
      expect(budget.isPristine(hour)).toBe(false)
      expect(isIdle(budget, hour - 1, 0)).toBe(false)
      expect(isIdle(budget, hour, 0)).toBe(true)
      expect(isIdle(budget, 2 * hour, hour + 1)).toBe(false) // counted from the last use
    }
  })

  it("a full token bucket at once", () => {
    expect(isIdle(makeRetryBudgetState(tokenBucketDefaults, 0), 0, 0)).toBe(true)
  })
})

describe("a fleet member's share of a Finagle budget (makeFleetShare)", () => {
  // ratio 0.1 (a retry costs 10,000 units), a floor of 10 retries over the 10 s window.
  const settings = finagle({ minPerSecond: 1 })
  const retriesAllowed = (share: ReturnType<typeof makeFleetShare>, nowMillis: number): number => {
    let allowed = 0
    while (allowed < 1000 && share.tryRetry(nowMillis, "transient-status")) allowed++
    return allowed
  }

  it("before the fleet has said anything, decides as this process's own budget", () => {
    const share = makeFleetShare(settings, 0)
    for (let i = 0; i < 20; i++) share.onRequest(0)
    expect(share.balance(0)).toBe(12)
    expect(retriesAllowed(share, 0)).toBe(12)
  })

  it("pays for the retries the fleet allowed: alone, it never spends what it spent through the fleet", () => {
    const share = makeFleetShare(settings, 0)
    for (let i = 0; i < 7; i++) {
      share.heard(1_000_000, 0)
      share.paidByFleet(0)
    }
    // The fleet said it has plenty; this process's own floor of 10 had 7 spent through it.
    expect(retriesAllowed(share, 1)).toBe(3)
    // A retry the fleet allows past this process's own floor costs it nothing more.
    share.paidByFleet(1)
    expect(share.balance(1)).toBe(0)
  })

  it("no retry while the fleet's last word says it has none left, however much this process holds", () => {
    const share = makeFleetShare(settings, 0)
    share.heard(9_999, 0)
    expect(share.balance(0)).toBe(0)
    expect(share.tryRetry(0, "transient-status")).toBe(false)
    // Its own requests since count: ten deposits of 1,000 pay for one retry.
    for (let i = 0; i < 10; i++) share.onRequest(1)
    expect(retriesAllowed(share, 1)).toBe(1)
  })

  it("counts down the fleet's last word by what this process spends alone", () => {
    const share = makeFleetShare(settings, 0)
    share.heard(30_000, 0)
    expect(retriesAllowed(share, 0)).toBe(3)
    // A new word replaces it.
    share.heard(20_000, 5)
    expect(retriesAllowed(share, 5)).toBe(2)
  })

  it("forgets the fleet's word after the budget's ttl: then this process's own budget decides", () => {
    const share = makeFleetShare(settings, 0)
    share.heard(0, 0)
    expect(share.tryRetry(9_999, "transient-status")).toBe(false)
    expect(share.isPristine(9_999)).toBe(false)
    expect(share.tryRetry(10_000, "transient-status")).toBe(true)
    expect(retriesAllowed(share, 10_000)).toBe(9)
  })

  it("never allows more than this process's own budget, nor more than the fleet's word allows, whatever the order", () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant({ _tag: "request" } as const),
            fc.constant({ _tag: "fleet-allowed" } as const),
            fc.constant({ _tag: "alone" } as const),
            fc.record({ _tag: fc.constant("heard" as const), balance: fc.integer({ min: 0, max: 200_000 }) })
          ),
          { minLength: 50, maxLength: 300 }
        ),
        (events) => {
          const share = makeFleetShare(settings, 0)
          // This process without the fleet, paying for every retry it made.
          const alone = makeRetryBudgetState(settings, 0)
          // The fleet's last word, less what this process spent alone since, plus its deposits.
          let word: number | undefined
          for (const event of events) {
            switch (event._tag) {
              case "request":
                share.onRequest(0)
                alone.onRequest(0)
                if (word !== undefined) word += 1000
                break
              case "heard":
                share.heard(event.balance, 0)
                word = event.balance
                break
              case "fleet-allowed":
                share.paidByFleet(0)
                alone.tryRetry(0, "transient-status")
                break
              case "alone":
                if (share.tryRetry(0, "transient-status")) {
                  expect(alone.tryRetry(0, "transient-status")).toBe(true)
                  if (word !== undefined) {
                    expect(word).toBeGreaterThanOrEqual(10_000)
                    word -= 10_000
                  }
                }
            }
          }
        }
      )
    ))
})
