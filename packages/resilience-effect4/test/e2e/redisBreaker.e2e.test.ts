// @generated from templates/test/e2e/redisBreaker.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * `ResilienceStoreRedis.layerRedis({ shareCircuitBreaker })` against a real redis-server (issue #18):
 * two stores on one Redis stand for two processes of a fleet. Shared, a breaker that opens in one
 * process opens the same breaker in the other, for that break, and nothing echoes back; off (the
 * default), nothing about breakers goes through Redis.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as Testing from "../../src/Testing.js"
import { eventually } from "../support/eventually.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"
import { type StoreOptions, storeOn as storeAt } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const origin = "http://api.example.test:80"
const other = "http://other.example.test:80"
let prefixes = 0
const freshPrefix = () => `breakers-${process.pid}-${++prefixes}`

type Options = StoreOptions

// One store, as one process of the fleet would have it, for the test's scope.
const storeOn = (prefix: string, options: Options = {}) => storeAt(redis.url, prefix, options)

const shared: Options = { shareCircuitBreaker: true }

// One failure opens it, for a minute: nothing in a test waits for the break to end.
const breakerOptions: CircuitBreaker.Options = { tripPolicy: CircuitBreaker.consecutive(1), breakDuration: "1 minute" }

// Opens the breaker for `at` by its own decision: one failed attempt.
const fail = (breaker: CircuitBreaker.CircuitBreaker.Service, at: string) =>
  Effect.ignore(breaker.execute(Effect.fail("refused"), at))

const isOpen = (breaker: CircuitBreaker.CircuitBreaker.Service, at: string) =>
  Effect.map(breaker.state(at), (state) => state._tag === "Open")

// How many connections listen on the prefix's breaker channel.
const breakerListeners = (prefix: string) =>
  Effect.map(
    Effect.promise(() => redis.command("PUBSUB", "NUMSUB", `{${prefix}}:channel:breakers`)),
    (reply) => Number(/:(\d+)\r\n$/.exec(reply)?.[1])
  )

// PUBLISH commands Redis ran since its statistics were reset.
const publishes = Effect.map(
  Effect.promise(() => redis.command("INFO", "commandstats")),
  (stats) => Number(/cmdstat_publish:calls=(\d+)/.exec(stats)?.[1] ?? 0)
)

// A store's breaker of these settings that records its state changes.
const observed = (store: ResilienceStore.ResilienceStore.Service) =>
  Effect.gen(function* () {
    const changes: Array<CircuitBreaker.StateChange> = []
    const breaker = yield* CircuitBreaker.fromStore(
      store,
      CircuitBreaker.perOrigin({
        ...breakerOptions,
        onStateChange: (change) =>
          Effect.sync(() => {
            changes.push(change)
          })
      })
    )
    return { breaker, changes }
  })

describe.skipIf(skipWithout(redisServer))(
  "Effect 4 ResilienceStoreRedis.layerRedis({ shareCircuitBreaker }) against a real redis-server",
  () => {
    it.live(
      "shared: a breaker that opens in one process opens the same breaker in another, whose calls fail fast",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const prefix = freshPrefix()
            const first = yield* storeOn(prefix, shared)
            const second = yield* storeOn(prefix, shared)
            yield* eventually(
              Effect.map(breakerListeners(prefix), (n) => n === 2),
              "both stores listening"
            )
            // The second process calls the origin through a client, with the same breaker options.
            const scripted = yield* Testing.scriptedHttpClient([{ status: 200 }])
            const client = ResilientHttpClient.withResilience(scripted.client, {
              maxAttempts: 1,
              circuitBreaker: CircuitBreaker.perOrigin(breakerOptions)
            })
            const call = Effect.scoped(client.get(`${origin}/items`)).pipe(
              Effect.provideService(ResilienceStore.ResilienceStore, second)
            )
            expect((yield* call).status).toBe(200)

            yield* fail(yield* CircuitBreaker.fromStore(first, CircuitBreaker.perOrigin(breakerOptions)), origin)
            const secondBreaker = yield* CircuitBreaker.fromStore(second, CircuitBreaker.perOrigin(breakerOptions))
            yield* eventually(isOpen(secondBreaker, origin), "the second process's breaker open")
            const state = yield* secondBreaker.state(origin)
            // For the break the first one opened for (a minute), less the time the message took.
            expect(state._tag === "Open" && Duration.toMillis(state.retryAfter) > 30_000).toBe(true)
            // Its calls there fail fast, as from an opening of its own: nothing is sent.
            expect(yield* Effect.flip(call)).toMatchObject({ _tag: "ConnectionError", reason: "CircuitOpen" })
            expect((yield* scripted.requests).length).toBe(1)
            // Another origin, and breakers of other settings, are untouched.
            expect(yield* isOpen(secondBreaker, other)).toBe(false)
            const otherSettings = yield* CircuitBreaker.fromStore(
              second,
              CircuitBreaker.perOrigin({ ...breakerOptions, breakDuration: "2 minutes" })
            )
            expect(yield* isOpen(otherSettings, origin)).toBe(false)
          })
        )
    )

    it.live(
      "shared: a slowCalls breaker's trip on slow calls opens the fleet's; after the break each process samples its own halfOpen.probes",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const prefix = freshPrefix()
            const first = yield* storeOn(prefix, shared)
            const second = yield* storeOn(prefix, shared)
            yield* eventually(
              Effect.map(breakerListeners(prefix), (n) => n === 2),
              "both stores listening"
            )
            // Issue #44's options are part of the settings the fleet knows a breaker by.
            const slowOptions: CircuitBreaker.Options = {
              tripPolicy: CircuitBreaker.consecutive(5),
              breakDuration: "1 second",
              slowCalls: { duration: "50 millis", ratio: 1, minimumThroughput: 1 },
              halfOpen: { probes: 2, successes: 2 }
            }
            const firstBreaker = yield* CircuitBreaker.fromStore(first, CircuitBreaker.perOrigin(slowOptions))
            const secondBreaker = yield* CircuitBreaker.fromStore(second, CircuitBreaker.perOrigin(slowOptions))
            const plain = yield* CircuitBreaker.fromStore(second, CircuitBreaker.perOrigin(breakerOptions))
            // One call that succeeds, slowly: the first process's breaker opens by its own decision.
            yield* firstBreaker.execute(Effect.sleep("100 millis"), origin)
            expect(yield* isOpen(firstBreaker, origin)).toBe(true)
            yield* eventually(isOpen(secondBreaker, origin), "the second process's slowCalls breaker open")
            expect(yield* isOpen(plain, origin)).toBe(false)
            // Once the break is over, the second process lets its own two probes through, not a third.
            yield* eventually(
              Effect.map(
                secondBreaker.state(origin),
                (state) => state._tag === "Open" && Duration.toMillis(state.retryAfter) === 0
              ),
              "the second process's break over"
            )
            const probes = [yield* secondBreaker.acquire(origin), yield* secondBreaker.acquire(origin)]
            expect(probes.map((permit) => permit.probe)).toEqual([true, true])
            expect(yield* Effect.flip(secondBreaker.acquire(origin))).toMatchObject({
              _tag: "CircuitOpen",
              state: "HalfOpen"
            })
            yield* probes[0]!.report(CircuitBreaker.success)
            expect((yield* secondBreaker.state(origin))._tag).toBe("HalfOpen")
            yield* probes[1]!.report(CircuitBreaker.success)
            expect(yield* secondBreaker.state(origin)).toEqual({ _tag: "Closed", origin })
            // A close is never told: the first process's circuit is still its own to probe.
            expect((yield* firstBreaker.state(origin))._tag).not.toBe("Closed")
          })
        )
    )

    it.live(
      "off (the default): the other process's breaker stays closed, and nothing about breakers goes through Redis",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const prefix = freshPrefix()
            const first = yield* storeOn(prefix)
            const second = yield* storeOn(prefix)
            const secondBreaker = yield* CircuitBreaker.fromStore(second, CircuitBreaker.perOrigin(breakerOptions))
            yield* Effect.promise(() => redis.command("CONFIG", "RESETSTAT"))
            const firstBreaker = yield* CircuitBreaker.fromStore(first, CircuitBreaker.perOrigin(breakerOptions))
            yield* fail(firstBreaker, origin)
            expect(yield* isOpen(firstBreaker, origin)).toBe(true)
            // A cool-down published after the opening has reached the second process: an opening
            // published before it would have too.
            yield* first.coolDown(other, 60_000)
            yield* eventually(
              Effect.map(second.coolDownLeft(other), (left) => left > 0),
              "the cool-down"
            )
            expect(yield* secondBreaker.state(origin)).toEqual({ _tag: "Closed", origin })
            expect(yield* breakerListeners(prefix)).toBe(0)
            // The cool-down's script publishes once; nothing else does.
            expect(yield* publishes).toBe(1)
          })
        )
    )

    it.live("an opening learned from another process is not published again, and a process ignores its own", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const first = yield* observed(yield* storeOn(prefix, shared))
          const second = yield* observed(yield* storeOn(prefix, shared))
          yield* eventually(
            Effect.map(breakerListeners(prefix), (n) => n === 2),
            "both stores listening"
          )
          yield* Effect.promise(() => redis.command("CONFIG", "RESETSTAT"))

          yield* fail(first.breaker, origin)
          // Closed by hand at once: its own message, or one echoed back, would open it again.
          yield* first.breaker.close(origin)
          // The second process sees the forced opening as any opening, with the first's break.
          yield* eventually(
            Effect.sync(() => second.changes.some((change) => change.origin === origin && change.to === "Open")),
            "the second process's opening"
          )
          const opening = second.changes.find((change) => change.origin === origin)
          expect(opening).toMatchObject({ from: "Closed", to: "Open", manual: false })
          expect(opening?.to === "Open" && Duration.toMillis(opening.breakDuration)).toBe(60_000)

          // The second process's own opening of another origin, told after anything it would have
          // echoed, has reached the first.
          yield* fail(second.breaker, other)
          yield* eventually(isOpen(first.breaker, other), "the first process's breaker for the other origin")
          yield* eventually(
            Effect.sync(() => first.changes.some((change) => change.origin === other)),
            "the first process's observer"
          )

          // The first process opened once for the origin, by itself; the close was its own and is
          // not shared; two openings were published, one by each process.
          expect(first.changes.filter((change) => change.origin === origin).map((change) => change.to)).toEqual([
            "Open",
            "Closed"
          ])
          expect(yield* first.breaker.state(origin)).toEqual({ _tag: "Closed", origin })
          expect(yield* isOpen(second.breaker, origin)).toBe(true)
          expect(yield* publishes).toBe(2)
        })
      )
    )
  }
)
