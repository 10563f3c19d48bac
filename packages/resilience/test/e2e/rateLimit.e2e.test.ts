// @generated from templates/test/e2e/rateLimit.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The client's rate limit (issue #34) over real loopback sockets against the chaos server's
 * rate-limited route (fixed windows per key, announced in `RateLimit` and `X-RateLimit-*`): calls
 * one after another, or five in flight, so that every count is the same on a busy machine. The
 * server counts what it let through and what it answered 429; nothing here is timed.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as RateLimit from "../../src/RateLimit.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import type * as RetryPolicy from "../../src/RetryPolicy.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const rateLimitStats = Effect.promise(() => chaos.stats().then((stats) => stats.rateLimit))

/**
 * `calls` GETs of one key, `inFlight` at a time (one after another by default), each its own call
 * (`maxAttempts: 1`: a 429 is not retried, so each is seen): the outcome of each, and what the
 * server allowed and refused meanwhile.
 */
const sequence = (key: string, query: string, calls: number, options: RetryPolicy.Options, inFlight = 1) =>
  Effect.gen(function* () {
    const before = yield* rateLimitStats
    const client = yield* ResilientHttpClient.make({ maxAttempts: 1, ...options })
    const call = Effect.scoped(
      Effect.map(client.get(`${chaos.url}/api/chaos/rate-limit/${key}?${query}`), (response) => String(response.status))
    ).pipe(
      Effect.catchAll((failure: HttpFailure.HttpFailure) =>
        Effect.succeed(
          HttpFailure.isConnectionError(failure)
            ? failure.reason
            : String(failure._tag === "TransientStatus" ? failure.status : failure._tag)
        )
      )
    )
    const outcomes = yield* Effect.all(
      Array.from({ length: calls }, () => call),
      { concurrency: inFlight }
    )
    const after = yield* rateLimitStats
    return { outcomes, allowed: after.allowed - before.allowed, limited: after.limited - before.limited }
    // A store of each test's own: the blocks and cool-downs of the server's origin are not shared.
  }).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.provide(ResilienceStore.layerMemory()))

const count = (outcomes: ReadonlyArray<string>, outcome: string) => outcomes.filter((o) => o === outcome).length

describe("Effect 3 rate limit against the chaos server", () => {
  it.live("without learning, 25 calls against a limit of 10 a minute meet 15 429s", () =>
    Effect.gen(function* () {
      // Each 429's Retry-After is the call's alone: the origin's cool-down would hold the rest.
      const run = yield* sequence("unlearnt", "limit=10&window=60", 25, { retryAfterScope: "call" })
      expect([run.allowed, run.limited, count(run.outcomes, "429")]).toEqual([10, 15, 15])
    })
  )

  it.live(
    "learning the headers: the 10th answer's remaining 0 holds the rest, which fail RateLimited unsent: no 429",
    () =>
      Effect.gen(function* () {
        // The reset is a minute away, past the default 30 s total timeout: no call may wait for it.
        for (const headers of ["both", "ietf", "x"]) {
          const run = yield* sequence(`learnt-${headers}`, `limit=10&window=60&headers=${headers}`, 25, {
            rateLimitHeaders: RateLimit.fromHeaders()
          })
          expect([run.allowed, run.limited, count(run.outcomes, "200"), count(run.outcomes, "RateLimited")]).toEqual([
            10, 0, 10, 15
          ])
        }
      })
  )

  it.live(
    "learning the headers with 5 calls in flight: the remaining count is spent as a budget, 10 pass, no 429",
    () =>
      Effect.gen(function* () {
        // The first five go before any answer; each answer's remaining then counts the calls sent
        // after it, so that none races past the 10th (without the budget: 429s).
        for (const headers of ["both", "ietf", "x"]) {
          const run = yield* sequence(
            `inflight-${headers}`,
            `limit=10&window=60&headers=${headers}`,
            25,
            { rateLimitHeaders: RateLimit.fromHeaders() },
            5
          )
          expect([run.allowed, run.limited, count(run.outcomes, "200"), count(run.outcomes, "RateLimited")]).toEqual([
            10, 0, 10, 15
          ])
        }
      })
  )

  it.live(
    "learning the headers of a 1 s window with 5 calls in flight: 25 calls wait for the resets and all pass, no 429",
    () =>
      Effect.gen(function* () {
        const run = yield* sequence(
          "inflight-waits",
          "limit=10&window=1",
          25,
          { rateLimitHeaders: RateLimit.fromHeaders() },
          5
        )
        expect([run.allowed, run.limited, count(run.outcomes, "200")]).toEqual([25, 0, 25])
      })
  )

  it.live(
    "learning the headers of a 1 s window with as many in flight as the limit (10): 40 calls over four windows, no 429",
    () =>
      Effect.gen(function* () {
        // Each window's answers must be heard once the last window's soonest reset has passed: were the
        // last window's 0 kept to its latest reset, the next window's answers (higher) would go unheard
        // and the next ten calls would go into a spent window (8 to 18 429s in 60 calls). And a call
        // that waited (for a block that outlasted that reset) asks the budget again when it wakes: it
        // went into the spent window once in 40 calls, in some runs, when it did not.
        const run = yield* sequence(
          "inflight-limit",
          "limit=10&window=1",
          40,
          { rateLimitHeaders: RateLimit.fromHeaders() },
          10
        )
        expect([run.allowed, run.limited, count(run.outcomes, "200")]).toEqual([40, 0, 40])
      })
  )

  it.live("learning the headers of a 1 s window: 25 calls wait for each reset and all pass, no 429", () =>
    Effect.gen(function* () {
      const run = yield* sequence("learnt-waits", "limit=10&window=1", 25, {
        rateLimitHeaders: RateLimit.fromHeaders()
      })
      expect([run.allowed, run.limited, count(run.outcomes, "200")]).toEqual([25, 0, 25])
    })
  )

  it.live("a client limit at the server's with its headers learnt: 25 calls, no 429", () =>
    Effect.gen(function* () {
      const run = yield* sequence("limited-learnt", "limit=10&window=1", 25, {
        rateLimit: RateLimit.make({ limit: 10, window: "1 second" }),
        rateLimitHeaders: RateLimit.fromHeaders()
      })
      expect([run.allowed, run.limited, count(run.outcomes, "200")]).toEqual([25, 0, 25])
    })
  )

  it.live(
    "a client limit alone, of 10 a minute at once, with 5 s to spare: the 11th call's 6 s wait would pass it, unsent, no 429",
    () =>
      Effect.gen(function* () {
        const run = yield* sequence("limited", "limit=10&window=60", 25, {
          rateLimit: RateLimit.make({ limit: 10, window: "1 minute", burst: 10 }),
          totalTimeout: "5 seconds"
        })
        expect([run.allowed, run.limited, count(run.outcomes, "RateLimited")]).toEqual([10, 0, 15])
      })
  )
})

describe("Effect 3 a client rate limit equal to the server's quota", () => {
  for (const algorithm of ["fixed", "sliding"] as const) {
    it.live(
      `30 calls at once against a ${algorithm}-window server's 10 a second: 30 pass, no 429`,
      () =>
        Effect.gen(function* () {
          const run = yield* sequence(
            `quota-${algorithm}`,
            `limit=10&window=1&algorithm=${algorithm}`,
            30,
            {
              rateLimit: RateLimit.make({ limit: 10, window: "1 second" })
            },
            30
          )
          expect([run.allowed, run.limited, count(run.outcomes, "200")]).toEqual([30, 0, 30])
        }),
      { timeout: 30_000 }
    )
  }
})
