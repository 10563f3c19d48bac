// @generated from templates/test/e2e/redisAcl.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * docs/overload.md's ACL for the store's Redis user (issue #40), against a real redis-server of
 * this file's own. The line names exactly the commands the store sends and its scripts run, read
 * from the code (never from what MONITOR shows: a script runs some commands on some branches
 * only). And every feature runs as the user the line makes, the line as the guide writes it (its
 * prefix, orders-api): cool-downs (10,000 origins at once), the budget (a bucket expired, one no
 * process could have written), shared breakers, the rate limit and its blocks; each command of
 * the line but the cluster's ran, and Redis refused none (ACL LOG). Every other Redis suite runs
 * the store as that user too (test/support/redisServer.ts), the cluster's included.
 */
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Fs from "node:fs"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as retryBudgetService from "../../src/internal/retryBudgetService.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { documentedAcl, type RedisInstance, startRedis, storeUserDenials } from "../support/redisServer.js"
import { capturedLogs, storeOn } from "../support/redisStores.js"
import type * as ResilienceStore from "../../src/ResilienceStore.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const prefix = "orders-api"
const password = "acl-test-password"
const rules = () => documentedAcl().split(/\s+/)
const username = () => rules()[2]!
const allowed = () => rules().flatMap((rule) => (rule.startsWith("+") ? [rule.slice(1)] : []))

// What the scripts run: Redis checks each command a script runs against the user.
const scriptCommands = [
  SharedStore.budgetScript,
  SharedStore.coolDownScript,
  SharedStore.readCoolDownsScript,
  SharedStore.rateLimitScript
].flatMap((script) => [...script.matchAll(/redis\.call\('([A-Z]+)'/g)].map((match) => match[1]!.toLowerCase()))

// What the store sends itself, read from its code: `send("SCRIPT", ["LOAD", …])` is `script|load`
// (a subcommand), `send("INFO", ["cluster"])` is `info` (an argument); and it subscribes.
const sentCommands = () =>
  Fs.readdirSync(new URL("../../src/internal/", import.meta.url))
    .filter((file) => file.endsWith(".ts"))
    .flatMap((file) => [
      ...Fs.readFileSync(new URL(`../../src/internal/${file}`, import.meta.url), "utf8").matchAll(
        /\.send\("([A-Z]+)",\s*\[(?:"([A-Z]+)")?/g
      )
    ])
    .map(([, command, sub]) => (sub === undefined ? command! : `${command}|${sub}`).toLowerCase())
    .concat("subscribe")

// What node-redis sends for the store on a cluster: the slots, the subscriptions let go of, a
// slot that moves.
const clusterCommands = ["cluster|slots", "unsubscribe", "asking"]

const budget = Result.getOrThrow(
  RetryBudget.validate(RetryBudget.finagle({ ratio: 0.5, minPerSecond: 1, ttl: "2 seconds" }))
)
const origin = "http://api.example.test:80"
// The Redis store shares the rate limit: its operations are there, or the test is wrong.
const sharedRateLimit = (
  store: ResilienceStore.ResilienceStore.Service
): ResilienceStore.ResilienceStore.RateLimitOperations => {
  if (store.rateLimit === undefined) throw new Error("the Redis store shares no rate limit")
  return store.rateLimit
}

const breakerOptions: CircuitBreaker.Options = { tripPolicy: CircuitBreaker.consecutive(1), breakDuration: "1 minute" }
const limit = { limit: 10, windowMillis: 1000, burst: 10 }

const command = (...args: Array<string>) => Effect.promise(() => redis.command(...args))

// How many times Redis ran each command since its statistics were reset (`script|load`, `zadd`).
const commandCalls = Effect.map(
  command("INFO", "commandstats"),
  (stats) =>
    new Map([...stats.matchAll(/cmdstat_(\S+?):calls=(\d+)/g)].map(([, name, calls]) => [name!, Number(calls)]))
)

// The branches only some traffic takes, set up as the default user: a budget bucket past the
// window and one no process could have written (each deleted: HDEL), and 10,000 origins cooling
// down for less than the test's (which then drops one of them: ZREMRANGEBYRANK).
const setUp = Effect.gen(function* () {
  const budgetKey = SharedStore.keysFor(prefix).budget(
    SharedStore.settingsKey(JSON.stringify(retryBudgetService.toCoreSettings(budget))),
    origin
  )
  const seconds = Number(/^\*2\r\n\$\d+\r\n(\d+)\r\n/.exec(yield* command("TIME"))?.[1])
  yield* command("HSET", budgetKey, String(seconds - 100), "1000", "soon", "-1")
  const endsAt = String(Date.now() + 30_000)
  const members = Array.from({ length: CoolDown.maxOrigins }, (_, n) => [endsAt, `http://${n}.example.test:80`]).flat()
  yield* command("ZADD", SharedStore.keysFor(prefix).coolDowns, ...members)
})

describe.skipIf(skipWithout(redisServer))("Effect 4 the store's ACL, docs/overload.md's", () => {
  it("names exactly the commands the store sends and its scripts run, on the prefix's keys and channels", () => {
    expect(rules().slice(0, 4)).toEqual(["ACL", "SETUSER", username(), "on"])
    expect(documentedAcl()).toContain(" resetkeys ~{orders-api}:* resetchannels &{orders-api}:channel:* -@all +")
    expect(new Set(sentCommands())).toEqual(new Set(["ping", "info", "script|load", "evalsha", "publish", "subscribe"]))
    expect(new Set(allowed())).toEqual(new Set([...sentCommands(), ...scriptCommands, ...clusterCommands]))
    expect(allowed()).toHaveLength(new Set(allowed()).size)
  })

  it.live("runs every feature as the line's user: each command of the line runs, and Redis refuses none", () =>
    Effect.gen(function* () {
      const logs = capturedLogs()
      yield* command(...rules().map((rule) => (rule.startsWith(">") ? `>${password}` : rule)))
      yield* setUp
      yield* command("CONFIG", "RESETSTAT")
      yield* command("ACL", "LOG", "RESET")
      const url = `redis://${username()}:${password}@127.0.0.1:${redis.port}`
      yield* Effect.scoped(
        Effect.gen(function* () {
          const options = { syncInterval: "50 millis", timeout: "2 seconds", shareCircuitBreaker: true } as const
          const a = yield* storeOn(url, prefix, options)
          const b = yield* storeOn(url, prefix, options)
          // A process follows the openings of the breakers it has.
          const breaker = yield* CircuitBreaker.fromStore(b, CircuitBreaker.perOrigin(breakerOptions))
          // The budget: deposits, and a retry, which deletes both buckets set up.
          for (let i = 0; i < 4; i++) yield* a.retryBudget(budget).onRequest(origin)
          expect(yield* a.retryBudget(budget).tryRetry(origin, "transient-status")).toBe(true)
          // A cool-down, past 10,000 origins; a breaker's opening; the rate limit and a block.
          yield* a.coolDown(origin, 60_000)
          yield* Effect.ignore(
            (yield* CircuitBreaker.fromStore(a, CircuitBreaker.perOrigin(breakerOptions))).execute(
              Effect.fail("refused"),
              origin
            )
          )
          expect((yield* sharedRateLimit(a).rateLimitTake("orders", limit, 0)).granted).toBe(true)
          yield* sharedRateLimit(a).rateLimitRefund("orders", limit, 0)
          yield* sharedRateLimit(a).rateLimitBlock("blocked", 60_000)
          yield* eventually(
            Effect.map(b.coolDownLeft(origin), (left) => left > 0),
            "the cool-down heard"
          )
          yield* eventually(
            Effect.map(breaker.state(origin), (state) => state._tag === "Open"),
            "the opening heard"
          )
          yield* eventually(
            Effect.map(sharedRateLimit(b).rateLimitTake("blocked", undefined, 0), (take) => !take.granted),
            "the block heard"
          )
          // A process that joins reads both.
          const late = yield* storeOn(url, prefix, options)
          expect(yield* late.coolDownLeft(origin)).toBeGreaterThan(0)
          expect((yield* sharedRateLimit(late).rateLimitTake("blocked", undefined, 0)).granted).toBe(false)
        })
      ).pipe(Effect.provide(logs.layer))
      const calls = yield* commandCalls
      const onOneRedis = allowed().filter((name) => !clusterCommands.includes(name))
      expect(onOneRedis.filter((name) => (calls.get(name) ?? 0) === 0)).toEqual([])
      expect(yield* Effect.promise(() => storeUserDenials(redis.port, undefined, username()))).toEqual([])
      expect(logs.lines.filter((line) => line.includes("degraded"))).toEqual([])
    })
  )
})
