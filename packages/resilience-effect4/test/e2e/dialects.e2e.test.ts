// @generated from templates/test/e2e/dialects.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Issue #42 over real loopback sockets: the chaos server's rate-limited route speaking each API's
 * documented headers (OpenAI, Anthropic, Discord, GitHub, the IETF draft Cloudflare sends) with a
 * quota of 10 a second, met by 40 calls with 10 in flight. Nothing here is timed: the server counts
 * what it let through and what it refused, and a busy machine only sends later, never sooner.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as RateLimit from "../../src/RateLimit.js"
import { count, runCalls } from "../support/rateLimitRuns.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const rateLimitStats = Effect.promise(() => chaos.stats().then((stats) => stats.rateLimit))

const dialects = ["openai", "anthropic", "discord", "github", "ietf"] as const

describe("Effect 4 each API's rate-limit dialect against a server speaking it", () => {
  it.live(
    "a quota of 10 a second in each dialect, 40 calls with 10 in flight: all pass, no 429",
    () =>
      Effect.gen(function* () {
        const before = yield* rateLimitStats
        // Side by side, each with its own key and store: each dialect's run is its own.
        const runs = yield* Effect.forEach(
          dialects,
          (dialect) =>
            Effect.map(
              runCalls(
                `${chaos.url}/api/chaos/rate-limit/dialect-${dialect}?limit=10&window=1&headers=${dialect}`,
                40,
                10,
                {
                  // A 429 is not retried: each one the server answers is an outcome here.
                  maxAttempts: 1,
                  rateLimitHeaders: RateLimit.fromHeaders()
                }
              ),
              (outcomes) => [dialect, count(outcomes, "200"), count(outcomes, "429")] as const
            ),
          { concurrency: "unbounded" }
        )
        expect(runs).toEqual(dialects.map((dialect) => [dialect, 40, 0]))
        const after = yield* rateLimitStats
        expect([after.allowed - before.allowed, after.limited - before.limited]).toEqual([200, 0])
      }),
    60_000
  )
})
