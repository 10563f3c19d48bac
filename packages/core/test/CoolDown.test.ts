import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as CoolDown from "../src/CoolDown.js"

const origin = "https://api.example.com:443"

describe("CoolDownTable", () => {
  it("counts down from the time asked, and forgets a cool-down once it ends", () => {
    const table = new CoolDown.CoolDownTable()
    table.start(origin, 30_000, 1_000)
    expect(table.left(origin, 1_000)).toBe(30_000)
    expect(table.left(origin, 21_000)).toBe(10_000)
    expect(table.left("https://other.example.com:443", 21_000)).toBe(0)
    expect(table.left(origin, 31_000)).toBe(0)
    expect(table.size).toBe(0)
  })

  it("lengthens a cool-down, never shortens it", () => {
    const table = new CoolDown.CoolDownTable()
    table.start(origin, 10_000, 0)
    table.start(origin, 2_000, 1_000)
    expect(table.left(origin, 1_000)).toBe(9_000)
    table.start(origin, 20_000, 1_000)
    expect(table.left(origin, 1_000)).toBe(20_000)
  })

  it("ignores a cool-down of nothing", () => {
    const table = new CoolDown.CoolDownTable()
    table.start(origin, 0, 0)
    table.start(origin, Number.NaN, 0)
    expect(table.size).toBe(0)
  })

  it("cuts a cool-down to a day, however long the time asked", () => {
    const table = new CoolDown.CoolDownTable()
    const tenYears = 10 * 365 * 86_400_000
    table.start(origin, tenYears, 1_000)
    expect(table.left(origin, 1_000)).toBe(CoolDown.maxMillis)
    expect(CoolDown.maxMillis).toBe(86_400_000)
    table.start("https://other.example.com:443", Number.POSITIVE_INFINITY, 0)
    expect(table.left("https://other.example.com:443", 0)).toBe(CoolDown.maxMillis)
  })

  it("holds at most its capacity, dropping the cool-down that ends first", () => {
    const table = new CoolDown.CoolDownTable(2)
    table.start("a", 5_000, 0)
    table.start("b", 1_000, 0)
    table.start("c", 3_000, 0)
    expect(table.size).toBe(2)
    expect(table.left("b", 0)).toBe(0)
    expect(table.left("a", 0)).toBe(5_000)
    expect(table.left("c", 0)).toBe(3_000)
  })

  it("never holds more than its capacity, whatever arrives", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 10_000 })), { maxLength: 200 }),
        (starts) => {
          const table = new CoolDown.CoolDownTable(5)
          let now = 0
          for (const [host, millis] of starts) {
            now += 10
            table.start(`h${host}`, millis, now)
            expect(table.size).toBeLessThanOrEqual(5)
          }
        }
      ),
      { numRuns: 100 }
    )
  })
})
