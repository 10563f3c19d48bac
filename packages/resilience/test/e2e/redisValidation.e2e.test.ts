// @generated from templates/test/e2e/redisValidation.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * What a fleet store reads from Redis is checked as a local decision would be (issue #31), and a
 * Redis that answers PING but refuses the store's work does not make it flap, against a real
 * redis-server of this file's own. Each hostile value is written straight into Redis (raw
 * commands, as a buggy member or an ops script would): a cool-down key of 10 years, a published
 * cool-down of 10 years, budget buckets no budget could hold, a breaker's opening past the
 * breaker's cap, and what cannot be read at all. Each is applied within the bound a local value
 * meets, or dropped, and counted in `http.client.resilience.store.rejected_values`.
 */
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as circuitBreakerService from "../../src/internal/circuitBreakerService.js"
import * as retryBudgetService from "../../src/internal/retryBudgetService.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"
import { capturedLogs, degradedGauge, rejectedValues, type StoreOptions, storeOn } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const origin = "http://api.example.test:80"
let prefixes = 0
const freshPrefix = () => `hostile-${process.pid}-${++prefixes}`
// A timeout long enough for busy cores: these tests count warnings, and a round trip slower than
// 100 ms is not what they are about.
const fast: StoreOptions = { syncInterval: "50 millis", timeout: "2 seconds" }
const tenYearsMillis = 10 * 365 * 86_400_000

const command = (...args: Array<string>) => Effect.promise(() => redis.command(...args))

const budgetSettings = (input: RetryBudget.FinagleOptions): RetryBudget.Settings =>
  Either.getOrThrow(RetryBudget.validate(RetryBudget.finagle(input)))

// The origin's budget key, as the store names it for these settings.
const budgetKey = (prefix: string, settings: RetryBudget.Settings) =>
  SharedStore.keysFor(prefix).budget(
    SharedStore.settingsKey(JSON.stringify(retryBudgetService.toCoreSettings(settings))),
    origin
  )

// Redis's own clock, in seconds: the budget's buckets are its seconds.
const redisSeconds = Effect.map(command("TIME"), (reply) => Number(/^\*2\r\n\$\d+\r\n(\d+)\r\n/.exec(reply)?.[1]))

// How many of `asked` retries the budget allows, asked one after another.
const allowed = (budget: RetryBudget.RetryBudget.Service, asked: number) =>
  Effect.gen(function* () {
    let granted = 0
    for (let i = 0; i < asked; i++) if (yield* budget.tryRetry(origin, "transient-status")) granted++
    return granted
  })

// How many budget scripts Redis refused (OOM, WRONGTYPE) since its statistics were reset.
const refusedScripts = Effect.map(command("INFO", "commandstats"), (stats) => {
  const counts = /cmdstat_evalsha:.*rejected_calls=(\d+),failed_calls=(\d+)/.exec(stats)
  return Number(counts?.[1] ?? 0) + Number(counts?.[2] ?? 0)
})

describe.skipIf(skipWithout(redisServer))("Effect 3 the fleet store checks what it reads from Redis", () => {
  it.live(
    "a stored cool-down of 10 years is applied by a late joiner for a day at most; an endless one not at all",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const keys = SharedStore.keysFor(prefix)
          const before = yield* rejectedValues("cool_down_entry")
          // Written as a member of the prefix's cool-downs, scored by when it ends, as the store writes them.
          yield* command("ZADD", keys.coolDowns, String(Date.now() + tenYearsMillis), origin)
          yield* command("ZADD", keys.coolDowns, "+inf", "http://forever.example.test:80")
          const late = yield* storeOn(redis.url, prefix, fast)
          const left = yield* late.coolDownLeft(origin)
          expect(left).toBeLessThanOrEqual(CoolDown.maxMillis)
          expect(left).toBeGreaterThan(CoolDown.maxMillis - 60_000)
          expect(yield* late.coolDownLeft("http://forever.example.test:80")).toBe(0)
          expect((yield* rejectedValues("cool_down_entry")) - before).toBe(2)
        })
      )
  )

  it.live("a published cool-down of 10 years is cut to a day; a message that is none is dropped; each is counted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const prefix = freshPrefix()
        const keys = SharedStore.keysFor(prefix)
        const store = yield* storeOn(redis.url, prefix, fast)
        const before = yield* rejectedValues("cool_down_message")
        for (const message of ["0x1F4 http://hex.example.test:80", "-5 http://negative.example.test:80", "soon"]) {
          yield* command("PUBLISH", keys.channel, message)
        }
        yield* command("PUBLISH", keys.channel, `${tenYearsMillis} ${origin}`)
        yield* eventually(
          Effect.map(store.coolDownLeft(origin), (left) => left > 0),
          "the long cool-down applied"
        )
        expect(yield* store.coolDownLeft(origin)).toBeLessThanOrEqual(CoolDown.maxMillis)
        expect(yield* store.coolDownLeft("http://hex.example.test:80")).toBe(0)
        expect(yield* store.coolDownLeft("http://negative.example.test:80")).toBe(0)
        expect((yield* rejectedValues("cool_down_message")) - before).toBe(4)
      })
    )
  )

  it.live(
    "budget buckets no budget could hold are dropped: 9e15 does not open the fleet's budget, -9e15 does not close it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // Half a retry per request, no floor: 10 requests lend 5 retries.
          const settings = budgetSettings({ ratio: 0.5, minPerSecond: 0, ttl: "10 seconds" })
          const before = yield* rejectedValues("budget_bucket")
          for (const hostile of ["9000000000000000", "-9000000000000000"]) {
            const prefix = freshPrefix()
            const key = budgetKey(prefix, settings)
            const budget = (yield* storeOn(redis.url, prefix, fast)).retryBudget(settings)
            const now = yield* redisSeconds
            yield* command("HSET", key, String(now), hostile)
            for (let i = 0; i < 10; i++) yield* budget.onRequest(origin)
            expect(yield* allowed(budget, 20)).toBe(5)
          }
          expect((yield* rejectedValues("budget_bucket")) - before).toBe(2)
        })
      )
  )

  it.live(
    "a bucket that is not a second and a count is dropped, as is one from the future, instead of failing the script",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // The floor alone: 2 retries a second over a 2 s window, 4 for the fleet.
          const settings = budgetSettings({ ratio: 0, minPerSecond: 2, ttl: "2 seconds" })
          const prefix = freshPrefix()
          const key = budgetKey(prefix, settings)
          const budget = (yield* storeOn(redis.url, prefix, fast)).retryBudget(settings)
          const before = yield* rejectedValues("budget_bucket")
          const now = yield* redisSeconds
          // A count where a ratio-0 budget never deposits; letters; a fraction; a second ahead of
          // Redis's clock, which would never expire.
          yield* command("HSET", key, String(now), "3", "soon", "-1", String(now - 1), "1.5", String(now + 3600), "-4")
          const logs = capturedLogs()
          expect(yield* allowed(budget, 10).pipe(Effect.provide(logs.layer))).toBe(4)
          expect(logs.degraded()).toBe(0)
          expect((yield* rejectedValues("budget_bucket")) - before).toBe(4)
        })
      )
  )

  it.live(
    "a breaker's opening past its cap is held to the cap; a message that is none is dropped; each is counted",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const store = yield* storeOn(redis.url, prefix, { ...fast, shareCircuitBreaker: true })
          const breakerOptions: CircuitBreaker.Options = {
            tripPolicy: CircuitBreaker.consecutive(1),
            breakDuration: "1 minute",
            maxBreakDuration: "2 minutes"
          }
          const breaker = yield* CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin(breakerOptions))
          const controls = circuitBreakerService.controlsOf(breaker)
          expect(controls).toBeDefined()
          const settingsKey = SharedStore.settingsKey(JSON.stringify(controls?.settings))
          const channel = SharedStore.keysFor(prefix).breakerChannel
          const before = yield* rejectedValues("breaker_message")
          yield* command("PUBLISH", channel, `open 5000 intruder ${settingsKey}`)
          yield* command("PUBLISH", channel, `open 999999999 intruder ${settingsKey} ${origin}`)
          yield* eventually(
            Effect.map(breaker.state(origin), (state) => state._tag === "Open"),
            "the breaker open"
          )
          const state = yield* breaker.state(origin)
          const openFor = state._tag === "Open" ? Duration.toMillis(state.retryAfter) : 0
          // Its maxBreakDuration, less the time the message took; not 11 days.
          expect(openFor).toBeLessThanOrEqual(120_000)
          expect(openFor).toBeGreaterThan(60_000)
          expect((yield* rejectedValues("breaker_message")) - before).toBe(2)
        })
      )
  )
})

describe.skipIf(skipWithout(redisServer))(
  "Effect 3 the fleet store does not flap on a Redis that answers PING and refuses",
  () => {
    // Calls go on meanwhile: each makes a request (a deposit for the next flush) and asks for a retry.
    const traffic = (budget: RetryBudget.RetryBudget.Service) =>
      Effect.forever(
        Effect.andThen(
          Effect.andThen(budget.onRequest(origin), budget.tryRetry(origin, "transient-status")),
          Effect.sleep("10 millis")
        )
      )

    // One episode: one warning, the gauge at 1 throughout, while Redis refuses at least `probes`
    // of the store's scripts; then, once `repair` has run, one "answers again" and the gauge at 0.
    const oneEpisode = (refuse: (key: string) => Effect.Effect<void>, repair: (key: string) => Effect.Effect<void>) =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        yield* Effect.scoped(
          Effect.gen(function* () {
            const settings = budgetSettings({ ratio: 0.1, minPerSecond: 10, ttl: "10 seconds" })
            const prefix = freshPrefix()
            const budget = (yield* storeOn(redis.url, prefix, fast)).retryBudget(settings)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            const key = budgetKey(prefix, settings)
            yield* command("CONFIG", "RESETSTAT")
            yield* refuse(key)
            const calls = yield* Effect.fork(traffic(budget))
            yield* eventually(
              Effect.sync(() => logs.degraded() === 1),
              "degraded"
            )
            let gaugeDropped = false
            // Refused again and again: the probes, backing off (50, 100, 200, 400 ms, ...).
            yield* eventually(
              Effect.gen(function* () {
                if ((yield* degradedGauge) !== 1) gaugeDropped = true
                return (yield* refusedScripts) >= 5
              }),
              "refused probes"
            )
            expect(gaugeDropped).toBe(false)
            expect(logs.degraded()).toBe(1)
            expect(logs.resumed()).toBe(0)
            yield* repair(key)
            yield* eventually(
              Effect.sync(() => logs.resumed() === 1),
              "sharing resumed"
            )
            expect(yield* degradedGauge).toBe(0)
            expect(logs.degraded()).toBe(1)
            yield* Fiber.interrupt(calls)
          })
        ).pipe(Effect.provide(logs.layer))
      })

    // Held, not changed: a paused Redis leaves the store's connection waiting on its first write,
    // PINGs included, so the store stays degraded as for an outage.
    it.live("writes paused for a second (CLIENT PAUSE WRITE), calls going on: one warning, one transition", () =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        yield* Effect.scoped(
          Effect.gen(function* () {
            const settings = budgetSettings({ ratio: 0.1, minPerSecond: 10, ttl: "10 seconds" })
            // A short timeout: a paused write is what it is about.
            const budget = (yield* storeOn(redis.url, freshPrefix(), {
              syncInterval: "50 millis",
              timeout: "100 millis"
            })).retryBudget(settings)
            expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
            yield* command("CLIENT", "PAUSE", "1000", "WRITE")
            const calls = yield* Effect.fork(traffic(budget))
            let gaugeDropped = false
            yield* eventually(
              Effect.gen(function* () {
                if (logs.degraded() === 1 && logs.resumed() === 0 && (yield* degradedGauge) !== 1) gaugeDropped = true
                return logs.resumed() === 1
              }),
              "sharing resumed once the pause is over"
            )
            expect(gaugeDropped).toBe(false)
            expect(logs.degraded()).toBe(1)
            expect(yield* degradedGauge).toBe(0)
            yield* Fiber.interrupt(calls)
          })
        ).pipe(Effect.provide(logs.layer), Effect.ensuring(Effect.ignore(command("CLIENT", "UNPAUSE"))))
      })
    )

    it.live("WRONGTYPE at the origin's budget key: one warning, one transition, until the key is fixed", () =>
      oneEpisode(
        (key) => Effect.asVoid(Effect.andThen(command("DEL", key), command("SET", key, "not a hash"))),
        (key) => Effect.asVoid(command("DEL", key))
      )
    )

    it.live("OOM (maxmemory 1mb, noeviction): one warning, one transition, until memory is given back", () =>
      Effect.gen(function* () {
        // Past 1 MB whatever the server holds already, so that every write is refused.
        yield* command("SET", "ballast", "x".repeat(2_000_000))
        yield* oneEpisode(
          () =>
            Effect.asVoid(
              Effect.andThen(
                command("CONFIG", "SET", "maxmemory-policy", "noeviction"),
                command("CONFIG", "SET", "maxmemory", "1mb")
              )
            ),
          () => Effect.asVoid(command("CONFIG", "SET", "maxmemory", "0"))
        )
      }).pipe(
        Effect.ensuring(
          Effect.ignore(Effect.andThen(command("CONFIG", "SET", "maxmemory", "0"), command("DEL", "ballast")))
        )
      )
    )
  }
)
