/**
 * The attempt time limit on the live clock: a race that interrupts the attempt, and so aborts
 * its request, whatever the wrapped client does (redirects, a request value in flight twice).
 * These tests wait for real, briefly, and assert outcomes and counts, never durations.
 */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { eventually } from "./support/eventually.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/r"
const policy = {
  maxAttempts: 1,
  // Long enough for an in-process answer on busy cores; a hang waits it out.
  attemptTimeout: "1 second",
  backoff: RetryPolicy.constant(0),
  retryBudget: "none"
} as const

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

describe("attempt time limit on the live clock", () => {
  it.live("a hang fails as a Timeout, and its request is aborted", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hangUntilAborted: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, policy)
      const exit = yield* Effect.exit(Effect.scoped(client.get(url)))
      expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 1 })
      expect(scripted.exchanges[0]!.aborted).toBe(true)
    })
  )

  it.live("a retry after a timeout is a new attempt with a limit of its own", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hangUntilAborted: true }, { status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...policy, maxAttempts: 2 })
      const exit = yield* Effect.exit(
        Effect.scoped(Effect.flatMap(client.get(url), (response) => Effect.as(response.text, response.status)))
      )
      expect(exit).toEqual(Exit.succeed(200))
      expect(scripted.exchanges.map((exchange) => exchange.aborted)).toEqual([true, false])
    })
  )

  it.live("interrupting the caller during a timed attempt aborts its request", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hangUntilAborted: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...policy, attemptTimeout: "1 minute" })
      const fiber = yield* Effect.fork(Effect.scoped(client.get(url)))
      yield* eventually(
        Effect.sync(() => scripted.exchanges.length === 1),
        "the request sent"
      )
      yield* Fiber.interrupt(fiber)
      expect(scripted.exchanges[0]!.aborted).toBe(true)
    })
  )

  it.live("a redirect followed inside the wrapped client to a target that hangs still times out", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([
        { status: 302, headers: { location: "http://api.test/moved" } },
        { status: 200 },
        { status: 302, headers: { location: "http://api.test/moved" } },
        { hang: true }
      ])
      const client = scripted.client.pipe(HttpClient.followRedirects(2), ResilientHttpClient.withResilience(policy))
      const redirected = yield* Effect.exit(Effect.scoped(client.get(url)))
      expect(Exit.isSuccess(redirected)).toBe(true)
      // The redirect's target ignores every signal: interrupting the attempt ends it.
      const hung = yield* Effect.exit(Effect.scoped(client.get(url)))
      expect(failureOf(hung)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout" })
    })
  )

  it.live("one request value in flight twice: each call's hang times out on its own", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hang: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, policy)
      const exits = yield* Effect.all(
        [Effect.exit(Effect.scoped(client.get(url))), Effect.exit(Effect.scoped(client.get(url)))],
        {
          concurrency: 2
        }
      )
      for (const exit of exits) {
        expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout" })
      }
    })
  )
})
