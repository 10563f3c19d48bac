// @generated from templates/test/e2e/redisDeaf.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A store whose Redis user may not SUBSCRIBE, or may not PUBLISH, is never deaf in silence (issue
 * #40), against a real redis-server of this file's own: the store's user is docs/overload.md's,
 * less the one command. Denied SUBSCRIBE, the process would never hear the fleet's cool-downs:
 * one warning names SUBSCRIBE and Redis's reply, the degraded gauge reads 1 while the probes'
 * subscriptions are refused, and sharing resumes, once, when the user may subscribe again. Denied
 * PUBLISH, a cool-down script stops after its ZADD: that is a failure, the store does not flap
 * while cool-downs and breaker openings go on, and the cool-down is told once Redis takes it.
 */
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import { eventually } from "../support/eventually.js"
import { parseReply, type RedisInstance, startRedis, storeUser } from "../support/redisServer.js"
import { capturedLogs, degradedGauge, type StoreOptions, storeOn } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

let prefixes = 0
const freshPrefix = () => `deaf-${process.pid}-${++prefixes}`
// A timeout long enough for busy cores: these tests count warnings, not slow round trips.
const fast: StoreOptions = { syncInterval: "50 millis", timeout: "2 seconds", shareCircuitBreaker: true }
const origin = "http://api.example.test:80"
const breakerOptions: CircuitBreaker.Options = { tripPolicy: CircuitBreaker.consecutive(1), breakDuration: "1 minute" }

const command = (...args: Array<string>) => Effect.promise(() => redis.command(...args))

// The store's user, less `denied`, for `body`; then as the guide has it again, and what Redis
// refused it meanwhile (this test's doing) forgotten, for the file's end to check the rest.
const denying = <A, E, R>(denied: string, body: Effect.Effect<A, E, R>) =>
  Effect.andThen(
    command("ACL", "SETUSER", storeUser.username, `-${denied}`),
    Effect.ensuring(
      body,
      Effect.andThen(command("ACL", "SETUSER", storeUser.username, `+${denied}`), command("ACL", "LOG", "RESET"))
    )
  )

// How many times Redis refused the store's user since the log was reset (ACL LOG counts alike
// refusals in one entry).
const refusals = Effect.map(command("ACL", "LOG", "128"), (raw) => {
  const log = parseReply(raw)
  return (Array.isArray(log) ? log : []).reduce((sum: number, entry) => {
    if (!Array.isArray(entry)) return sum
    const fields = new Map(entry.flatMap((field, i) => (i % 2 === 0 ? [[field, entry[i + 1]] as const] : [])))
    return fields.get("username") === storeUser.username ? sum + Number(fields.get("count")) : sum
  }, 0)
})

// Waits until Redis refused the store `times` times, the gauge at 1 throughout.
const refusedWhileDegraded = (times: number) =>
  Effect.gen(function* () {
    let gaugeDropped = false
    yield* eventually(
      Effect.gen(function* () {
        if ((yield* degradedGauge) !== 1) gaugeDropped = true
        return (yield* refusals) >= times
      }),
      `${times} refusals`
    )
    return gaugeDropped
  })

describe.skipIf(skipWithout(redisServer))("Effect 4 a store never deaf in silence", () => {
  it.live(
    "SUBSCRIBE denied: one warning naming it and Redis's NOPERM, the gauge at 1 while refused, then sharing resumes once",
    () =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        const prefix = freshPrefix()
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* command("ACL", "LOG", "RESET")
            const deaf = yield* denying(
              "subscribe",
              Effect.gen(function* () {
                const store = yield* storeOn(redis.url, prefix, fast)
                yield* eventually(
                  Effect.sync(() => logs.degraded() === 1),
                  "the warning"
                )
                // Refused again by the probes, with the store's backoff: one episode throughout.
                expect(yield* refusedWhileDegraded(6)).toBe(false)
                expect(logs.degraded()).toBe(1)
                expect(logs.resumed()).toBe(0)
                return store
              })
            )
            const warning = logs.lines.find((line) => line.startsWith("ResilienceStore on Redis is degraded"))
            expect(warning).toMatch(
              new RegExp(
                `refused by Redis: NOPERM this user has no permissions to run the 'subscribe' command \\(on SUBSCRIBE \\{${prefix}\\}:channel:`
              )
            )
            // Allowed again: it subscribes, says so once, and hears the fleet.
            yield* eventually(
              Effect.sync(() => logs.resumed() === 1),
              "sharing resumed"
            )
            expect(yield* degradedGauge).toBe(0)
            const other = yield* storeOn(redis.url, prefix, fast)
            yield* other.coolDown(origin, 30_000)
            yield* eventually(
              Effect.map(deaf.coolDownLeft(origin), (left) => left > 0),
              "the fleet's cool-down heard"
            )
            expect(logs.degraded()).toBe(1)
            expect(logs.resumed()).toBe(1)
          })
        ).pipe(Effect.provide(logs.layer))
      })
  )

  it.live(
    "PUBLISH denied: a script stopped at it is a failure; one warning naming it, no flapping; the cool-down told once allowed",
    () =>
      Effect.gen(function* () {
        const logs = capturedLogs()
        const prefix = freshPrefix()
        yield* Effect.scoped(
          Effect.gen(function* () {
            const a = yield* storeOn(redis.url, prefix, fast)
            const b = yield* storeOn(redis.url, prefix, fast)
            const breakers = yield* CircuitBreaker.fromStore(a, CircuitBreaker.perOrigin(breakerOptions))
            yield* command("ACL", "LOG", "RESET")
            yield* denying(
              "publish",
              Effect.gen(function* () {
                yield* a.coolDown(origin, 60_000)
                yield* eventually(
                  Effect.sync(() => logs.degraded() === 1),
                  "the warning"
                )
                // Its ZADD ran before the PUBLISH Redis refused.
                const written = yield* command("ZSCORE", SharedStore.keysFor(prefix).coolDowns, origin)
                expect(written).not.toBe("$-1\r\n")
                // Cool-downs that end, breakers that open, one after another: still one episode.
                const traffic = yield* Effect.forkChild(
                  Effect.forEach(
                    Array.from({ length: 1000 }, (_, n) => `http://${n}.example.test:80`),
                    (other) =>
                      Effect.all([
                        a.coolDown(other, 100),
                        Effect.ignore(breakers.execute(Effect.fail("refused"), other)),
                        Effect.sleep("20 millis")
                      ]),
                    { discard: true }
                  )
                )
                expect(yield* refusedWhileDegraded(12)).toBe(false)
                yield* Fiber.interrupt(traffic)
                expect(logs.degraded()).toBe(1)
                expect(logs.resumed()).toBe(0)
                // Not heard: the script stopped before it told the fleet.
                expect(yield* b.coolDownLeft(origin)).toBe(0)
              })
            )
            const warning = logs.lines.find((line) => line.startsWith("ResilienceStore on Redis is degraded"))
            expect(warning).toMatch(
              /\(refused by Redis: ERR The user executing the script can't run this command or subcommand .*\(on the cool-down script \(EVALSHA\), at its PUBLISH\)\)/
            )
            // Allowed again: the cool-down is told, and the store says so once.
            yield* eventually(
              Effect.sync(() => logs.resumed() === 1),
              "sharing resumed"
            )
            yield* eventually(
              Effect.map(b.coolDownLeft(origin), (left) => left > 30_000),
              "the cool-down told again"
            )
            expect(yield* degradedGauge).toBe(0)
            expect(logs.degraded()).toBe(1)
          })
        ).pipe(Effect.provide(logs.layer))
      })
  )
})
