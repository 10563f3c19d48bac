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

  it("reads a rate-limit answer with the send times it leased, in order, and nothing else", () => {
    expect(SharedStore.readRateLimitAnswer([1, 0, 0, 1_000, 100, 200])).toEqual({
      granted: true,
      waitMillis: 0,
      rejected: false,
      nowMillis: 1_000,
      laterMillis: [100, 200]
    })
    expect(SharedStore.readRateLimitAnswer([0, 500, 0, 1_000])?.laterMillis).toEqual([])
    // Out of order, before the first, without Redis's time, or more than a lease holds: not the script's.
    expect(SharedStore.readRateLimitAnswer([1, 0, 0, 1_000, 200, 100])).toBeUndefined()
    expect(SharedStore.readRateLimitAnswer([1, 300, 0, 1_000, 200])).toBeUndefined()
    expect(SharedStore.readRateLimitAnswer([1, 0, 0])).toBeUndefined()
    const most = Array.from({ length: SharedStore.maxRateLimitLease }, (_, index) => index + 1)
    expect(SharedStore.readRateLimitAnswer([1, 0, 0, 1_000, ...most])).toBeUndefined()
    expect(SharedStore.readRateLimitAnswer([1, 0, 0, 1_000, ...most.slice(1)])?.laterMillis).toHaveLength(
      SharedStore.maxRateLimitLease - 1
    )
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

  it("says nothing of a connection that dropped until a failure says why, and nothing when it came straight back", () => {
    const health = new SharedStore.Health()
    // Dropped: degraded, quietly; dropped again, still quiet; then a refused connection says it.
    expect([health.failed(false, true), health.failed(false, true)]).toEqual([undefined, undefined])
    expect(health.degraded).toBe(true)
    expect(health.announced).toBe(false)
    expect(health.failed()).toBe("degraded")
    expect(health.failed(false, true)).toBeUndefined()
    expect(health.answered()).toBe("resumed")
    // Dropped, then answered: an episode that was never said ends in silence.
    expect(health.failed(false, true)).toBeUndefined()
    expect(health.answered()).toBe("recovered")
    expect(health.degraded).toBe(false)
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
    const named = new SharedStore.RequestFailure({ command: "EVALSHA", script: SharedStore.budgetScript }, effect4)
    for (const wrapped of [reply, effect3, effect4, named]) {
      expect(SharedStore.errorReplyCode(wrapped)).toBe("NOSCRIPT")
      expect(SharedStore.failureKind(wrapped)).toBe("refused")
      expect(SharedStore.describeFailure(wrapped)).toMatch(
        /^refused by Redis: NOSCRIPT No matching script\. Please use EVAL\./
      )
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
    expect(SharedStore.describeFailure(undefined)).toBe("timed out: no answer in time")
    // A cycle of causes ends.
    const cyclic: { message: string; cause?: unknown } = { message: "loop" }
    cyclic.cause = cyclic
    expect(SharedStore.describeFailure(cyclic)).toBe("failed: loop")
  })

  // node-redis' errors as the store meets them: a command failed at once for want of a
  // connection, with the 'error' event that says why (SharedStore.NotConnected), or a reply.
  const offline = Object.assign(new Error("The client is offline"), { name: "ClientOfflineError" })
  const socketError = (message: string, code: string) => Object.assign(new Error(message), { code })
  const scriptError = (line: number) =>
    new Error(
      `ERR The user executing the script can't run this command or subcommand script: 50ff, on @user_script:${line}.`
    )

  it("tells apart a refused connection, a wrong password, a certificate, a timeout, a refusal and a dropped connection", () => {
    const cases: ReadonlyArray<readonly [unknown, SharedStore.FailureKind, string]> = [
      [
        new SharedStore.NotConnected(offline, socketError("connect ECONNREFUSED 127.0.0.1:6379", "ECONNREFUSED")),
        "connection-refused",
        "connection refused: connect ECONNREFUSED 127.0.0.1:6379"
      ],
      [
        new SharedStore.NotConnected(
          offline,
          new Error("WRONGPASS invalid username-password pair or user is disabled.")
        ),
        "authentication",
        "authentication failed: WRONGPASS invalid username-password pair or user is disabled."
      ],
      // Effect 4: the reserved connection's connect failed, in a RedisError.
      [
        {
          _tag: "RedisError",
          message: "",
          cause: new Error("NOAUTH HELLO must be called with the client already authenticated")
        },
        "authentication",
        "authentication failed: NOAUTH HELLO must be called with the client already authenticated"
      ],
      [
        new SharedStore.NotConnected(
          offline,
          socketError("self-signed certificate in certificate chain", "SELF_SIGNED_CERT_IN_CHAIN")
        ),
        "tls",
        "TLS failed: self-signed certificate in certificate chain"
      ],
      [
        socketError("getaddrinfo ENOTFOUND redis.internal", "ENOTFOUND"),
        "unreachable",
        "Redis not reached: getaddrinfo ENOTFOUND redis.internal"
      ],
      [undefined, "timeout", "timed out: no answer within 100 ms"],
      [
        new SharedStore.NotConnected(offline, new Error("Connection timeout")),
        "timeout",
        "timed out: Connection timeout"
      ],
      [
        new Error("NOPERM this user has no permissions to access one of the channels used as arguments"),
        "refused",
        "refused by Redis: NOPERM this user has no permissions to access one of the channels used as arguments"
      ],
      [
        new SharedStore.NotConnected(offline, new Error("Socket closed unexpectedly")),
        "lost",
        "connection lost: Socket closed unexpectedly"
      ],
      [new SharedStore.NotConnected(offline, undefined), "lost", "connection lost: The client is offline"],
      [new Error("The client is closed"), "lost", "connection lost: The client is closed"],
      [new Error("something else"), "other", "failed: something else"]
    ]
    for (const [failure, kind, said] of cases) {
      expect(SharedStore.failureKind(failure)).toBe(kind)
      expect(SharedStore.describeFailure(failure, undefined, 100)).toBe(said)
    }
    // The connection's reply is not the command's: no refusal of the work.
    expect(SharedStore.errorReplyCode(cases[1]![0])).toBeUndefined()
    expect(SharedStore.neverSent(new Error("The client is closed"))).toBe(true)
    expect(SharedStore.neverSent(cases[0]![0])).toBe(true)
    expect(SharedStore.neverSent(new Error("Socket closed unexpectedly"))).toBe(false)
  })

  it("names the request a failure stopped, and for a script the command at the line Redis names", () => {
    const ping = { command: "PING" }
    expect(SharedStore.describeFailure(undefined, ping, 100)).toBe("timed out: no answer within 100 ms (on PING)")
    const subscribe = { command: "SUBSCRIBE {orders}:channel:cooldowns" }
    expect(
      SharedStore.describeFailure(
        new Error("NOPERM this user has no permissions to access one of the channels used as arguments"),
        subscribe
      )
    ).toBe(
      "refused by Redis: NOPERM this user has no permissions to access one of the channels used as arguments (on SUBSCRIBE {orders}:channel:cooldowns)"
    )
    // Each script's line of each command: the line Redis names is the command's.
    for (const script of [
      SharedStore.coolDownScript,
      SharedStore.budgetScript,
      SharedStore.rateLimitScript,
      SharedStore.readCoolDownsScript
    ]) {
      script.split("\n").forEach((text, index) => {
        const called = /redis\.call\('([A-Z]+)'/.exec(text)?.[1]
        if (called === undefined) return
        const failure = new SharedStore.RequestFailure({ command: "EVALSHA", script }, scriptError(index + 1))
        expect(SharedStore.describeFailure(failure)).toMatch(
          new RegExp(`^refused by Redis: ERR .* \\(on the .+ \\(EVALSHA\\), at its ${called}\\)$`)
        )
      })
    }
    const published = new SharedStore.RequestFailure(
      { command: "EVALSHA", script: SharedStore.coolDownScript },
      scriptError(
        SharedStore.coolDownScript.split("\n").findIndex((text) => text.startsWith("redis.call('PUBLISH'")) + 1
      )
    )
    expect(SharedStore.describeFailure(published)).toMatch(/\(on the cool-down script \(EVALSHA\), at its PUBLISH\)$/)
    // The innermost request named wins: a script's load failed, not its run.
    const load = new SharedStore.RequestFailure(
      { command: "EVALSHA", script: SharedStore.budgetScript },
      new SharedStore.RequestFailure(
        { command: "SCRIPT LOAD", script: SharedStore.budgetScript },
        new Error("NOPERM no script load")
      )
    )
    expect(SharedStore.describeFailure(load, ping)).toBe(
      "refused by Redis: NOPERM no script load (on SCRIPT LOAD of the budget script)"
    )
  })

  it("checks a Redis URL as node-redis reads it, and never shows its password", () => {
    expect(SharedStore.checkRedisUrl("layerRedis.url", "redis://u:s3cret@redis.internal:6379/0")).toEqual({
      _tag: "Valid",
      value: "redis://u:s3cret@redis.internal:6379/0"
    })
    for (const valid of ["rediss://redis.internal", "redis://[::1]:6379", "redis://:p%40ss@h"]) {
      expect(SharedStore.checkRedisUrl("layerRedis.url", valid)._tag).toBe("Valid")
    }
    const bad: ReadonlyArray<readonly [unknown, string, unknown]> = [
      ["redis://:s3cret@127.0.0.1:99999", "does not parse", "redis:…"],
      ["redis://:s3cret@[::1:6379", "does not parse", "redis:…"],
      ["redis:/:s3cret@host", "must name a host", "redis:…"],
      ["http://:s3cret@host", "must be a redis:// or rediss:// URL", "http://***@host"],
      ["redis://:%E0%A4%A@host", "percent-encoding", "redis://***@host"],
      ["redis://:s3cret@host/s3cret", "database number", "redis://***@host/…"],
      ["s3cret", "does not parse", "…"],
      [42, "must be a redis:// or rediss:// URL", 42]
    ]
    for (const [input, reason, shown] of bad) {
      const checked = SharedStore.checkRedisUrl("layerRedis.url", input)
      expect(checked._tag).toBe("Invalid")
      if (checked._tag !== "Invalid") continue
      expect(checked.problem.option).toBe("layerRedis.url")
      expect(checked.problem.reason).toContain(reason)
      expect(checked.problem.value).toEqual(shown)
      expect(JSON.stringify(checked)).not.toContain("s3cret")
    }
    expect(SharedStore.redactRedisUrl("rediss://user:s3cret@redis.internal:6380/2?x=1")).toBe(
      "rediss://***@redis.internal:6380/…"
    )
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
    // An option that is none, or options that are not a record, may be a URL or a client's
    // options with their password: not shown.
    for (const [input, option] of [
      [{ password: "s3cret" }, "layerRedis.password"],
      [{ socket: { password: "s3cret" } }, "layerRedis.socket"],
      ["redis://:s3cret@host", "layerRedis"]
    ] as const) {
      const checked = SharedStore.resolveStoreSettings(input, millisCodec, [])
      expect(checked._tag === "Invalid" ? checked.problem.option : undefined).toBe(option)
      expect(JSON.stringify(checked)).not.toContain("s3cret")
    }
  })
})
