import { describe, expect, it } from "vitest"
import * as RetryBudget from "../src/RetryBudget.js"
import type * as Settings from "../src/Settings.js"
import * as SharedStore from "../src/SharedStore.js"

const millisCodec: Settings.DurationCodec<number> = {
  decode: (input) => (typeof input === "number" ? input : undefined),
  infinity: Number.POSITIVE_INFINITY,
  toMillis: (millis) => millis
}

describe("SharedStore", () => {
  it("names keys under a prefix framed as a hash tag, and budgets by settings", () => {
    const keys = SharedStore.keysFor("svc")
    expect(keys.slot).toBe("{svc}")
    expect(keys.coolDowns).toBe("{svc}:cooldowns")
    expect(keys.budget("k1", "http://a:80")).toBe("{svc}:budget:k1:http://a:80")
    expect(keys.channel).toBe("{svc}:channel:cooldowns")
    expect(keys.breakerChannel).toBe("{svc}:channel:breakers")
    expect(keys.breakerChannel).not.toBe(keys.channel)
    expect(SharedStore.settingsKey("a")).not.toBe(SharedStore.settingsKey("b"))
  })

  it("gives no prefix a name of another's: prefixes of each other, glob characters", () => {
    const prefixes = ["a", "a:cooldown:x", "a:", "t", "t\\", "t*", "t?", "t[", "t]", "{t", "t{x"]
    const namesOf = (prefix: string) => {
      const keys = SharedStore.keysFor(prefix)
      return [
        keys.coolDowns,
        keys.channel,
        keys.breakerChannel,
        keys.budget("k1", "http://a:80"),
        keys.budget("k1", "x")
      ]
    }
    for (const prefix of prefixes) {
      expect(SharedStore.resolveStoreSettings({ prefix }, millisCodec, [])._tag).toBe("Valid")
      for (const name of namesOf(prefix)) {
        // Every name starts with its frame, which ends at the first "}": the prefix is read back.
        expect(name.startsWith(`{${prefix}}:`)).toBe(true)
        expect(name.slice(1, name.indexOf("}"))).toBe(prefix)
        // Redis Cluster hashes the text between the first "{" and the next "}": the prefix.
        expect(/^\{([^}]*)\}/.exec(name)?.[1]).toBe(prefix)
      }
      for (const other of prefixes.filter((other) => other !== prefix)) {
        const mine = namesOf(prefix)
        expect(namesOf(other).filter((name) => mine.includes(name) || name.startsWith(`{${prefix}}`))).toEqual([])
      }
    }
  })

  it("keeps Finagle's units: the fleet's budget is the process's arithmetic over shared counts", () => {
    expect(SharedStore.finagleUnits(RetryBudget.finagleDefaults)).toEqual({
      deposit: 1000,
      withdrawal: 10_000,
      reserve: 10 * 10 * 10_000,
      windowSeconds: 10,
      // A million calls' deposits in a second; a window of them and the reserve, withdrawn.
      mostPerBucket: 1_000_000_000,
      leastPerBucket: -(10 * 10 * 10_000 + 10 * 1_000_000_000)
    })
    // ratio 0: the floor alone, a retry costs 1.
    expect(SharedStore.finagleUnits({ _tag: "Finagle", ratio: 0, minPerSecond: 1, ttlMillis: 5000 })).toEqual({
      deposit: 0,
      withdrawal: 1,
      reserve: 5,
      windowSeconds: 5,
      // Nothing is ever deposited: a bucket above 0 is not one of this budget's.
      mostPerBucket: 0,
      leastPerBucket: -5
    })
  })

  it("reads answers and messages defensively", () => {
    expect(SharedStore.readBudgetAnswer([0, 3])).toEqual({ allowed: false, balance: 3, rejected: 0 })
    expect(SharedStore.readBudgetAnswer([1, 3, 2])).toEqual({ allowed: true, balance: 3, rejected: 2 })
    expect(SharedStore.readBudgetAnswer([1])).toBeUndefined()
    expect(SharedStore.readBudgetAnswer([1, 3, -1])).toBeUndefined()
    expect(SharedStore.readBudgetAnswer([1, 3, 0, 0])).toBeUndefined()
    expect(SharedStore.readCoolDownMessage("250 http://a:80")).toEqual({ origin: "http://a:80", millis: 250 })
    for (const bad of [
      "",
      "250",
      "x http://a:80",
      "-5 http://a:80",
      "1.5 http://a:80",
      "250 ",
      "0x1F4 http://a:80",
      "1e3 http://a:80",
      "+250 http://a:80",
      "Infinity http://a:80",
      "0 http://a:80"
    ]) {
      expect(SharedStore.readCoolDownMessage(bad)).toBeUndefined()
    }
    const opened = { breakMillis: 5000, storeId: "s1", settingsKey: "k1", origin: "http://a:80" }
    expect(SharedStore.breakerOpenedMessage(opened)).toBe("open 5000 s1 k1 http://a:80")
    expect(SharedStore.readBreakerOpenedMessage(SharedStore.breakerOpenedMessage(opened))).toEqual(opened)
    // A fraction of a millisecond is rounded up, never down to no break at all.
    expect(SharedStore.breakerOpenedMessage({ ...opened, breakMillis: 0.5 })).toBe("open 1 s1 k1 http://a:80")
    for (const bad of [
      "",
      "5000 http://a:80",
      "open 5000 s1 k1",
      "open 0 s1 k1 http://a:80",
      "open -5 s1 k1 http://a:80",
      "open 1.5 s1 k1 http://a:80",
      "open 5000 s1 k1 http://a:80 extra",
      "close 5000 s1 k1 http://a:80"
    ]) {
      expect(SharedStore.readBreakerOpenedMessage(bad)).toBeUndefined()
    }
    expect(SharedStore.readCoolDownsAnswer(["http://a:80", "250", "http://b:80", "1200"])).toEqual([
      { origin: "http://a:80", millis: 250 },
      { origin: "http://b:80", millis: 1200 }
    ])
    for (const bad of [
      undefined,
      "OK",
      5,
      ["http://a:80"],
      ["http://a:80", "0"],
      ["http://a:80", "-5"],
      ["http://a:80", "1.5"],
      ["http://a:80", "x"],
      ["", "250"],
      [7, "250"]
    ]) {
      expect(SharedStore.readCoolDownsAnswer(bad)).toEqual([])
    }
    expect(SharedStore.readCoolDownsAnswer(["http://a:80", "nope", "http://b:80", "9"])).toEqual([
      { origin: "http://b:80", millis: 9 }
    ])
    expect(SharedStore.isClusterNode("# Cluster\r\ncluster_enabled:1\r\n")).toBe(true)
    expect(SharedStore.isClusterNode("# Cluster\r\ncluster_enabled:0\r\n")).toBe(false)
    expect(SharedStore.isClusterNode(undefined)).toBe(false)
    // Neither reader takes the other's messages.
    expect(SharedStore.readCoolDownMessage("open 5000 s1 k1 http://a:80")).toBeUndefined()
    expect(SharedStore.readBreakerOpenedMessage("250 http://a:80")).toBeUndefined()
  })

  it("batches deposits, gives them back after a failed flush, and bounds the keys", () => {
    const pending = new SharedStore.PendingDeposits(2)
    // Whether the key is new to this batch: the caller notes what a new key needs only then.
    expect([pending.add("a", 1000), pending.add("a", 1000), pending.add("b", 1000)]).toEqual([true, false, true])
    expect(pending.add("c", 1000)).toBe(false)
    expect(pending.drain()).toEqual([
      ["a", 2000],
      ["b", 1000]
    ])
    pending.restore("a", 2000)
    expect(pending.take("a")).toBe(2000)
    expect(pending.take("a")).toBe(0)
  })

  it("says degraded and resumed once each", () => {
    const health = new SharedStore.Health()
    expect(health.answered()).toBeUndefined()
    expect([health.failed(), health.failed()]).toEqual(["degraded", undefined])
    expect([health.answered(), health.answered()]).toEqual(["resumed", undefined])
  })

  it("probes a Redis that does not answer every interval, and one that refuses its work less and less often", () => {
    const health = new SharedStore.Health()
    health.failed()
    expect(health.needsWork).toBe(false)
    expect(health.probeDelayMillis(50)).toBe(50)
    // An error reply in the same episode: no second "degraded", but its work must go through.
    expect(health.failed(true)).toBeUndefined()
    expect(health.needsWork).toBe(true)
    const delays: Array<number> = []
    for (let i = 0; i < 12; i++) {
      delays.push(health.probeDelayMillis(50))
      health.workFailedAgain()
    }
    expect(delays).toEqual([50, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000])
    // An interval longer than the cap is kept.
    expect(health.probeDelayMillis(60_000)).toBe(60_000)
    expect(health.answered()).toBe("resumed")
    expect(health.needsWork).toBe(false)
    expect(health.probeDelayMillis(50)).toBe(50)
  })

  it("finds a Redis error reply's code and message through the wrappers clients put around it", () => {
    const reply = new Error("NOSCRIPT No matching script. Please use EVAL.")
    const effect3 = Object.assign(new Error("An unknown error occurred in Effect.tryPromise"), { cause: reply })
    const effect4 = { _tag: "RedisError", message: "", cause: reply }
    for (const wrapped of [reply, effect3, effect4]) {
      expect(SharedStore.errorReplyCode(wrapped)).toBe("NOSCRIPT")
      expect(SharedStore.describeFailure(wrapped)).toBe("NOSCRIPT No matching script. Please use EVAL.")
    }
    expect(
      SharedStore.errorReplyCode(new Error("WRONGTYPE Operation against a key holding the wrong kind of value"))
    ).toBe("WRONGTYPE")
    expect(SharedStore.errorReplyCode(new Error("OOM command not allowed when used memory > 'maxmemory'."))).toBe("OOM")
    for (const notAReply of [
      new Error("The client is closed"),
      new Error("connect ECONNREFUSED 127.0.0.1:6379"),
      new Error("Socket closed unexpectedly"),
      undefined,
      "NOSCRIPT as a string is not an error"
    ]) {
      expect(SharedStore.errorReplyCode(notAReply)).toBeUndefined()
    }
    expect(SharedStore.describeFailure(undefined)).toBe("no answer in time")
    // A cycle of causes ends.
    const cyclic: { message: string; cause?: unknown } = { message: "loop" }
    cyclic.cause = cyclic
    expect(SharedStore.describeFailure(cyclic)).toBe("loop")
  })

  it("reads the options, naming a bad one", () => {
    expect(SharedStore.resolveStoreSettings(undefined, millisCodec, [])).toEqual({
      _tag: "Valid",
      value: SharedStore.storeDefaults
    })
    expect(SharedStore.resolveStoreSettings({ prefix: "p", timeout: 50, syncInterval: 200 }, millisCodec, [])).toEqual({
      _tag: "Valid",
      value: { prefix: "p", timeoutMillis: 50, syncIntervalMillis: 200, shareCircuitBreaker: false }
    })
    expect(SharedStore.storeDefaults.shareCircuitBreaker).toBe(false)
    expect(SharedStore.resolveStoreSettings({ shareCircuitBreaker: true }, millisCodec, [])).toEqual({
      _tag: "Valid",
      value: { ...SharedStore.storeDefaults, shareCircuitBreaker: true }
    })
    const problems = [
      [{ prefix: "" }, "layerRedis.prefix"],
      [{ prefix: "a}" }, "layerRedis.prefix"],
      [{ prefix: "a b" }, "layerRedis.prefix"],
      [{ prefix: "x".repeat(101) }, "layerRedis.prefix"],
      [{ timeout: 0 }, "layerRedis.timeout"],
      [{ timeout: 20_000 }, "layerRedis.timeout"],
      [{ syncInterval: 5 }, "layerRedis.syncInterval"],
      [{ shareCircuitBreaker: "yes" }, "layerRedis.shareCircuitBreaker"],
      [{ shareCircuitBreaker: 1 }, "layerRedis.shareCircuitBreaker"],
      [{ shareCircuitBreaker: null }, "layerRedis.shareCircuitBreaker"],
      [{ other: 1 }, "layerRedis.other"],
      ["fast", "layerRedis"]
    ] as const
    for (const [input, option] of problems) {
      const checked = SharedStore.resolveStoreSettings(input, millisCodec, [])
      expect(checked._tag === "Invalid" ? checked.problem.option : undefined).toBe(option)
    }
  })
})
