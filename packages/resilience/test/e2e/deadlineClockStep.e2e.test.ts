// @generated from templates/test/e2e/deadlineClockStep.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A call's deadline and waits are timed on the monotonic clock: the wall clock (`Date.now`, what
 * the live Clock's `currentTimeMillis` reads) stepped by an hour during a wait changes nothing.
 * Live clock, real waits of about a second.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import * as Testing from "../../src/Testing.js"

const hour = 3_600_000

/** Steps `Date.now` by `stepMillis` once `afterMillis` of real time have passed. */
const stepWallClock = (stepMillis: number, afterMillis: number) =>
  Effect.sync(() => {
    const realNow = Date.now.bind(Date)
    const at = realNow() + afterMillis
    vi.spyOn(Date, "now").mockImplementation(() => {
      const now = realNow()
      return now >= at ? now + stepMillis : now
    })
  })

describe("wall-clock steps during a call", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  const script = [
    { status: 503, headers: { "retry-after": "1" } },
    { status: 503, headers: { "retry-after": "1" } },
    { status: 200 }
  ] as const

  it.live("stepped forward an hour during a wait, the next failure still has the rest of the total timeout", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient(script)
      const client = ResilientHttpClient.withResilience(
        scripted.client,
        RetryPolicy.make({ maxAttempts: 3, totalTimeout: "5 seconds", jitter: "none" })
      )
      const started = performance.now()
      const call = yield* Effect.fork(Effect.scoped(client.get("http://clock.test/r")))
      yield* stepWallClock(hour, 300)
      const response = yield* Fiber.join(call)
      expect(response.status).toBe(200)
      expect((yield* scripted.requests).map((request) => request.attempt)).toEqual([1, 2, 3])
      // Two waits of the second asked, on the monotonic clock.
      expect(performance.now() - started).toBeGreaterThanOrEqual(1990)
    }).pipe(Effect.scoped)
  )

  it.live("stepped back an hour during a wait, the total timeout still ends the call in time", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient(script)
      const client = ResilientHttpClient.withResilience(
        scripted.client,
        RetryPolicy.make({ maxAttempts: 3, totalTimeout: "1500 millis", jitter: "none" })
      )
      const call = yield* Effect.fork(Effect.scoped(Effect.flip(client.get("http://clock.test/r"))))
      yield* stepWallClock(-hour, 300)
      const failure = yield* Fiber.join(call)
      // The second 503's wait of 1 s would end past 1.5 s from the start.
      expect(failure).toMatchObject({ status: 503, attempt: 2, giveUpReason: "deadline-exceeded" })
      expect((yield* scripted.requests).map((request) => request.attempt)).toEqual([1, 2])
    }).pipe(Effect.scoped)
  )
})
