// @generated from templates/test/e2e/spotify.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Issue #42 over real loopback sockets: a Spotify-like server (a rolling window, no remaining count,
 * its 429s' Retry-After rounded down to whole seconds, 0 in the window's last second, sometimes left
 * out) met by calls one after another. Nothing here is timed: a busy machine only sends later.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import { type CallOutcome, count, runCalls } from "../support/rateLimitRuns.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const rateLimitStats = Effect.promise(() => chaos.stats().then((stats) => stats.rateLimit))

const most = (outcomes: ReadonlyArray<CallOutcome>) => Math.max(...outcomes.map((o) => o.met429))
const sum = (outcomes: ReadonlyArray<CallOutcome>) => outcomes.reduce((total, o) => total + o.met429, 0)

describe("Effect 3 a Spotify-like rolling window whose 429s round Retry-After down", () => {
  it.live(
    "calls one after another: each meets at most one 429 once the window's first is answered",
    () =>
      Effect.gen(function* () {
        // The default policy. A window of 1 s: every Retry-After is 0, the window's rest under a second; read as
        // 1 s, the retry goes once the window has rolled on (at once, or after the 500 ms backoff, it met another).
        // A window of 2 s: a Retry-After of 1 may be 1.9 s, so the retry meets one more 429, whose 0 then holds the
        // call past the window. A 429 without Retry-After backs off as any transient status: 250 ms to 500 ms, then
        // twice that, enough for a window of 1 s within 5 attempts.
        const rolling = "algorithm=sliding&headers=none&limit=2"
        const before = yield* rateLimitStats
        const [second, twoSeconds, mixed] = yield* Effect.all(
          [
            runCalls(`${chaos.url}/api/chaos/rate-limit/spotify-1s?${rolling}&window=1&retryAfter=floor`, 10, 1, {}),
            runCalls(`${chaos.url}/api/chaos/rate-limit/spotify-2s?${rolling}&window=2&retryAfter=floor`, 6, 1, {}),
            runCalls(
              `${chaos.url}/api/chaos/rate-limit/spotify-mixed?${rolling}&window=1&retryAfter=floor-or-none`,
              10,
              1,
              { maxAttempts: 5 }
            )
          ],
          { concurrency: "unbounded" }
        )
        for (const outcomes of [second, twoSeconds, mixed]) {
          expect(count(outcomes, "200")).toBe(outcomes.length)
          // The server pushed back: each run spent its quota at least once (a call would have to take over 500 ms
          // for none to).
          expect(sum(outcomes)).toBeGreaterThanOrEqual(1)
        }
        expect([most(second), most(twoSeconds) <= 2]).toEqual([1, true])
        // Every 429 the server answered is one a call met.
        const after = yield* rateLimitStats
        expect(after.limited - before.limited).toBe(sum(second) + sum(twoSeconds) + sum(mixed))
      }),
    60_000
  )
})
