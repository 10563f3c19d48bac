import { describe, expect, it } from "@effect/vitest"
import { ChaosState, otherPaths } from "../src/internal/state.js"

describe("ChaosState", () => {
  it("counts paths beyond maxTrackedPaths together, so a client cannot grow the table without bound", () => {
    const state = new ChaosState({ maxRetryKeys: 10, maxTrackedPaths: 2, maxConnections: 10 })
    for (const path of ["/a", "/b", "/c", "/d", "/a"]) {
      state.requestStarted(path)
      state.requestFinished()
    }
    expect(state.snapshot().requests).toEqual({
      total: 5,
      preflights: 0,
      inFlight: 0,
      abandoned: 0,
      byPath: { "/a": 2, "/b": 1, [otherPaths]: 2 },
      byRetryKey: {}
    })
  })

  it("shortens very long paths before counting them", () => {
    const state = new ChaosState({ maxRetryKeys: 10, maxTrackedPaths: 10, maxConnections: 10 })
    state.requestStarted(`/${"p".repeat(10_000)}`)
    const [key] = Object.keys(state.snapshot().requests.byPath)
    expect(key?.length).toBeLessThan(300)
  })

  it("evicts the least recently used retry key", () => {
    const state = new ChaosState({ maxRetryKeys: 3, maxTrackedPaths: 10, maxConnections: 10 })
    for (const key of ["a", "b", "c", "a", "d"]) {
      state.nextAttempt("", key)
    }
    expect(state.snapshot().requests.byRetryKey).toEqual({ c: 1, a: 2, d: 1 })
    expect(state.nextAttempt("", "b")).toBe(1)
  })

  it("keeps a retry key literally named __proto__ as data", () => {
    const state = new ChaosState({ maxRetryKeys: 3, maxTrackedPaths: 10, maxConnections: 10 })
    state.nextAttempt("", "__proto__")
    const { byRetryKey } = state.snapshot().requests
    expect(Object.keys(byRetryKey)).toEqual(["__proto__"])
    expect(JSON.parse(JSON.stringify(state.snapshot())).requests.byRetryKey).toEqual(JSON.parse('{"__proto__":1}'))
  })
})
