// @generated from templates/test/slow/manyOrigins.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Memory stays bounded for a client that calls many hosts (issues #16 and #32): 20,000 calls to
 * 20,000 distinct failing origins, with the retry budget on and a `consecutive` breaker (every
 * origin left open), fill every table (10,000 origins each) twice over and pass the metric label
 * cap (1000 distinct origins). With the tables full, the heap held over the baseline is under
 * 26 MiB; after the idle time, under 20 MiB, with the client still in use.
 *
 * What holds it (heap snapshots, scripts/heap-retainers.ts, 2026-12-04): once idle, 10-12 MiB,
 * the 6,000 metric series of 1000 origins, the 1024 URL authorities a client keeps parsed, and
 * compiled code; with the tables full, 8 MiB more, about 0.4 KiB per origin in each of the two
 * tables (budget, breaker). Measured: 19.8 MiB full and 10.1 idle on Effect 3, 20.5 and 11.5 on
 * Effect 4, the same after 100,000 origins (20.8 and 10.7; 20.3 and 11.2). So the bounds: the
 * idle figure with room, and full, the idle figure plus the tables' 8 MiB and a quarter for the
 * compiler and the collector. (Each budget and breaker kept its methods as closures of its own,
 * and each budget a metric effect: 34 MiB full under vitest, 59 MiB under tsx, whose esbuild gives
 * every such closure a property table of 256 bytes.)
 * Through a scripted client (no sockets); the idle hour passes on a clock moved by hand.
 * MANY_ORIGINS=100000 measures 100,000 origins; HEAP_SNAPSHOT_DIR=dir writes a snapshot at each
 * measure, for scripts/heap-retainers.ts.
 */
import { join } from "node:path"
import { setFlagsFromString, writeHeapSnapshot } from "node:v8"
import { runInNewContext } from "node:vm"
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Metric } from "effect"
import { CircuitBreaker, ResilientHttpClient, RetryPolicy, Testing } from "../../src/index.js"

const calls = Number(process.env.MANY_ORIGINS ?? 20_000)
const snapshotDir = process.env.HEAP_SNAPSHOT_DIR
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

const heapAfterGc = (label: string): number => {
  gc()
  gc()
  const used = process.memoryUsage().heapUsed
  if (snapshotDir !== undefined) writeHeapSnapshot(join(snapshotDir, `effect3-${calls}-${label}.heapsnapshot`))
  return used
}

describe(`${calls} distinct failing origins`, () => {
  test("hold under 26 MiB over the baseline with every table full, under 20 MiB once idle, and at most 1000 origin labels", () =>
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
          circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(2) })
        })
        const call = (origin: string) => Effect.scoped(Effect.flip(client.get(`http://${origin}.test/items`)))

        yield* call("warm-up")
        yield* nextScript
        const baseline = heapAfterGc("baseline")
        let full = 0
        for (let i = 0; i < calls; i++) {
          const failure = yield* call(`origin-${i}`)
          expect(failure.giveUpReason).toBe("attempts-exhausted")
          if (i % 20 === 19) yield* nextScript
          // Every table full: from here on, each new origin evicts the least recently used one.
          if (i === tableCapacity - 1) full = heapAfterGc("full") - baseline
        }
        yield* nextScript
        // Each call: the first attempt, and the retry the budget's floor allowed; then open.
        expect(requests).toBe(2 * (calls + 1))
        const busy = heapAfterGc("busy") - baseline

        // An hour after the breaks ended; a new origin makes each table look for idle entries.
        yield* passes(61)
        yield* call("after-idle")
        const held = heapAfterGc("idle") - baseline
        console.log(
          `Effect 3: held over the baseline after ${tableCapacity} origins: ${(full / mib).toFixed(1)} MiB; ` +
            `after ${calls}: ${(busy / mib).toFixed(1)} MiB; ` +
            `once idle: ${(held / mib).toFixed(1)} MiB`
        )
        expect(full).toBeLessThan(26 * mib)
        expect(busy).toBeLessThan(26 * mib)
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
