// @generated from templates/test/rateLimit.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The client's rate limit on Effect 4 (issue #34), on the TestClock: the exact time each attempt
 * goes, a wait past the deadline refused unsent, retries and hedges taking tokens, per-key
 * buckets, blocks learnt from headers (hostile ones ignored), the remaining count spent as a budget
 * by the calls in flight, the options' checks and the metrics.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Result, type Scope } from "effect"
import type { HttpClient } from "effect/http"
import { HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as Hedging from "../src/Hedging.js"
import * as HttpFailure from "../src/HttpFailure.js"
import * as RateLimit from "../src/RateLimit.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"
import { counterValue } from "./support/metrics.js"

/** A call's outcome: status and body, or the failure's tag, reason and give-up reason. */
const callOf = (
  client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>,
  url: string
): Effect.Effect<string> =>
  Effect.scoped(
    Effect.flatMap(client.execute(HttpClientRequest.get(url)), (response) =>
      Effect.map(response.text, (text) => `${response.status} ${text}`)
    )
  ).pipe(
    Effect.catch((failure) =>
      Effect.succeed(
        !HttpFailure.isHttpFailure(failure)
          ? `failed: ${failure._tag}`
          : HttpFailure.isConnectionError(failure)
            ? `failed: ${failure.reason} ${failure.giveUpReason ?? ""}`
            : `failed: ${failure._tag} ${failure.giveUpReason ?? ""}`
      )
    )
  )

/**
 * `calls` calls started together through one client over a scripted transport, the TestClock
 * moved far enough for all to end: their outcomes and when each request was sent.
 */
const play = (
  script: ReadonlyArray<ScriptedHttpClient.Answer>,
  options: RetryPolicy.Options,
  urls: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make(script)
    const client = ResilientHttpClient.withResilience(scripted.client, {
      jitter: "none",
      retryBudget: "none",
      ...options
    })
    const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const fibers = []
    for (const url of urls) fibers.push(yield* Effect.forkChild(callOf(client, url)))
    yield* TestClock.adjust("10 minutes")
    const outcomes = []
    for (const fiber of fibers) outcomes.push(yield* Fiber.join(fiber))
    return {
      outcomes,
      sentAt: scripted.exchanges.map((exchange) => exchange.at - start),
      urls: scripted.exchanges.map((e) => e.request.url)
    }
  })

/** One call that hears `headers`, then another through a second client of the store: when each was sent. */
const learnThenCall = (headers: Record<string, string>, options: RetryPolicy.Options, url: string) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make([{ status: 200, body: "ok", headers }, ok])
    const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    yield* callOf(ResilientHttpClient.withResilience(scripted.client, options), url)
    // Another client sharing the store: the block is the origin's, not the client's.
    const next = yield* Effect.forkChild(callOf(ResilientHttpClient.withResilience(scripted.client, options), url))
    yield* TestClock.adjust("10 minutes")
    yield* Fiber.join(next)
    return scripted.exchanges.map((exchange) => exchange.at - start)
  })

const ok: ScriptedHttpClient.Answer = { status: 200, body: "ok" }
const twoPerSecond: RetryPolicy.Options = { rateLimit: RateLimit.make({ limit: 2, window: "1 second" }) }
const twoAtOnce: RetryPolicy.Options = { rateLimit: RateLimit.make({ limit: 2, window: "1 second", burst: 2 }) }

// A bad option, as its stage's constructor throws it or the policy's check returns it.
const invalidOption = (build: () => RetryPolicy.Options): string | undefined => {
  let options: RetryPolicy.Options
  try {
    options = build()
  } catch (error) {
    if (error instanceof RetryPolicy.InvalidRetryPolicy) return error.option
    throw error
  }
  const validated = RetryPolicy.validate(options)
  return Result.isFailure(validated) ? validated.failure.option : undefined
}

describe("rate limit, Effect 4", () => {
  it.effect("a limit of 2 per second: one call every 500 ms, never 3 in one second", () =>
    Effect.gen(function* () {
      const url = "http://two.rate.test/items"
      const run = yield* play([ok], twoPerSecond, [url, url, url, url])
      expect(run.outcomes).toEqual(["200 ok", "200 ok", "200 ok", "200 ok"])
      expect(run.sentAt).toEqual([0, 500, 1000, 1500])
      expect(yield* counterValue("http.client.resilience.rate_limit.waits", "two.rate.test")).toBe(3)
    })
  )

  it.effect("a burst of 2: two calls go at once, the third exactly 500 ms later, the fourth at 1 s", () =>
    Effect.gen(function* () {
      const url = "http://burst.rate.test/items"
      const run = yield* play([ok], twoAtOnce, [url, url, url, url])
      expect(run.sentAt).toEqual([0, 0, 500, 1000])
      expect(yield* counterValue("http.client.resilience.rate_limit.waits", "burst.rate.test")).toBe(2)
    })
  )

  it.effect(
    "a late answer holds the send a limit's worth later until a window after it: 0, 500, 1300 (not 1000), 1500",
    () =>
      Effect.gen(function* () {
        // The server may have counted the first as late as its answer (300 ms): the third waits a window past it.
        const url = "http://late.rate.test/items"
        const run = yield* play([{ status: 200, body: "ok", delayMillis: 300 }, ok], twoPerSecond, [url, url, url, url])
        expect(run.outcomes).toEqual(["200 ok", "200 ok", "200 ok", "200 ok"])
        expect(run.sentAt).toEqual([0, 500, 1300, 1500])
      })
  )

  it.effect(
    "an unanswered send holds the next a window past its answer (4 s), or refuses it unsent past the deadline",
    () =>
      Effect.gen(function* () {
        const slow: ScriptedHttpClient.Answer = { status: 200, body: "ok", delayMillis: 3000 }
        const onePerSecond = { rateLimit: RateLimit.make({ limit: 1, window: "1 second" }) }
        const url = "http://unanswered.rate.test/items"
        const waited = yield* play([slow, ok], onePerSecond, [url, url])
        expect(waited.sentAt).toEqual([0, 4000])
        const short = "http://short.rate.test/items"
        const refused = yield* play([slow, ok], { ...onePerSecond, totalTimeout: "2 seconds" }, [short, short])
        expect(refused.sentAt).toEqual([0])
        expect(refused.outcomes).toEqual(["failed: Timeout deadline-exceeded", "failed: RateLimited rate-limit"])
      })
  )

  it.effect("a hedge does not wait for a late answer's window: refused unsent, the call keeps its first copy", () =>
    Effect.gen(function* () {
      const url = "http://hedge-late.rate.test/items"
      const run = yield* play(
        [{ status: 200, body: "late", delayMillis: 1500 }, ok],
        {
          rateLimit: RateLimit.make({ limit: 1, window: "1 second" }),
          hedging: Hedging.after("1100 millis")
        },
        [url]
      )
      expect(run.sentAt).toEqual([0])
      expect(run.outcomes).toEqual(["200 late"])
    })
  )

  it.effect("a wait that would pass the deadline fails the call at once, unsent: RateLimited, rate-limit", () =>
    Effect.gen(function* () {
      const url = "http://deadline.rate.test/items"
      const scripted = ScriptedHttpClient.make([ok])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        rateLimit: RateLimit.make({ limit: 1, window: "10 seconds" }),
        totalTimeout: "5 seconds"
      })
      expect(yield* callOf(client, url)).toBe("200 ok")
      const failure = yield* Effect.flip(Effect.scoped(client.execute(HttpClientRequest.get(url))))
      expect(scripted.exchanges.length).toBe(1)
      expect(HttpFailure.isConnectionError(failure) && failure.reason).toBe("RateLimited")
      expect(failure.giveUpReason).toBe("rate-limit")
      expect(failure.message).toBe(
        "GET http://deadline.rate.test/items: not sent: the rate limit of 1 per 10000 ms for http://deadline.rate.test:80 has no token for 10000 ms, past the deadline"
      )
      expect(yield* counterValue("http.client.resilience.rate_limit.refusals", "deadline.rate.test")).toBe(1)
      expect(yield* counterValue("http.client.resilience.attempts", "deadline.rate.test")).toBe(1)
    })
  )

  it.effect("retries take tokens: 503, 503, 200 with no backoff go at 0, 0 and 500 ms", () =>
    Effect.gen(function* () {
      const run = yield* play(
        [{ status: 503 }, { status: 503 }, ok],
        { ...twoAtOnce, backoff: RetryPolicy.constant(0) },
        ["http://retries.rate.test/items"]
      )
      expect(run.outcomes).toEqual(["200 ok"])
      expect(run.sentAt).toEqual([0, 0, 500])
    })
  )

  it.effect(
    "a retry whose token would come past the deadline ends the call with its last real failure and the reason rate-limit, not another attempt",
    () =>
      Effect.gen(function* () {
        const run = yield* play(
          [{ status: 503 }],
          {
            rateLimit: RateLimit.make({ limit: 1, window: "1 minute" }),
            backoff: RetryPolicy.constant(0),
            totalTimeout: "30 seconds"
          },
          ["http://retry-deadline.rate.test/items"]
        )
        // What the server did, as with the breaker and the concurrency limit; why it ended: the rate limit.
        expect(run.outcomes).toEqual(["failed: TransientStatus rate-limit"])
        expect(run.sentAt).toEqual([0])
      })
  )

  it.effect("hedges take tokens, and never wait for one: without a token now, no hedge goes", () =>
    Effect.gen(function* () {
      const slow: ScriptedHttpClient.Answer = { status: 200, body: "slow", delayMillis: 500 }
      const hedging = Hedging.after("100 millis")
      const two = yield* play([slow, ok], { ...twoAtOnce, hedging }, ["http://hedge2.rate.test/"])
      expect([two.outcomes, two.sentAt]).toEqual([["200 ok"], [0, 100]])
      const one = yield* play([slow, ok], { rateLimit: RateLimit.make({ limit: 1, window: "1 second" }), hedging }, [
        "http://hedge1.rate.test/"
      ])
      expect([one.outcomes, one.sentAt]).toEqual([["200 slow"], [0]])
    })
  )

  it.effect("a key: every origin of the policy takes from one bucket", () =>
    Effect.gen(function* () {
      const run = yield* play([ok], { rateLimit: RateLimit.make({ limit: 1, window: "1 second", key: "api-key-1" }) }, [
        "http://a.rate.test/",
        "http://b.rate.test/",
        "http://c.rate.test/"
      ])
      expect(run.sentAt).toEqual([0, 1000, 2000])
    })
  )

  it.effect("a key function: each key has its bucket", () =>
    Effect.gen(function* () {
      const run = yield* play(
        [ok],
        {
          rateLimit: RateLimit.make({ limit: 1, window: "1 second", key: (request) => new URL(request.url).pathname })
        },
        ["http://keys.rate.test/a", "http://keys.rate.test/b", "http://keys.rate.test/a"]
      )
      expect(run.sentAt).toEqual([0, 0, 1000])
    })
  )

  it.effect("a key spelled like an origin is not that origin: it never spends the origin's bucket", () =>
    Effect.gen(function* () {
      const origin = "http://spelled.rate.test"
      const scripted = ScriptedHttpClient.make([ok])
      const limit = { limit: 1, window: "1 minute" } as const
      // A key function that reads a header, which a caller set to the origin's own spelling.
      const byHeader = ResilientHttpClient.withResilience(scripted.client, {
        rateLimit: RateLimit.make({ ...limit, key: () => `${origin}:80` }),
        totalTimeout: "1 second"
      })
      const perOrigin = ResilientHttpClient.withResilience(scripted.client, {
        rateLimit: RateLimit.make(limit),
        totalTimeout: "1 second"
      })
      expect(yield* callOf(byHeader, `${origin}/a`)).toBe("200 ok")
      expect(yield* callOf(byHeader, `${origin}/a`)).toBe("failed: RateLimited rate-limit")
      // The origin's bucket is still full: the named key spent its own.
      expect(yield* callOf(perOrigin, `${origin}/b`)).toBe("200 ok")
      expect(yield* callOf(perOrigin, `${origin}/b`)).toBe("failed: RateLimited rate-limit")
      expect(scripted.exchanges.length).toBe(2)
    })
  )

  it.effect("a key function that returns no key fails the call unsent, naming rateLimit.key", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([ok])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        rateLimit: RateLimit.make({ limit: 1, window: "1 second", key: () => "" })
      })
      const failure = yield* Effect.flip(
        Effect.scoped(client.execute(HttpClientRequest.get("http://badkey.rate.test/")))
      )
      expect(HttpFailure.isConnectionError(failure) && failure.reason).toBe("InvalidRequest")
      expect(HttpFailure.isConnectionError(failure) && failure.cause).toMatchObject({ option: "rateLimit.key" })
      expect(scripted.exchanges.length).toBe(0)
    })
  )

  it.effect("headers: remaining 0 with a reset of 3 s hold the origin's next call exactly 3 s", () =>
    Effect.gen(function* () {
      const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3" }
      expect(
        yield* learnThenCall(headers, { rateLimitHeaders: RateLimit.fromHeaders() }, "http://learnt.rate.test/items")
      ).toEqual([0, 3000])
      // Off by default: the same headers hold nothing.
      expect(yield* learnThenCall(headers, {}, "http://unlearnt.rate.test/items")).toEqual([0, 0])
    })
  )

  it.effect("the IETF fields, read from a 200, block the call that follows until the reset", () =>
    Effect.gen(function* () {
      const headers = { ratelimit: '"default";r=0;t=2', "ratelimit-policy": '"default";q=5;w=2' }
      expect(
        yield* learnThenCall(headers, { rateLimitHeaders: RateLimit.fromHeaders() }, "http://ietf.rate.test/items")
      ).toEqual([0, 2000])
    })
  )

  for (const [api, quota] of [
    ["GitHub's x-ratelimit-resource", { "x-ratelimit-resource": "search" }],
    ["Discord's X-RateLimit-Bucket", { "x-ratelimit-bucket": "abcd1234" }],
    ["the IETF pk", { ratelimit: '"default";r=0;t=3;pk=:c2VhcmNo:' }]
  ] as const) {
    it.effect(`${api} keys the budget: a quota spent holds its own route, not the origin's others`, () =>
      Effect.gen(function* () {
        const spent = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3", ...quota }
        const scripted = ScriptedHttpClient.make([{ status: 200, body: "ok", headers: spent }, ok])
        const client = ResilientHttpClient.withResilience(scripted.client, {
          retryBudget: "none",
          rateLimitHeaders: RateLimit.fromHeaders()
        })
        const host = `http://quota-${api.length}-${Object.keys(quota)[0]}.rate.test`
        yield* callOf(client, `${host}/search?q=1`)
        const other = yield* Effect.forkChild(callOf(client, `${host}/user`))
        const same = yield* Effect.forkChild(callOf(client, `${host}/search?q=2`))
        yield* TestClock.adjust("10 minutes")
        yield* Fiber.join(other)
        yield* Fiber.join(same)
        expect(scripted.exchanges.map((exchange) => [exchange.request.url.replace(host, ""), exchange.at])).toEqual([
          ["/search?q=1", 0],
          ["/user", 0],
          ["/search?q=2", 3000]
        ])
      })
    )
  }

  it.effect(
    "the calls sent before a quota was named count in it: a fourth call after the first answer waits for the reset",
    () =>
      Effect.gen(function* () {
        // A quota of 3 in Discord's bucket "b": three calls go before any answer (the origin's key), answered at
        // 100, 200 and 300 ms with 2, 1 and 0 left. The first answer's 2 are the two others' still in flight: a call
        // started at 150 ms waits for the reset (3 s after the first answer, then the last answer's block to 3.3 s),
        // where it went at once, into a spent quota, when only the answered attempt counted.
        const bucket = (remaining: number, delayMillis: number) => ({
          status: 200,
          body: "ok",
          delayMillis,
          headers: {
            "x-ratelimit-remaining": String(remaining),
            "x-ratelimit-reset-after": "3",
            "x-ratelimit-bucket": "b"
          }
        })
        const scripted = ScriptedHttpClient.make([bucket(2, 100), bucket(1, 200), bucket(0, 300), ok])
        const client = ResilientHttpClient.withResilience(scripted.client, {
          retryBudget: "none",
          rateLimitHeaders: RateLimit.fromHeaders()
        })
        const host = "http://unanswered.rate.test"
        const first = []
        for (const i of [1, 2, 3])
          first.push(yield* Effect.forkChild(callOf(client, `${host}/channels/1/messages?i=${i}`)))
        yield* TestClock.adjust("150 millis")
        const fourth = yield* Effect.forkChild(callOf(client, `${host}/channels/1/messages?i=4`))
        yield* TestClock.adjust("10 minutes")
        for (const fiber of [...first, fourth]) expect(yield* Fiber.join(fiber)).toBe("200 ok")
        expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 0, 0, 3300])
      })
  )

  it.effect("Discord's global 429 holds every bucket: its Retry-After cools the whole origin", () =>
    Effect.gen(function* () {
      const host = "http://global.rate.test"
      const global = { "retry-after": "2", "x-ratelimit-global": "true", "x-ratelimit-scope": "global" }
      const scripted = ScriptedHttpClient.make([{ status: 429, body: "", headers: global }, ok])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        jitter: "none",
        retryBudget: "none",
        rateLimitHeaders: RateLimit.fromHeaders()
      })
      const first = yield* Effect.forkChild(callOf(client, `${host}/channels/1/messages`))
      yield* TestClock.adjust("1 second")
      const other = yield* Effect.forkChild(callOf(client, `${host}/guilds/2`))
      yield* TestClock.adjust("10 minutes")
      yield* Fiber.join(first)
      yield* Fiber.join(other)
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 2000, 2000])
    })
  )

  it.effect("a remaining count above 0 holds nothing", () =>
    Effect.gen(function* () {
      const headers = { "x-ratelimit-remaining": "1", "x-ratelimit-reset": "3" }
      expect(
        yield* learnThenCall(headers, { rateLimitHeaders: RateLimit.fromHeaders() }, "http://left.rate.test/items")
      ).toEqual([0, 0])
    })
  )

  it.effect(
    "the remaining count is a budget: after remaining 2, of 4 calls in flight two go at once and two wait exactly for the reset",
    () =>
      Effect.gen(function* () {
        const url = "http://budget.rate.test/items"
        // A 2 s window: the first answer comes at once, the next ones 1 s later, each announcing the same reset.
        const left = (remaining: number, resetSeconds: number, delayMillis: number): ScriptedHttpClient.Answer => ({
          status: 200,
          body: "ok",
          delayMillis,
          headers: { "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": String(resetSeconds) }
        })
        const scripted = ScriptedHttpClient.make([left(2, 2, 0), left(1, 1, 1000), left(0, 1, 1000), left(9, 2, 1000)])
        const client = ResilientHttpClient.withResilience(scripted.client, {
          rateLimitHeaders: RateLimit.fromHeaders(),
          retryBudget: "none"
        })
        expect(yield* callOf(client, url)).toBe("200 ok")
        const calls = yield* Effect.forkChild(
          Effect.all(
            Array.from({ length: 4 }, () => callOf(client, url)),
            { concurrency: 4 }
          )
        )
        yield* TestClock.adjust("10 minutes")
        expect(yield* Fiber.join(calls)).toEqual(["200 ok", "200 ok", "200 ok", "200 ok"])
        // Without the budget all five go at 0 ms: the last two would meet the server's 429.
        expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 0, 0, 2000, 2000])
        expect(yield* counterValue("http.client.resilience.rate_limit.waits", "budget.rate.test")).toBe(2)
      })
  )

  it.effect("the budget: a call that ended with no answer stays spent until the reset", () =>
    Effect.gen(function* () {
      const url = "http://lost.rate.test/items"
      const scripted = ScriptedHttpClient.make([
        { status: 200, body: "ok", headers: { "x-ratelimit-remaining": "1", "x-ratelimit-reset": "3" } },
        { transportError: "socket hang up", code: "ECONNRESET" },
        ok
      ])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        rateLimitHeaders: RateLimit.fromHeaders(),
        retryBudget: "none",
        maxAttempts: 1
      })
      expect(yield* callOf(client, url)).toBe("200 ok")
      // The one left went to a call the server may have counted before the connection broke.
      expect(yield* callOf(client, url)).toBe("failed: Transport attempts-exhausted")
      const next = yield* Effect.forkChild(callOf(client, url))
      yield* TestClock.adjust("10 minutes")
      expect(yield* Fiber.join(next)).toBe("200 ok")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 0, 3000])
    })
  )

  it.effect("hostile header values are ignored: nothing is blocked", () =>
    Effect.gen(function* () {
      const url = "http://hostile.rate.test/items"
      const hostile: ReadonlyArray<Record<string, string>> = [
        { "x-ratelimit-remaining": "-1", "x-ratelimit-reset": "5" },
        { "x-ratelimit-remaining": "0x0", "x-ratelimit-reset": "5" },
        { "x-ratelimit-remaining": "1e0", "x-ratelimit-reset": "5" },
        { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "soon" },
        { ratelimit: "r=0;t=5" },
        { "ratelimit-remaining": "00000000000000000000", "ratelimit-reset": "5" }
      ]
      for (const headers of hostile) {
        expect(yield* learnThenCall(headers, { rateLimitHeaders: RateLimit.fromHeaders() }, url)).toEqual([0, 0])
      }
    })
  )

  it.effect("a reset of ten years is cut to a day: a call with a 30 s deadline fails RateLimited at once", () =>
    Effect.gen(function* () {
      const url = "http://capped.rate.test/items"
      const scripted = ScriptedHttpClient.make([ok])
      const client = ResilientHttpClient.withResilience(scripted.client, { rateLimitHeaders: RateLimit.fromHeaders() })
      const tenYears = { status: 200, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "315360000" } }
      const learnt = ResilientHttpClient.withResilience(ScriptedHttpClient.make([tenYears]).client, {
        rateLimitHeaders: RateLimit.fromHeaders()
      })
      yield* callOf(learnt, url)
      const failure = yield* Effect.flip(Effect.scoped(client.execute(HttpClientRequest.get(url))))
      expect(HttpFailure.isConnectionError(failure) && failure.cause).toMatchObject({ waitMillis: 86_400_000 })
      expect(failure.message).toContain("the rate limit the server announced")
      expect(scripted.exchanges.length).toBe(0)
    })
  )

  it.effect("a server's own header names, added with extra", () =>
    Effect.gen(function* () {
      const options: RetryPolicy.Options = {
        rateLimitHeaders: RateLimit.fromHeaders({ extra: [{ remaining: "X-Quota-Left", reset: "X-Quota-Reset" }] })
      }
      const headers = { "x-quota-left": "0", "x-quota-reset": "4" }
      expect(yield* learnThenCall(headers, options, "http://extra.rate.test/items")).toEqual([0, 4000])
    })
  )

  it.effect("an interrupted wait gives its token back", () =>
    Effect.gen(function* () {
      const url = "http://refund.rate.test/items"
      const scripted = ScriptedHttpClient.make([ok])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        rateLimit: RateLimit.make({ limit: 1, window: "1 second" })
      })
      yield* callOf(client, url)
      const waiting = yield* Effect.forkChild(callOf(client, url))
      yield* TestClock.adjust("100 millis")
      yield* Fiber.interrupt(waiting)
      yield* TestClock.adjust("900 millis")
      // The token reserved for the interrupted call came back: two more calls, one now, one 1 s later.
      const next = yield* Effect.forkChild(Effect.all([callOf(client, url), callOf(client, url)], { concurrency: 2 }))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(next)
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 1000, 2000])
    })
  )

  it("bad options are InvalidRetryPolicy naming the option", () => {
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 0, window: "1 second" }) }))).toBe(
      "rateLimit.limit"
    )
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 1.5, window: "1 second" }) }))).toBe(
      "rateLimit.limit"
    )
    // @ts-expect-error: the window is required
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10 }) }))).toBe("rateLimit.window")
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10, window: "2 days" }) }))).toBe(
      "rateLimit.window"
    )
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10, window: "1 second", key: "" }) }))).toBe(
      "rateLimit.key"
    )
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10, window: "1 second", burst: 11 }) }))).toBe(
      "rateLimit.burst"
    )
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10, window: "1 second", burst: 0 }) }))).toBe(
      "rateLimit.burst"
    )
    expect(invalidOption(() => ({ rateLimit: RateLimit.make({ limit: 10, window: "1 second", burst: 1.5 }) }))).toBe(
      "rateLimit.burst"
    )
    // @ts-expect-error: a header name, not a number
    expect(invalidOption(() => ({ rateLimitHeaders: RateLimit.fromHeaders({ extra: [{ remaining: 5 }] }) }))).toBe(
      "rateLimitHeaders.extra[0].remaining"
    )
    // @ts-expect-error: true, false or a record
    expect(invalidOption(() => ({ rateLimitHeaders: RateLimit.fromHeaders("yes") }))).toBe("rateLimitHeaders")
    expect(
      invalidOption(() => ({
        rateLimit: RateLimit.make({ limit: 10, window: "1 second" }),
        rateLimitHeaders: RateLimit.fromHeaders()
      }))
    ).toBe(undefined)
    expect(
      invalidOption(() => ({ rateLimit: { limit: 10, window: "1 second" } }) as unknown as RetryPolicy.Options)
    ).toBe("rateLimit")
    expect(RetryPolicy.defaults.rateLimit).toBe(undefined)
    expect(RetryPolicy.defaults.rateLimitHeaders).toBe(undefined)
  })
})
