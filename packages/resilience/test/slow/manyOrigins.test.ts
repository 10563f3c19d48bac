// @generated from templates/test/slow/manyOrigins.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Memory stays bounded for a client that calls many hosts (issue #16): after 20,000 calls to
 * 20,000 distinct failing origins, with the retry budget on and a `consecutive` breaker (every
 * origin left open), and then the idle time, the heap held over the baseline is under 20 MiB,
 * with the client still in use. The origin metric label is capped at 1000 distinct origins.
 * 20,000 origins fill every table (10,000 each) twice over and pass the label cap: what is held
 * once idle was the same after 100,000 (9.8 MiB on Effect 3, 10.9-12.6 on Effect 4, 2026-12-04),
 * so the bound is as strict, in a fifth of the time.
 * Through a scripted client (no sockets); the idle hour passes on a clock moved by hand.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Metric } from "effect"
import { CircuitBreaker, ResilientHttpClient, RetryPolicy, Testing } from "../../src/index.js"

const calls = 20_000
// Origins a table holds at most (core's Origin.maxOriginsDefault).
const tableCapacity = 10_000
const mib = 1024 * 1024

// --expose-gc, turned on here: a new context then sees `gc`.
setFlagsFromString("--expose-gc")
const gc: () => void = runInNewContext("gc")

// The live clock, moved forward by hand: Effect 3's TestClock slows down with every fiber a test
// forks, and 20,000 calls fork many.
let shiftMillis = 0
const live = Clock.make()
const shiftedClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis() + shiftMillis,
  currentTimeMillis: Effect.sync(() => live.unsafeCurrentTimeMillis() + shiftMillis),
  unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos() + BigInt(shiftMillis) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => live.unsafeCurrentTimeNanos() + BigInt(shiftMillis) * 1_000_000n),
  sleep: (duration) => live.sleep(duration)
}
const passes = (minutes: number) =>
  Effect.sync(() => {
    shiftMillis += minutes * 60_000
  })
const test = it.live
const onClock = <A, E>(effect: Effect.Effect<A, E>) => Effect.withClock(effect, shiftedClock)

const heapAfterGc = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

describe("20,000 distinct failing origins", () => {
  test("leave under 20 MiB held over the baseline once idle, and at most 1000 origin labels", () =>
    onClock(
      Effect.gen(function* () {
        // Scripted clients in turn, 20 calls each: one records every request it is sent, and copies
        // the record each time, so a single one would grow with the test.
        let scripted = yield* Testing.scriptedHttpClient([{ status: 503 }])
        let requests = 0
        // Each turn also lets the test runner's messages through (its calls time out otherwise).
        const nextScript = Effect.gen(function* () {
          requests += (yield* scripted.requests).length
          scripted = yield* Testing.scriptedHttpClient([{ status: 503 }])
          yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        })
        const transport = HttpClient.make((request) => Effect.suspend(() => scripted.client.execute(request)))
        // No time limits: on the TestClock each would leave a sleep behind for the whole run.
        const client = ResilientHttpClient.withResilience(transport, {
          maxAttempts: 2,
          backoff: RetryPolicy.constant(0),
          jitter: "none",
          attemptTimeout: "infinity",
          totalTimeout: "infinity",
          circuitBreaker: { tripPolicy: CircuitBreaker.consecutive(2) }
        })
        const call = (origin: string) => Effect.scoped(Effect.flip(client.get(`http://${origin}.test/items`)))

        yield* call("warm-up")
        yield* nextScript
        const baseline = heapAfterGc()
        let full = 0
        for (let i = 0; i < calls; i++) {
          const failure = yield* call(`origin-${i}`)
          expect(failure.giveUpReason).toBe("attempts-exhausted")
          if (i % 20 === 19) yield* nextScript
          // Every table full: from here on, each new origin evicts the least recently used one.
          if (i === tableCapacity - 1) full = heapAfterGc() - baseline
        }
        yield* nextScript
        // Each call: the first attempt, and the retry the budget's floor allowed; then open.
        expect(requests).toBe(2 * (calls + 1))
        const busy = heapAfterGc() - baseline

        // An hour after the breaks ended; a new origin makes each table look for idle entries.
        yield* passes(61)
        yield* call("after-idle")
        const held = heapAfterGc() - baseline
        console.log(
          `Effect 3: held over the baseline after ${tableCapacity} origins: ${(full / mib).toFixed(1)} MiB; ` +
            `after ${calls}: ${(busy / mib).toFixed(1)} MiB; ` +
            `once idle: ${(held / mib).toFixed(1)} MiB`
        )
        expect(held).toBeLessThan(20 * mib)

        const addresses = new Set<string>()
        for (const pair of Metric.unsafeSnapshot()) {
          if (!pair.metricKey.name.startsWith("http.client.resilience.")) continue
          for (const tag of pair.metricKey.tags) if (tag.key === "server.address") addresses.add(tag.value)
        }
        expect(addresses.has("_OTHER")).toBe(true)
        expect(addresses.size).toBe(1001)
        // The client is still in use: its state was forgotten, not dropped with it.
        expect((yield* call("origin-0")).giveUpReason).toBe("attempts-exhausted")
      })
    ))
})
