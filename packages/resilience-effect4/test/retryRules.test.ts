/**
 * What is retried and what is not, on the TestClock: one row per rule, with the attempts the
 * transport saw and how the call ended (the failure's tag, status or reason, and give-up reason).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { HttpBody, HttpClientRequest } from "effect/http"
import type * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { failureOf, runScripted } from "./support/harness.js"
import type * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/resource"
type Call = (
  client: ResilientHttpClient.ResilientHttpClient.Service
) => ReturnType<ResilientHttpClient.ResilientHttpClient.Service["execute"]>
const get: Call = (client) => client.get(url)
const post =
  (headers: Record<string, string> = {}): Call =>
  (client) =>
    client.execute(HttpClientRequest.post(url, { headers, body: HttpBody.text("order") }))
const method =
  (name: "PATCH" | "PUT" | "DELETE" | "QUERY"): Call =>
  (client) =>
    client.execute(HttpClientRequest.make(name)(url))
const fast = { jitter: "none", backoff: RetryPolicy.constant("10 millis") } as const

interface Rule {
  readonly name: string
  readonly script: ReadonlyArray<ScriptedHttpClient.Answer>
  readonly policy?: RetryPolicy.Options
  readonly call?: Call
  readonly attempts: number
  /** What the call ended with: a status of success, or the failure's fields. */
  readonly ended: { readonly status: number } | Record<string, unknown>
}

const rules: ReadonlyArray<Rule> = [
  ...[400, 401, 403, 404, 409, 422, 501].map(
    (status): Rule => ({
      name: `${status} is permanent: one attempt`,
      script: [{ status }],
      attempts: 1,
      ended: { _tag: "PermanentStatus", status, giveUpReason: "not-retryable" }
    })
  ),
  ...[408, 429, 500, 502, 503, 504, 529].map(
    (status): Rule => ({
      name: `${status} is transient: retried up to maxAttempts`,
      script: [{ status }],
      policy: fast,
      attempts: 3,
      ended: { _tag: "TransientStatus", status, giveUpReason: "attempts-exhausted" }
    })
  ),
  {
    name: "isTransientStatus replaces the transient set",
    script: [{ status: 520 }, { status: 200 }],
    policy: { ...fast, isTransientStatus: (status) => status === 520 },
    attempts: 2,
    ended: { status: 200 }
  },
  {
    name: "a transport failure twice, then 200",
    script: [{ transportError: "ECONNRESET" }, { transportError: "ECONNREFUSED" }, { status: 200 }],
    policy: fast,
    attempts: 3,
    ended: { status: 200 }
  },
  {
    name: "an expired certificate is unrecoverable: one attempt",
    script: [{ transportError: "certificate has expired", code: "CERT_HAS_EXPIRED" }],
    policy: fast,
    attempts: 1,
    ended: { _tag: "ConnectionError", reason: "Unrecoverable", giveUpReason: "not-retryable" }
  },
  {
    name: "a POST without an Idempotency-Key is tried once",
    script: [{ status: 503 }],
    policy: fast,
    call: post(),
    attempts: 1,
    ended: { _tag: "TransientStatus", giveUpReason: "not-idempotent" }
  },
  {
    name: "a POST with an Idempotency-Key is retried",
    script: [{ status: 503 }, { status: 503 }, { status: 201 }],
    policy: fast,
    call: post({ "idempotency-key": "order-1" }),
    attempts: 3,
    ended: { status: 201 }
  },
  {
    name: "a blank Idempotency-Key is no key",
    script: [{ status: 503 }],
    policy: fast,
    call: post({ "idempotency-key": "  " }),
    attempts: 1,
    ended: { giveUpReason: "not-idempotent" }
  },
  {
    name: "retryNonIdempotent retries a POST without a key",
    script: [{ status: 503 }, { status: 201 }],
    policy: { ...fast, retryNonIdempotent: true },
    call: post(),
    attempts: 2,
    ended: { status: 201 }
  },
  {
    name: "a PATCH is not idempotent; PUT and DELETE are",
    script: [{ transportError: "ECONNRESET" }],
    policy: fast,
    call: method("PATCH"),
    attempts: 1,
    ended: { _tag: "ConnectionError", reason: "Transport", giveUpReason: "not-idempotent" }
  },
  {
    name: "a PUT is retried",
    script: [{ transportError: "ECONNRESET" }, { status: 204 }],
    policy: fast,
    call: method("PUT"),
    attempts: 2,
    ended: { status: 204 }
  },
  {
    name: "a DELETE is retried",
    script: [{ status: 502 }, { status: 204 }],
    policy: fast,
    call: method("DELETE"),
    attempts: 2,
    ended: { status: 204 }
  },
  {
    name: "a QUERY is retried as a GET is (safe and idempotent: draft-ietf-httpbis-safe-method-w-body)",
    script: [{ status: 503 }, { transportError: "ECONNRESET" }, { status: 200 }],
    policy: fast,
    call: (client) => client.execute(HttpClientRequest.make("QUERY")(url, { body: HttpBody.text("q=1") })),
    attempts: 3,
    ended: { status: 200 }
  },
  {
    name: "a one-shot streamed body is never retried, even on an idempotent method",
    script: [{ status: 503 }],
    policy: fast,
    call: (client) =>
      client.execute(HttpClientRequest.put(url, { body: HttpBody.stream(Stream.make(new TextEncoder().encode("x"))) })),
    attempts: 1,
    ended: { giveUpReason: "one-shot-body" }
  },
  {
    name: "maxElapsed stops before a wait that would end past it",
    script: [{ status: 503 }],
    policy: { jitter: "none", maxAttempts: 10, backoff: RetryPolicy.constant("400 millis"), maxElapsed: "1 second" },
    attempts: 3,
    ended: { giveUpReason: "deadline-exceeded" }
  },
  {
    name: 'retryAfter: "ignore" waits the backoff, not the server',
    script: [{ status: 503, headers: { "retry-after": "60" } }, { status: 200 }],
    policy: { ...fast, retryAfter: "ignore" },
    attempts: 2,
    ended: { status: 200 }
  }
]

describe("what is retried, Effect 4", () => {
  for (const rule of rules) {
    it.effect(rule.name, () =>
      Effect.gen(function* () {
        const run = yield* runScripted(rule.script, rule.policy, rule.call ?? get)
        expect(run.scripted.exchanges.length).toBe(rule.attempts)
        if ("status" in rule.ended && !("_tag" in rule.ended)) {
          expect(Exit.isSuccess(run.exit) ? run.exit.value.status : "failed").toBe(rule.ended.status)
        } else {
          expect(failureOf(run)).toMatchObject({ attempt: rule.attempts, ...rule.ended })
        }
      })
    )
  }

  it.effect("an invalid URL is a ConnectionError InvalidRequest, sent nowhere, never retried", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 200 }], fast, (client) => client.get("http://[not a url"))
      expect(run.scripted.exchanges.length).toBe(0)
      expect(failureOf(run)).toMatchObject({
        _tag: "ConnectionError",
        reason: "InvalidRequest",
        attempt: 1,
        giveUpReason: "not-retryable"
      })
    })
  )

  it.effect("attemptTimeout turns a hang into a ConnectionError Timeout, retried like a transport failure", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ hang: true }, { status: 200 }], { ...fast, attemptTimeout: "2 seconds" }, get)
      expect(run.times()).toEqual([0, 2010])
      expect(Exit.isSuccess(run.exit)).toBe(true)
      // The timed-out attempt was interrupted, and its request aborted.
      expect(run.scripted.exchanges[0]!.aborted).toBe(true)
    })
  )

  it.effect("a 429 honours X-RateLimit-Reset; a 503 ignores it (it describes a quota, not an outage)", () =>
    Effect.gen(function* () {
      const quota = { "x-ratelimit-reset": "7" }
      const limited = yield* runScripted([{ status: 429, headers: quota }, { status: 200 }], { jitter: "none" }, get)
      expect(limited.times()).toEqual([0, 7000])
      const outage = yield* runScripted([{ status: 503, headers: quota }, { status: 200 }], { jitter: "none" }, get)
      expect(outage.times()).toEqual([0, 500])
    })
  )

  it.effect("Retry-After is not jittered, the backoff is (equal jitter within [v/2, v])", () =>
    Effect.gen(function* () {
      const server = yield* runScripted([{ status: 503, headers: { "retry-after": "2" } }, { status: 200 }], {}, get)
      expect(server.times()).toEqual([0, 2000])
      const backoff = yield* runScripted([{ status: 503 }, { status: 503 }, { status: 200 }], {}, get)
      const [, first, second] = backoff.times()
      expect(first).toBeGreaterThanOrEqual(250)
      expect(first).toBeLessThanOrEqual(500)
      expect(second! - first!).toBeGreaterThanOrEqual(500)
      expect(second! - first!).toBeLessThanOrEqual(1000)
    })
  )
})
