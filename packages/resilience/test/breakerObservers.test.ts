// @generated from templates/test/breakerObservers.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A breaker's `onStateChange` runs outside the breaker's critical section, on Effect 3: after the
 * change is in effect, in a fiber of its own, one change at a time in order. A slow observer
 * holds no caller past its own timeout; one that throws or dies is logged as a warning and
 * changes neither the circuit nor the call. All on the TestClock: the times are exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, type Duration, Effect, Fiber, HashMap, Logger, Option, TestClock } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://observers.test/r"
const origin = "http://observers.test:80"

interface Logged {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: string
}

/** A logger that keeps what it is given, in place of the default one. */
const capture = (logged: Array<Logged>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message, annotations, cause }) => {
      logged.push({
        level: logLevel.label,
        message: Array.isArray(message) ? message.join(" ") : String(message),
        annotations: Object.fromEntries(HashMap.toEntries(annotations)),
        cause: Cause.pretty(cause)
      })
    })
  )

/** Lets the observers' fiber run until `done` holds (it runs after the caller, on its own). */
const untilObserved = (done: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100 && !done(); i++) yield* Effect.yieldNow()
  })

/** One GET through a breaker whose first failure opens it, one attempt per call. */
const clientOf = (scripted: ScriptedHttpClient.ScriptedHttpClient, breaker: CircuitBreaker.CircuitBreaker.Service) =>
  ResilientHttpClient.withResilience(scripted.client, {
    jitter: "none",
    maxAttempts: 1,
    circuitBreaker: CircuitBreaker.perOrigin(breaker)
  })

/** Runs `call` in a fiber of its own under a `limit` (the caller's `Effect.timeout`): whether it timed out, and when it returned. */
const timed = <A, E>(call: Effect.Effect<A, E>, limit: Duration.DurationInput) =>
  Effect.fork(
    Effect.flatMap(Effect.timeoutOption(call, limit), (result) =>
      Effect.map(Clock.currentTimeMillis, (at) => ({ timedOut: Option.isNone(result), at }))
    )
  )

const statusOf = (client: ReturnType<typeof clientOf>) =>
  Effect.scoped(
    Effect.map(client.get(url), (response) => response.status).pipe(
      Effect.catchAll((failure) => Effect.succeed(failure._tag))
    )
  )

describe("CircuitBreaker onStateChange, on Effect 3", () => {
  it.effect("a slow observer (3 s) holds no caller: one under a 300 ms timeout returns at 300 ms exactly", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        onStateChange: (change) =>
          Effect.zipRight(
            Effect.sleep("3 seconds"),
            Effect.sync(() => seen.push(`${change.from} -> ${change.to}`))
          )
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { hang: true }, { status: 200 }])
      const client = clientOf(scripted, breaker)

      // The failure that opens the circuit: its caller does not wait for the observer either.
      const opening = yield* timed(statusOf(client), "300 millis")
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(opening)).toEqual({ timedOut: false, at: 0 })

      // The probe: its request hangs, and its caller gives up after 300 ms, while the observer
      // of the change its admission made (Open -> HalfOpen) still sleeps.
      const probe = yield* timed(statusOf(client), "300 millis")
      yield* TestClock.adjust("300 millis")
      expect(yield* Fiber.join(probe)).toEqual({ timedOut: true, at: 5_300 })
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 5_000])

      // The interrupted probe freed its slot: the next caller is the probe, sent at once.
      expect(yield* statusOf(client)).toBe(200)
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 5_000, 5_300])

      // The observer saw every change, one at a time, in order (3 s each, from when it was free):
      // the interrupted probe made none, its slot freed without a change.
      yield* TestClock.adjust("10 seconds")
      yield* untilObserved(() => seen.length >= 3)
      expect(seen).toEqual(["Closed -> Open", "Open -> HalfOpen", "HalfOpen -> Closed"])
    })
  )

  const failing: ReadonlyArray<readonly [string, (change: CircuitBreaker.StateChange) => Effect.Effect<void>, string]> =
    [
      [
        "throws",
        () => {
          throw new Error("observer bug")
        },
        "observer bug"
      ],
      ["dies", () => Effect.die(new Error("observer died")), "observer died"]
    ]
  for (const [how, onStateChange, what] of failing) {
    it.effect(`an observer that ${how}: every call is sent and ends as the server says; a warning per change`, () =>
      Effect.gen(function* () {
        const logged: Array<Logged> = []
        const breaker = yield* CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "5 seconds",
          onStateChange
        })
        const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
        const client = clientOf(scripted, breaker)
        const calls = Effect.gen(function* () {
          expect(yield* statusOf(client)).toBe("TransientStatus") // Closed -> Open
          expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Open" })
          yield* TestClock.adjust("5 seconds")
          // The probe is sent and its 200 closes the circuit (Open -> HalfOpen -> Closed).
          expect(yield* statusOf(client)).toBe(200)
          expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
          // No probe is left stuck: the next call goes out too.
          expect(yield* statusOf(client)).toBe(200)
          yield* untilObserved(() => logged.length >= 3)
        })
        yield* Effect.provide(calls, capture(logged))
        expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 5_000, 5_000])

        const warnings = logged.filter((log) => log.level === "WARN")
        expect(warnings.map((log) => log.annotations)).toEqual([
          { origin, from: "Closed", to: "Open" },
          { origin, from: "Open", to: "HalfOpen" },
          { origin, from: "HalfOpen", to: "Closed" }
        ])
        expect(warnings[0]!.message).toBe(
          `CircuitBreaker onStateChange failed on ${origin} (Closed -> Open): the circuit and the call that changed it are unaffected`
        )
        for (const warning of warnings) expect(warning.cause).toContain(what)
      })
    )
  }

  it.effect("an observer more than 1024 changes behind loses the oldest, and a warning says how many", () =>
    Effect.gen(function* () {
      const logged: Array<Logged> = []
      const seen: Array<string> = []
      let started = 0
      const breaker = yield* CircuitBreaker.make({
        // The first change holds the observer for a second; the others are quick.
        onStateChange: (change) => {
          started++
          const record = Effect.sync(() => seen.push(`${change.from} -> ${change.to}`))
          return started === 1 ? Effect.zipRight(Effect.sleep("1 second"), record) : record
        }
      })
      const run = Effect.gen(function* () {
        yield* breaker.isolate(origin)
        yield* untilObserved(() => started === 1)
        // 1,099 more while the first is being delivered: 1,024 wait, the 75 oldest are dropped.
        for (let i = 0; i < 1_099; i++) yield* i % 2 === 0 ? breaker.close(origin) : breaker.isolate(origin)
        yield* TestClock.adjust("1 second")
        yield* untilObserved(() => seen.length >= 1_025)
      })
      yield* Effect.provide(run, capture(logged))
      expect(seen).toHaveLength(1_025)
      expect(logged.filter((log) => log.level === "WARN").map((log) => log.message)).toEqual([
        "CircuitBreaker onStateChange fell behind: the 75 oldest state changes waiting for it were dropped"
      ])
      // The newest were kept: the last change is the last one seen.
      expect(seen.at(-1)).toBe("Isolated -> Closed")
    })
  )
})
