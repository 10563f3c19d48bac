// @generated from templates/test/e2e/redisTenants.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Tenants on one real redis-server (issue #31): stores on two prefixes stand for two services
 * sharing a Redis. Whatever the prefixes (one a prefix of the other's keys, or holding the
 * characters a glob pattern reads: `\ * ? [`), neither sees the other's cool-downs, retry budget
 * or breaker openings, live or as a process that joins later.
 */
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import type * as ResilienceStore from "../../src/ResilienceStore.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"
import { storeOn } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

// One store, as one process of a tenant would have it, for the test's scope; breakers shared.
// A timeout long enough that a busy machine never makes a retry decide locally.
const storeOf = (prefix: string) => storeOn(redis.url, prefix, { shareCircuitBreaker: true, timeout: "2 seconds" })

// How many connections listen on a channel.
const listeners = (channel: string) =>
  Effect.map(
    Effect.promise(() => redis.command("PUBSUB", "NUMSUB", channel)),
    (reply) => Number(/:(\d+)\r\n$/.exec(reply)?.[1])
  )

// Both processes of each tenant listening on both of its channels.
const allListening = (prefixes: ReadonlyArray<string>) =>
  eventually(
    Effect.map(
      Effect.forEach(
        prefixes.flatMap((prefix) => [SharedStore.keysFor(prefix).channel, SharedStore.keysFor(prefix).breakerChannel]),
        listeners
      ),
      (counts) => counts.every((count) => count === 2)
    ),
    "every store listening"
  )

// ratio 0: the floor alone, 1 retry a second over 10 s: 10 retries for a tenant's whole fleet.
// A window much longer than the test, so that no withdrawal leaves it on a busy machine.
const budget = Result.getOrThrow(
  RetryBudget.validate(RetryBudget.finagle({ ratio: 0, minPerSecond: 1, ttl: "10 seconds" }))
)
const breakerOptions: CircuitBreaker.Options = { tripPolicy: CircuitBreaker.consecutive(1), breakDuration: "1 minute" }

const coolingDown = (store: ResilienceStore.ResilienceStore.Service, origin: string) =>
  Effect.map(store.coolDownLeft(origin), (left) => left > 0)
const breakerOpen = (store: ResilienceStore.ResilienceStore.Service, origin: string) =>
  Effect.flatMap(CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin(breakerOptions)), (breaker) =>
    Effect.map(breaker.state(origin), (state) => state._tag === "Open")
  )
// Opens the store's breaker for `origin` by its own decision: one failed attempt.
const trip = (store: ResilienceStore.ResilienceStore.Service, origin: string) =>
  Effect.flatMap(CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin(breakerOptions)), (breaker) =>
    Effect.ignore(breaker.execute(Effect.fail("refused"), origin))
  )
const retries = (store: ResilienceStore.ResilienceStore.Service, origin: string, times: number) =>
  Effect.forEach(Array.from({ length: times }), () => store.retryBudget(budget).tryRetry(origin, "transient-status"))

// What a reader on the old key format (`<prefix>:cooldown:<origin>`, found by `SCAN MATCH
// <prefix>:cooldown:*`) made of the writer's key: tenant `a` read `a:cooldown:x`'s cool-down of
// `o` as one of `x:cooldown:o`, tenant `t\` read `t`'s `http://...` as `ttp://...`.
const oldMisreading = (reader: string, writer: string, origin: string) =>
  `${writer}:cooldown:${origin}`.slice(`${reader}:cooldown:`.length)

// Two tenants, `mine` and `theirs`, two processes each, then a late joiner of each.
const isolated = (mine: string, theirs: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* Effect.promise(() => redis.command("FLUSHALL"))
      const [first, second, theirFirst, theirSecond] = yield* Effect.all([
        storeOf(mine),
        storeOf(mine),
        storeOf(theirs),
        storeOf(theirs)
      ])
      yield* allListening([mine, theirs])
      const a = "http://a.example.test:80"
      const b = "http://b.example.test:80"
      const c = "http://c.example.test:80"

      // Cool-downs, live. Each wait for a message means the other tenant's messages published
      // before it have reached the same process too, had they been sent to it.
      yield* first.coolDown(a, 30_000)
      yield* eventually(coolingDown(second, a), `${mine}: its second process cooling down`)
      yield* theirFirst.coolDown(b, 30_000)
      yield* eventually(coolingDown(theirSecond, b), `${theirs}: its second process cooling down`)
      yield* first.coolDown(c, 30_000)
      yield* eventually(coolingDown(second, c), `${mine}: the next cool-down`)
      expect(yield* coolingDown(theirSecond, a)).toBe(false)
      expect(yield* coolingDown(second, b)).toBe(false)
      expect(yield* coolingDown(first, b)).toBe(false)

      // Cool-downs, as a process that joins later reads them: its own, and no one else's.
      const late = yield* storeOf(mine)
      const theirLate = yield* storeOf(theirs)
      expect([yield* coolingDown(late, a), yield* coolingDown(late, c), yield* coolingDown(late, b)]).toEqual([
        true,
        true,
        false
      ])
      expect([
        yield* coolingDown(theirLate, b),
        yield* coolingDown(theirLate, a),
        yield* coolingDown(theirLate, c)
      ]).toEqual([true, false, false])
      for (const origin of [a, b, c]) {
        for (const [store, reader, writer] of [
          [late, mine, theirs],
          [theirLate, theirs, mine]
        ] as const) {
          const misread = oldMisreading(reader, writer, origin)
          if (misread !== origin) expect(yield* coolingDown(store, misread)).toBe(false)
        }
      }

      // The retry budget: each tenant's floor is its own, lent once to its fleet.
      const floor = Array.from({ length: 10 }, () => true)
      expect(yield* retries(first, a, 10)).toEqual(floor)
      expect(yield* retries(second, a, 1)).toEqual([false])
      expect(yield* retries(theirFirst, a, 10)).toEqual(floor)
      expect(yield* retries(theirSecond, a, 1)).toEqual([false])

      // Breaker openings, in the same order as the cool-downs.
      yield* trip(first, a)
      yield* eventually(breakerOpen(second, a), `${mine}: its second process's breaker open`)
      yield* trip(theirFirst, b)
      yield* eventually(breakerOpen(theirSecond, b), `${theirs}: its second process's breaker open`)
      yield* trip(first, c)
      yield* eventually(breakerOpen(second, c), `${mine}: the next opening`)
      expect(yield* breakerOpen(theirSecond, a)).toBe(false)
      expect(yield* breakerOpen(second, b)).toBe(false)
    })
  )

describe.skipIf(skipWithout(redisServer))("Effect 4 tenants on one Redis: no prefix sees another's state", () => {
  it.live("a prefix of another's keys: a and a:cooldown:x", () =>
    Effect.gen(function* () {
      yield* isolated("a", "a:cooldown:x")
      yield* isolated("a:cooldown:x", "a")
    })
  )

  it.live("prefixes with the characters of glob patterns: t\\, t*, t?, t[ beside t", () =>
    Effect.gen(function* () {
      for (const glob of ["t\\", "t*", "t?", "t["]) yield* isolated(glob, "t")
      yield* isolated("t", "t*")
    })
  )
})
