/**
 * The attempt time limit on the live clock (the only clock its timer path runs under): a timer
 * aborting the request's signal, no fiber forked once a client has shown that its exchanges
 * hand our signal to the transport, and the forked race kept where they do not.
 * Limits are tens of milliseconds: these tests wait for real, briefly, and assert outcomes and
 * counts, never durations.
 */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Supervisor } from "effect"
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

/** Counts every fiber started under it (`Supervisor.track` only lists those still alive). */
class ForkCounter extends Supervisor.AbstractSupervisor<number> {
  started = 0
  get value(): Effect.Effect<number> {
    return Effect.sync(() => this.started)
  }
  override onStart(): void {
    this.started++
  }
}

/** Runs one call and counts the fibers it forked. */
const callCountingForks = <A, E>(call: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const supervisor = new ForkCounter()
    const exit = yield* Effect.exit(Effect.supervised(call, supervisor))
    return { exit, forked: yield* supervisor.value }
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

describe("attempt time limit on the live clock", () => {
  it.live("a hang is aborted through its signal and fails as a Timeout; once proven, no fiber is forked", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }, { hangUntilAborted: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, policy)
      // The first call proves the signal reaches the transport (timed both ways, so it forks).
      const proving = yield* callCountingForks(Effect.scoped(client.get(url)))
      expect(Exit.isSuccess(proving.exit)).toBe(true)
      expect(proving.forked).toBeGreaterThan(0)

      const hung = yield* callCountingForks(Effect.scoped(client.get(url)))
      expect(failureOf(hung.exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 1 })
      expect(scripted.exchanges[1]!.aborted).toBe(true)
      expect(hung.forked).toBe(0)
    })
  )

  it.live("the happy path forks nothing either", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client, policy)
      yield* Effect.scoped(client.get(url))
      const { exit, forked } = yield* callCountingForks(
        Effect.scoped(Effect.flatMap(client.get(url), (response) => response.text))
      )
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(forked).toBe(0)
    })
  )

  it.live("a retry after a timeout is a new attempt with a limit of its own", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }, { hangUntilAborted: true }, { status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...policy, maxAttempts: 2 })
      yield* Effect.scoped(client.get(url))
      const exit = yield* Effect.exit(Effect.scoped(Effect.map(client.get(url), (response) => response.status)))
      expect(exit).toEqual(Exit.succeed(200))
      expect(scripted.exchanges.map((exchange) => exchange.aborted)).toEqual([false, true, false])
    })
  )

  it.live("interrupting the caller during a signalled attempt aborts its request", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }, { hangUntilAborted: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...policy, attemptTimeout: "1 minute" })
      yield* Effect.scoped(client.get(url))
      const fiber = yield* Effect.fork(Effect.scoped(client.get(url)))
      yield* eventually(
        Effect.sync(() => scripted.exchanges.length === 2),
        "the second request sent"
      )
      yield* Fiber.interrupt(fiber)
      expect(scripted.exchanges[1]!.aborted).toBe(true)
    })
  )

  it.live(
    "a client whose exchange is answered by another request (a redirect followed inside it) goes back to the race, and its hangs still time out",
    () =>
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
        // The redirect's target ignores every signal: only the race can end this attempt.
        const hung = yield* callCountingForks(Effect.scoped(client.get(url)))
        expect(failureOf(hung.exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout" })
        expect(hung.forked).toBeGreaterThan(0)
      })
  )

  it.live("a transport that never takes our signal keeps the race: its hang still times out", () =>
    Effect.gen(function* () {
      // A request value in flight twice at once cannot be told apart in the platform's map: the
      // second of two concurrent calls with the same request is timed by the race.
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
