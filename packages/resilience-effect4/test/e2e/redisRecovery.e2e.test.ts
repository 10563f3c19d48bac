// @generated from templates/test/e2e/redisRecovery.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The fleet store comes back from what Redis does in production (issue #31), against a real
 * redis-server of this file's own: two stores A and B on one prefix stand for two processes of a
 * fleet. After each fault (SCRIPT FLUSH; a crash, SIGKILL, and a restart on the same port; a
 * restart that asks for a password the stores do not know, then one without; CLIENT KILL of every
 * connection), a cool-down that A starts once, right after the fault, reaches B within 5 s, and a
 * store that joins after it holds it. And a program ends whatever Redis did: closing a store's
 * scope with Redis down ends at once.
 *
 * The waits are readiness waits: "within 5 s" is the bound on recovery, on busy cores.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Result, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import type * as ResilienceStore from "../../src/ResilienceStore.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"
import { capturedLogs, type StoreOptions, storeOn } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

let prefixes = 0
const freshPrefix = () => `recovery-${process.pid}-${++prefixes}`
const fast: StoreOptions = { syncInterval: "50 millis", timeout: "100 millis" }
// For a test that asks that the store never said it was degraded: a round trip on busy cores may
// take longer than 100 ms, and that is not what it is about.
const patient: StoreOptions = { syncInterval: "50 millis", timeout: "2 seconds" }
// Generous: a store with a 100 ms timeout under CI load may need a few degraded-and-back rounds (one CI run took over 5 s).
const recoveryMillis = 15_000

type Store = ResilienceStore.ResilienceStore.Service

const budget = Result.getOrThrow(
  RetryBudget.validate(RetryBudget.finagle({ ratio: 0, minPerSecond: 100, ttl: "10 seconds" }))
)

// Two processes of a fleet, warmed: each has subscribed, run both scripts once (so that it holds
// their SHA1s, as a store that has been up a while does), and A's cool-down has reached B.
const warmFleet = (prefix: string, options: StoreOptions = fast) =>
  Effect.gen(function* () {
    const a = yield* storeOn(redis.url, prefix, options)
    const b = yield* storeOn(redis.url, prefix, options)
    for (const store of [a, b]) {
      expect(yield* store.retryBudget(budget).tryRetry("http://warm.example.test:80", "transient-status")).toBe(true)
    }
    yield* a.coolDown("http://warm.example.test:80", 60_000)
    yield* eventually(
      Effect.map(b.coolDownLeft("http://warm.example.test:80"), (left) => left > 0),
      "B warmed"
    )
    return { a, b }
  })

// Each store meets the outage on a retry's path (the fleet's budget unanswered: its own decides),
// and says so once.
const bothDegraded = (a: Store, b: Store, logs: ReturnType<typeof capturedLogs>) =>
  Effect.gen(function* () {
    for (const store of [a, b]) {
      expect(yield* store.retryBudget(budget).tryRetry("http://warm.example.test:80", "transient-status")).toBe(true)
    }
    yield* eventually(
      Effect.sync(() => logs.degraded() >= 2),
      "both stores degraded"
    )
  })

// What every fault must come back to: a cool-down A starts once reaches B, and a late joiner.
const sharesAgain = (prefix: string, a: Store, b: Store) =>
  Effect.gen(function* () {
    const origin = "http://after-fault.example.test:80"
    yield* a.coolDown(origin, 30_000)
    yield* eventually(
      Effect.map(b.coolDownLeft(origin), (left) => left > 20_000),
      "B cooling down",
      recoveryMillis
    )
    const late = yield* storeOn(redis.url, prefix, fast)
    yield* eventually(
      Effect.map(late.coolDownLeft(origin), (left) => left > 20_000),
      "a late joiner",
      recoveryMillis
    )
  })

// The server restarted as it was at first (no password), whatever a test did to it.
const restored = Effect.promise(async () => {
  await redis.stop()
  await redis.start()
})

describe.skipIf(skipWithout(redisServer))("Effect 4 the fleet store recovers from what Redis does", () => {
  it.live("SCRIPT FLUSH (as a restart or a failover leaves the script cache): the scripts are loaded again", () =>
    Effect.gen(function* () {
      const logs = capturedLogs()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const { a, b } = yield* warmFleet(prefix, patient)
          yield* Effect.promise(() => redis.command("SCRIPT", "FLUSH"))
          yield* sharesAgain(prefix, a, b)
          // And the budget's script, on a retry's path: the fleet's answer, not a local fallback.
          expect(yield* a.retryBudget(budget).tryRetry("http://warm.example.test:80", "transient-status")).toBe(true)
          expect(logs.degraded()).toBe(0)
        })
      ).pipe(Effect.provide(logs.layer))
    })
  )

  // An outage both stores meet (each warns once, and calls go on), then the server back.
  const afterOutage = (outage: Effect.Effect<void>, back: Effect.Effect<void>) =>
    Effect.gen(function* () {
      const logs = capturedLogs()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const { a, b } = yield* warmFleet(prefix)
          yield* outage
          yield* bothDegraded(a, b, logs)
          yield* back
          yield* sharesAgain(prefix, a, b)
        })
      ).pipe(Effect.provide(logs.layer), Effect.ensuring(restored))
    })

  it.live("killed (SIGKILL) and restarted on the same port", () =>
    afterOutage(
      Effect.promise(() => redis.kill()),
      Effect.promise(() => redis.start())
    )
  )

  it.live("restarted with a password the stores do not know, then without one", () =>
    afterOutage(
      Effect.promise(async () => {
        await redis.stop()
        await redis.start({ requirepass: "not-the-stores" })
      }),
      restored
    )
  )

  it.live("CLIENT KILL of every connection the stores hold", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const prefix = freshPrefix()
        const { a, b } = yield* warmFleet(prefix)
        // The command connections and the subscriptions (this helper's own connection is spared).
        yield* Effect.promise(() => redis.command("CLIENT", "KILL", "TYPE", "normal"))
        yield* Effect.promise(() => redis.command("CLIENT", "KILL", "TYPE", "pubsub"))
        yield* sharesAgain(prefix, a, b)
      })
    )
  )

  it.live("a store's scope closes at once with Redis down, after the store sent commands meanwhile", () =>
    Effect.gen(function* () {
      const logs = capturedLogs()
      yield* Effect.gen(function* () {
        const scope = yield* Scope.make()
        const { a, b } = yield* Scope.provide(warmFleet(freshPrefix()), scope)
        yield* Effect.promise(() => redis.kill())
        // A retry's question, a cool-down's write and the flushes' probes, all to a Redis that is gone.
        yield* bothDegraded(a, b, logs)
        yield* a.coolDown("http://down.example.test:80", 30_000)
        // Closed on a fiber of its own, so that a close that never ends fails the wait, not the test run.
        const closing = yield* Effect.forkDetach(Scope.close(scope, Exit.void))
        const closed = yield* Effect.exit(Effect.timeout(Fiber.await(closing), "5 seconds"))
        expect(Exit.isSuccess(closed)).toBe(true)
      }).pipe(Effect.provide(logs.layer), Effect.ensuring(Effect.promise(() => redis.start())))
    })
  )
})
