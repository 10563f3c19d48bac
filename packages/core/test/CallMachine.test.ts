import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as CallMachine from "../src/CallMachine.js"

const limits = (overrides: Partial<CallMachine.Limits> = {}): CallMachine.Limits => ({
  attemptTimeoutMillis: 10_000,
  totalTimeoutMillis: 30_000,
  maxDelayMillis: 20_000,
  whenRetryAfterExceedsMaxDelay: "wait-max-delay",
  ...overrides
})
const delay = (millis: number): CallMachine.ScheduleAnswer => ({ _tag: "Delay", millis })

describe("CallMachine", () => {
  it("sends the first attempt at once, limited by the attempt timeout", () => {
    const call = CallMachine.start(limits(), 1_000)
    expect(CallMachine.first(call, 1_000, 0)).toEqual({
      _tag: "Send",
      attempt: 1,
      waitMillis: 0,
      limitMillis: 10_000,
      coolDownMillis: 0
    })
  })

  it("limits an attempt to what is left of the total timeout after the wait", () => {
    const call = CallMachine.start(limits(), 0)
    expect(CallMachine.afterFailure(call, 2, 25_000, undefined, delay(1_000), 0)).toEqual({
      _tag: "Send",
      attempt: 3,
      waitMillis: 1_000,
      limitMillis: 4_000,
      coolDownMillis: 0
    })
  })

  it("stops on a refusal before the schedule is heard, and on the schedule's own reason", () => {
    const call = CallMachine.start(limits(), 0)
    expect(CallMachine.afterFailure(call, 1, 0, "not-idempotent", delay(0), 0)).toEqual({
      _tag: "Stop",
      reason: "not-idempotent"
    })
    expect(CallMachine.afterFailure(call, 3, 0, undefined, { _tag: "Done", reason: "attempts-exhausted" }, 0)).toEqual({
      _tag: "Stop",
      reason: "attempts-exhausted"
    })
  })

  it("does not start a wait that would end at or past the deadline", () => {
    const call = CallMachine.start(limits(), 0)
    expect(CallMachine.afterFailure(call, 1, 29_000, undefined, delay(1_000), 0)).toEqual({
      _tag: "Stop",
      reason: "deadline-exceeded"
    })
    expect(CallMachine.afterFailure(call, 1, 28_999, undefined, delay(1_000), 0)._tag).toBe("Send")
  })

  it("stretches a wait to the origin's cool-down, within the cap", () => {
    const call = CallMachine.start(limits(), 0)
    expect(CallMachine.first(call, 0, 5_000)).toEqual({
      _tag: "Send",
      attempt: 1,
      waitMillis: 5_000,
      limitMillis: 10_000,
      coolDownMillis: 5_000
    })
    expect(CallMachine.afterFailure(call, 1, 0, undefined, delay(2_000), 5_000)).toMatchObject({
      waitMillis: 5_000,
      coolDownMillis: 3_000
    })
    expect(CallMachine.first(call, 0, 60_000)).toMatchObject({ waitMillis: 20_000, coolDownMillis: 20_000 })
  })

  it("gives up on a cool-down over the cap when the policy says so", () => {
    const call = CallMachine.start(limits({ whenRetryAfterExceedsMaxDelay: "give-up" }), 0)
    expect(CallMachine.first(call, 0, 20_001)).toEqual({ _tag: "Stop", reason: "retry-after-exceeds-max-delay" })
    expect(CallMachine.first(call, 0, 20_000)._tag).toBe("Send")
  })

  it("stops a planned retry the budget refuses", () => {
    const call = CallMachine.start(limits(), 0)
    const planned = CallMachine.afterFailure(call, 1, 0, undefined, delay(500), 0)
    expect(CallMachine.afterBudget(planned, true)).toBe(planned)
    expect(CallMachine.afterBudget(planned, false)).toEqual({ _tag: "Stop", reason: "retry-budget-exhausted" })
  })

  it("cools an origin down only for a 429 with a Retry-After", () => {
    expect(CallMachine.coolDownAsked(429, 3_000)).toBe(3_000)
    expect(CallMachine.coolDownAsked(429, undefined)).toBe(0)
    expect(CallMachine.coolDownAsked(503, 3_000)).toBe(0)
    expect(CallMachine.coolDownAsked(429, 0)).toBe(0)
  })

  it("never plans a send that ends past the deadline, nor a wait past the cap beyond the schedule's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 120_000 }),
        fc.boolean(),
        (total, attemptTimeout, now, planned, coolDown, giveUp) => {
          const machine = limits({
            totalTimeoutMillis: total,
            attemptTimeoutMillis: attemptTimeout,
            whenRetryAfterExceedsMaxDelay: giveUp ? "give-up" : "wait-max-delay"
          })
          const call = CallMachine.start(machine, 0)
          const answer = CallMachine.afterFailure(call, 1, now, undefined, delay(planned), coolDown)
          if (answer._tag === "Stop") return
          expect(now + answer.waitMillis).toBeLessThan(total)
          expect(now + answer.waitMillis + answer.limitMillis).toBeLessThanOrEqual(total)
          expect(answer.limitMillis).toBeLessThanOrEqual(attemptTimeout)
          expect(answer.waitMillis).toBeLessThanOrEqual(Math.max(planned, machine.maxDelayMillis))
          expect(answer.waitMillis).toBeGreaterThanOrEqual(Math.min(coolDown, machine.maxDelayMillis))
        }
      ),
      { numRuns: 100 }
    )
  })
})
