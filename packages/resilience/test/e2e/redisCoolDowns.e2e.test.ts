// @generated from templates/test/e2e/redisCoolDowns.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The cool-downs in force as Redis keeps them (issue #31): one sorted set per prefix,
 * `{prefix}:cooldowns`, of origins by the time each ends on Redis's clock, against a real
 * redis-server. A late joiner reads it in one round trip and applies only what is still in
 * force; a write drops what has ended and keeps at most as many origins as a process's memory;
 * the set expires with its longest cool-down; keys of the old format are ignored.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
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

let prefixes = 0
const freshPrefix = () => `cooldowns-${process.pid}-${++prefixes}`

// A timeout long enough that a busy machine never leaves a write unanswered.
const storeOf = (prefix: string) => storeOn(redis.url, prefix, { timeout: "2 seconds" })

const command = (...args: Array<string>) => Effect.promise(() => redis.command(...args))
const integer = (reply: string): number => Number(/^:(-?\d+)\r\n$/.exec(reply)?.[1])
const missing = "$-1\r\n"

describe.skipIf(skipWithout(redisServer))("Effect 3 the fleet's cool-downs in Redis: one sorted set per prefix", () => {
  it.live(
    "a late joiner applies what is in force, not what has ended nor keys of the old format; a write drops what has ended",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = freshPrefix()
          const key = `{${prefix}}:cooldowns`
          const store = yield* storeOf(prefix)
          yield* store.coolDown("http://short.example.test:80", 100)
          yield* store.coolDown("http://long.example.test:80", 30_000)
          yield* eventually(
            Effect.map(command("ZCARD", key), (reply) => integer(reply) === 2),
            "both cool-downs written"
          )
          // The set lives as long as its longest cool-down, no longer.
          const ttl = integer(yield* command("PTTL", key))
          expect(ttl).toBeGreaterThan(20_000)
          expect(ttl).toBeLessThanOrEqual(30_000)
          // Written by hand: one that ended long ago, and one in the old format (a key per origin).
          yield* command("ZADD", key, "1", "http://ended.example.test:80")
          yield* command("SET", `${prefix}:cooldown:http://old.example.test:80`, "1", "PX", "30000")

          const late = yield* storeOf(prefix)
          expect(yield* late.coolDownLeft("http://long.example.test:80")).toBeGreaterThan(20_000)
          expect(yield* late.coolDownLeft("http://ended.example.test:80")).toBe(0)
          expect(yield* late.coolDownLeft("http://old.example.test:80")).toBe(0)

          // Once the short one has ended, the next cool-down written drops it and the one that ended.
          let next = 0
          yield* eventually(
            Effect.gen(function* () {
              yield* store.coolDown(`http://next-${++next}.example.test:80`, 30_000)
              yield* eventually(
                Effect.map(command("ZSCORE", key, `http://next-${next}.example.test:80`), (reply) => reply !== missing),
                "the next cool-down written"
              )
              return (yield* command("ZSCORE", key, "http://short.example.test:80")) === missing
            }),
            "the ended cool-down dropped"
          )
          expect(yield* command("ZSCORE", key, "http://ended.example.test:80")).toBe(missing)
          expect(yield* command("ZSCORE", key, "http://long.example.test:80")).not.toBe(missing)
        })
      )
  )

  it.live("a write keeps at most 10,000 origins: the cool-down that ends first goes, as in a process's memory", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const prefix = freshPrefix()
        const key = `{${prefix}}:cooldowns`
        // 10,000 cool-downs in force, written by hand, ending in a minute and later.
        const now = Number(/\$\d+\r\n(\d+)\r\n/.exec(yield* command("TIME"))?.[1]) * 1000
        const members = Array.from({ length: 10_000 }, (_, i) => [
          String(now + 60_000 + i),
          `http://o${i}.example.test:80`
        ])
        yield* command("ZADD", key, ...members.flat())
        const store = yield* storeOf(prefix)
        yield* store.coolDown("http://new.example.test:80", 120_000)
        yield* eventually(
          Effect.map(command("ZSCORE", key, "http://new.example.test:80"), (reply) => reply !== missing),
          "the new cool-down written"
        )
        expect(integer(yield* command("ZCARD", key))).toBe(10_000)
        expect(yield* command("ZSCORE", key, "http://o0.example.test:80")).toBe(missing)
        expect(yield* command("ZSCORE", key, "http://o1.example.test:80")).not.toBe(missing)
      })
    )
  )
})
