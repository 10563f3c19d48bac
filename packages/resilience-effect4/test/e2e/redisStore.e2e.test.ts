// @generated from templates/test/e2e/redisStore.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * `ResilienceStoreRedis.layerRedis` against a real redis-server (issue #18): two stores on one Redis
 * stand for two processes of a fleet. They share a Retry-After cool-down and a retry budget, not
 * a concurrency limit;
 * a call that goes well makes no round trip; Redis stopped, paused or flushed never fails or
 * hangs a decision, is logged once, and sharing resumes when Redis is back.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { NodeRedis } from "@effect/platform-node"
import { Deferred, Effect, Layer, Result } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as ConcurrencyLimit from "../../src/ConcurrencyLimit.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilienceStoreRedis from "../../src/ResilienceStoreRedis.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import * as Testing from "../../src/Testing.js"
import { eventually } from "../support/eventually.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"
import { capturedLogs, degradedGauge, type StoreOptions, storeOn as storeAt } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const origin = "http://api.example.test:80"
let prefixes = 0
const freshPrefix = () => `test-${process.pid}-${++prefixes}`

type Options = StoreOptions

// One store, as one process of the fleet would have it, for the test's scope.
const storeOn = (prefix: string, options: Options = {}) => storeAt(redis.url, prefix, options)

const budgetSettings = (input: RetryBudget.FinagleOptions): RetryBudget.Settings =>
  Result.getOrThrow(RetryBudget.validate(RetryBudget.finagle(input)))

describe.skipIf(skipWithout(redisServer))(
  "Effect 4 ResilienceStoreRedis.layerRedis against a real redis-server",
  () => {
    it.live("a cool-down started in one process reaches another on the same prefix, not one on another prefix", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const first = yield* storeOn(prefix)
          const second = yield* storeOn(prefix)
          const elsewhere = yield* storeOn(freshPrefix())
          yield* first.coolDown(origin, 30_000)
          yield* eventually(
            Effect.map(second.coolDownLeft(origin), (left) => left > 20_000),
            "the second process cooling down"
          )
          expect(yield* elsewhere.coolDownLeft(origin)).toBe(0)
          // A process that joins later learns the cool-down in force.
          const late = yield* storeOn(prefix)
          yield* eventually(
            Effect.map(late.coolDownLeft(origin), (left) => left > 20_000),
            "the late process"
          )
        })
      )
    )

    it.live("the concurrency limit is each process's own: permits held in one leave the other's free", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const first = yield* storeOn(prefix)
          const second = yield* storeOn(prefix)
          const settings = ConcurrencyLimit.fixed(1)
          const held = ConcurrencyLimit.fromStore(first, settings).forOrigin(origin, 0).bulkhead
          expect(held.acquire(yield* Deferred.make<void>())).toBe("granted")
          expect(held.acquire(yield* Deferred.make<void>())).toBe("rejected")
          // The same setting, the same Redis and prefix: another process's permits are its own.
          const other = ConcurrencyLimit.fromStore(second, settings).forOrigin(origin, 0).bulkhead
          expect(other.acquire(yield* Deferred.make<void>())).toBe("granted")
          expect(ConcurrencyLimit.fromStore(first, settings)).toBe(
            ConcurrencyLimit.fromStore(first, ConcurrencyLimit.fixed(1))
          )
        })
      )
    )

    it.live("the budget's floor is lent once per fleet: what one process spends, the other cannot", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          // ratio 0: the floor alone, 1 retry a second over a 5 s window: 5 retries for the fleet.
          const settings = budgetSettings({ ratio: 0, minPerSecond: 1, ttl: "5 seconds" })
          const first = (yield* storeOn(prefix)).retryBudget(settings)
          const second = (yield* storeOn(prefix)).retryBudget(settings)
          const granted: Array<boolean> = []
          for (let i = 0; i < 5; i++) granted.push(yield* first.tryRetry(origin, "transient-status"))
          expect(granted).toEqual([true, true, true, true, true])
          expect(yield* second.tryRetry(origin, "transient-status")).toBe(false)
          expect(yield* second.balance(origin)).toBe(0)
        })
      )
    )

    it.live("the budget's ratio counts the fleet's requests, flushed every syncInterval", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const settings = budgetSettings({ ratio: 0.5, minPerSecond: 0, ttl: "10 seconds" })
          const first = (yield* storeOn(prefix, { syncInterval: "50 millis" })).retryBudget(settings)
          const second = (yield* storeOn(prefix, { syncInterval: "50 millis" })).retryBudget(settings)
          for (let i = 0; i < 10; i++) yield* first.onRequest(origin)
          // Half of the fleet's 10 requests, though the second process made none.
          yield* eventually(
            Effect.map(second.balance(origin), (balance) => balance === 5),
            "the fleet's deposits"
          )
          expect(yield* second.tryRetry(origin, "transient-status")).toBe(true)
          expect(yield* first.balance(origin)).toBe(4)
        })
      )
    )

    it.live("calls through the client count as the fleet's requests", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const budget = { ratio: 0.5, minPerSecond: 0, ttl: "10 seconds" } as const
          const first = yield* storeOn(prefix, { syncInterval: "50 millis" })
          const second = (yield* storeOn(prefix, { syncInterval: "50 millis" })).retryBudget(budgetSettings(budget))
          const ok: Testing.ScriptStep = { status: 200 }
          const scripted = yield* Testing.scriptedHttpClient([ok, ...Array.from({ length: 9 }, () => ok)])
          const client = scripted.client.pipe(
            ResilientHttpClient.withResilience({ retryBudget: RetryBudget.finagle(budget) })
          )
          for (let i = 0; i < 10; i++) {
            yield* Effect.scoped(client.get(`${origin}/items`)).pipe(
              Effect.provideService(ResilienceStore.ResilienceStore, first)
            )
          }
          // Half of the 10 calls the first process made, seen by the second.
          yield* eventually(
            Effect.map(second.balance(origin), (balance) => balance === 5),
            "the calls' deposits"
          )
        })
      )
    )

    it.live("a call that goes well makes no round trip to Redis", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          // A timeout that a busy machine never reaches: a store degraded at its start would next
          // try Redis a syncInterval later, past this test's wait.
          const store = yield* storeOn(prefix, { syncInterval: "60 seconds", timeout: "2 seconds" })
          const ok: Testing.ScriptStep = { status: 200 }
          const scripted = yield* Testing.scriptedHttpClient([ok, ...Array.from({ length: 19 }, () => ok)])
          const client = scripted.client.pipe(ResilientHttpClient.withResilience())
          const calls = Effect.gen(function* () {
            for (let i = 0; i < 20; i++) {
              const response = yield* Effect.scoped(client.get(`${origin}/items`))
              expect(response.status).toBe(200)
            }
          }).pipe(Effect.provideService(ResilienceStore.ResilienceStore, store))
          // The store's start (subscribe, read the cool-downs in force) is over once what it
          // publishes has arrived.
          yield* store.coolDown("http://settled.example.test:80", 60_000)
          yield* eventually(
            Effect.map(
              Effect.promise(() => redis.command("ZSCORE", `{${prefix}}:cooldowns`, "http://settled.example.test:80")),
              (reply) => reply !== "$-1\r\n"
            ),
            "the cool-down written"
          )
          // And the budget's script loaded, which the store does as it starts, in the background.
          yield* eventually(
            Effect.map(
              Effect.promise(() => redis.command("INFO", "commandstats")),
              (stats) => stats.includes("cmdstat_script|load:")
            ),
            "the budget's script loaded"
          )
          yield* Effect.promise(() => redis.command("CONFIG", "RESETSTAT"))
          yield* calls
          const stats = yield* Effect.promise(() => redis.command("INFO", "commandstats"))
          // Only CONFIG RESETSTAT and INFO itself: no EVALSHA, no GET, nothing per call.
          const commands = [...stats.matchAll(/cmdstat_([a-z|]+):calls=/g)].map((match) => match[1])
          expect(commands.filter((name) => name !== "config|resetstat" && name !== "info")).toEqual([])
        })
      )
    )

    it.live("Redis stopped: decisions go on with local state, within the timeout; one warning; sharing resumes", () =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        yield* Effect.scoped(
          Effect.gen(function* () {
            const prefix = freshPrefix()
            const options: Options = { syncInterval: "50 millis", timeout: "100 millis" }
            const first = yield* storeOn(prefix, options)
            const second = yield* storeOn(prefix, options)
            const settings = budgetSettings({ ratio: 0, minPerSecond: 1, ttl: "2 seconds" })
            yield* Effect.promise(() => redis.stop())
            // Local state decides: this process's own floor of 2 retries.
            const granted: Array<boolean> = []
            for (let i = 0; i < 3; i++)
              granted.push(yield* first.retryBudget(settings).tryRetry(origin, "transient-status"))
            expect(granted).toEqual([true, true, false])
            // Said once a failure says why (a connection only dropped says nothing yet): a refused
            // connection, at the latest when the next probe finds it.
            yield* eventually(
              Effect.sync(() => logs.degraded() >= 1),
              "the warning"
            )
            yield* eventually(
              Effect.map(degradedGauge, (value) => value === 1),
              "the degraded gauge"
            )
            const warnings = logs.lines.filter((line) => line.startsWith("ResilienceStore on Redis is degraded"))
            expect(warnings.length).toBeGreaterThanOrEqual(1)
            // One warning per store, however many round trips failed.
            expect(warnings.length).toBeLessThanOrEqual(2)
            yield* Effect.promise(() => redis.start())
            yield* eventually(
              Effect.sync(() => logs.lines.some((line) => line.includes("answers again"))),
              "sharing resumed"
            )
            // Each store finds Redis back on its own probe: a cool-down started before its own
            // probe stays in its process, so start it until it is shared.
            yield* eventually(
              Effect.andThen(
                first.coolDown(origin, 30_000),
                Effect.map(second.coolDownLeft(origin), (left) => left > 20_000)
              ),
              "a cool-down shared again"
            )
            yield* eventually(
              Effect.map(degradedGauge, (value) => value === 0),
              "the gauge back to 0"
            )
          })
        ).pipe(Effect.provide(logs.layer))
      })
    )

    it.live("Redis paused (slow): a retry decision waits at most the timeout, then goes on locally", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* storeOn(freshPrefix(), { timeout: "100 millis", syncInterval: "50 millis" })
          const budget = store.retryBudget(budgetSettings({ ratio: 0, minPerSecond: 1, ttl: "2 seconds" }))
          expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
          yield* Effect.promise(() => redis.command("CLIENT", "PAUSE", "3000", "ALL"))
          const decided = yield* Effect.timeout(budget.tryRetry(origin, "transient-status"), "2 seconds")
          expect(decided).toBe(true)
          yield* Effect.promise(() => redis.command("CLIENT", "UNPAUSE"))
        })
      )
    )

    it.live("deposits a flush sent without an answer in time are not sent again: the fleet counts them once", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const settings = budgetSettings({ ratio: 0.5, minPerSecond: 0, ttl: "10 seconds" })
          const first = (yield* storeOn(prefix, { timeout: "100 millis", syncInterval: "50 millis" })).retryBudget(
            settings
          )
          const second = (yield* storeOn(prefix)).retryBudget(settings)
          // The script loaded first; then, paused, Redis holds the flush that carries these
          // deposits past the timeout, and runs it once it resumes.
          expect(yield* first.balance(origin)).toBe(0)
          yield* Effect.promise(() => redis.command("CLIENT", "PAUSE", "600", "ALL"))
          for (let i = 0; i < 10; i++) yield* first.onRequest(origin)
          yield* eventually(
            Effect.map(second.balance(origin), (balance) => balance === 5),
            "the held flush run"
          )
          // Two more once the store answers again: had the ten been put back, they would come with these.
          for (let i = 0; i < 2; i++) yield* first.onRequest(origin)
          yield* eventually(
            Effect.map(second.balance(origin), (balance) => balance >= 6),
            "the next deposits"
          )
          expect(yield* second.balance(origin)).toBe(6)
        })
      )
    )

    it.live("Redis flushed: the scripts are loaded again and the budget starts afresh", () =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        yield* Effect.scoped(
          Effect.gen(function* () {
            // A timeout for busy cores: a round trip slower than 100 ms would also say "degraded".
            const store = yield* storeOn(freshPrefix(), { timeout: "2 seconds" })
            const budget = store.retryBudget(budgetSettings({ ratio: 0, minPerSecond: 1, ttl: "2 seconds" }))
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(false)
            yield* Effect.promise(() => redis.command("FLUSHALL"))
            yield* Effect.promise(() => redis.command("SCRIPT", "FLUSH"))
            // The fleet's budget, afresh: twice more, from Redis. Had the script not been loaded
            // again, the store would have said it is degraded, and this process's own budget
            // would have answered.
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(false)
            expect(logs.degraded()).toBe(0)
          })
        ).pipe(Effect.provide(logs.layer))
      })
    )

    it.live("a bad option fails the layer with an InvalidRetryPolicy naming it", () =>
      Effect.gen(function* () {
        for (const [options, option] of [
          [{ prefix: "" }, "layerRedis.prefix"],
          [{ prefix: "a b" }, "layerRedis.prefix"],
          [{ prefix: "a}" }, "layerRedis.prefix"],
          [{ timeout: "0 millis" }, "layerRedis.timeout"],
          [{ syncInterval: "2 minutes" }, "layerRedis.syncInterval"]
        ] satisfies ReadonlyArray<readonly [Options, string]>) {
          const built = Layer.build(
            ResilienceStoreRedis.layerRedis(options).pipe(Layer.provide(NodeRedis.layer({ url: redis.url })))
          )
          const failure = yield* Effect.flip(Effect.scoped(built))
          expect(failure).toMatchObject({ _tag: "InvalidRetryPolicy", option })
        }
      })
    )
  }
)
