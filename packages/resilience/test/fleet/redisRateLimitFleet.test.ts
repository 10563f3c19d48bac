// @generated from templates/test/fleet/redisRateLimitFleet.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The fleet's rate limit (issue #34) with real OS processes: three programs, each its own Node.js
 * process (test/support/rateLimitMember.ts) with its own store on one real redis-server, call one
 * chaos server under a limit of 10 a ten-minute window with a burst of 10 (a token every minute after it, so
 * no refill comes within a run, and a call without a token would wait past its 30 s deadline: it
 * fails unsent). Together they send 10, not 30: the chaos server counts what reached it. Three
 * memory stores, the control, send 30. Counted, never timed.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { fleetAtQuota, fleet as fleetOn, sum, type Wiring } from "../support/rateLimitFleet.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"

let redis: RedisInstance
let chaos: StartedChaosServer
beforeAll(async () => {
  redis = await startRedis()
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
  await redis?.stop()
})

const fleet = (store: "redis" | "memory", wiring?: Wiring, calls?: number, limit?: number) =>
  fleetOn(redis.url, chaos, store, wiring, calls, limit)

describe.skipIf(skipWithout(redisServer))("Effect 3 a fleet of OS processes shares a rate limit through Redis", () => {
  it.live(
    "three processes with a limit of 10 send 10 together, not 30; three memory stores send 30",
    () =>
      Effect.gen(function* () {
        const shared = yield* fleet("redis")
        expect([
          shared.sent,
          sum(shared.outcomes, "ok"),
          sum(shared.outcomes, "rateLimited"),
          sum(shared.outcomes, "other")
        ]).toEqual([10, 10, 35, 0])
        const apart = yield* fleet("memory")
        expect([apart.sent, sum(apart.outcomes, "ok"), sum(apart.outcomes, "rateLimited")]).toEqual([30, 30, 15])
      }),
    { timeout: 120_000 }
  )

  // Issue #43: each process spends send times it leased from the fleet's bucket (one script call for
  // several of them), at their times: the fleet keeps the server's quota as a take per attempt did.
  for (const algorithm of ["fixed", "sliding"] as const) {
    it.live(
      `three processes, 10 calls each at once, at a ${algorithm}-window server's quota of 10 a second: 30 sent, no 429; three memory stores meet 429s`,
      () =>
        Effect.gen(function* () {
          const shared = yield* fleetAtQuota(redis.url, chaos, "redis", algorithm)
          expect([shared.allowed, shared.limited, sum(shared.outcomes, "ok"), sum(shared.outcomes, "other")]).toEqual([
            30, 0, 30, 0
          ])
          const apart = yield* fleetAtQuota(redis.url, chaos, "memory", algorithm)
          expect(apart.limited).toBeGreaterThan(0)
        }),
      { timeout: 120_000 }
    )
  }
})
