// @generated from templates/test/breakerProbeSlot.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The half-open probe's slot, on Effect 4: a probe admitted but slow to go out (a busy event
 * loop, a slow connect: here a transport that waits) keeps its slot for as long as its own time
 * limit, so that no second probe goes out beside it; one that outlives its limit is cut by it,
 * and the circuit reopens. On the TestClock: the times are exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://probe-slot.test/r"
const origin = "http://probe-slot.test:80"

/**
 * The scripted server behind a transport that holds the `slow`-th request (1-based) for `delay`
 * before it goes out: the server sees it (and records its time) only then.
 */
const slowToSend = (scripted: ScriptedHttpClient.ScriptedHttpClient, slow: number, delay: Duration.Input) => {
  let sent = 0
  return HttpClient.make((request) =>
    Effect.suspend(() =>
      ++sent === slow
        ? Effect.andThen(Effect.sleep(delay), scripted.client.execute(request))
        : scripted.client.execute(request)
    )
  )
}

/** One attempt per call, under a 10 s time limit, through `breaker`. */
const resilient = (transport: HttpClient.HttpClient, breaker: CircuitBreaker.CircuitBreaker.Service) =>
  ResilientHttpClient.withResilience(transport, {
    jitter: "none",
    maxAttempts: 1,
    attemptTimeout: "10 seconds",
    circuitBreaker: CircuitBreaker.perOrigin(breaker)
  })

/** How a call ended: its status, or its failure's tag and reason. */
const outcomeOf = (client: ReturnType<typeof resilient>) =>
  Effect.scoped(
    Effect.map(client.get(url), (response) => `${response.status}`).pipe(
      Effect.catch((failure) =>
        Effect.succeed("reason" in failure ? `${failure._tag} ${String(failure.reason)}` : failure._tag)
      )
    )
  )

describe("CircuitBreaker half-open probe slot, on Effect 4", () => {
  it.effect("a probe slow to go out keeps its slot past breakDuration: no second probe is sent beside it", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds"
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
      // The probe (the 2nd request) waits 7 s in the transport, within its 10 s time limit.
      const client = resilient(slowToSend(scripted, 2, "7 seconds"), breaker)
      expect(yield* outcomeOf(client)).toBe("TransientStatus")
      yield* TestClock.adjust("5 seconds")
      const probe = yield* Effect.forkChild(outcomeOf(client))
      yield* TestClock.adjust("6 seconds")
      // 6 s after the probe's admission, a whole break later, it has still not gone out: its
      // slot holds, and this caller is rejected unsent, told when the slot is re-armed at the
      // latest (its 10 s time limit and a break past it).
      expect(yield* breaker.state(origin)).toEqual({
        _tag: "HalfOpen",
        origin,
        probing: true,
        retryAfter: Duration.seconds(9)
      })
      expect(yield* outcomeOf(client)).toBe("ConnectionError CircuitOpen")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0])
      // The probe goes out at 12 s; its 200 closes the circuit, and the next call goes out.
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(probe)).toBe("200")
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
      expect(yield* outcomeOf(client)).toBe("200")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 12_000, 12_000])
    })
  )

  it.effect("a probe that outlives its own time limit is cut by it, and the circuit reopens: it cannot wedge it", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds"
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { hang: true }, { status: 200 }])
      const client = resilient(scripted.client, breaker)
      expect(yield* outcomeOf(client)).toBe("TransientStatus")
      yield* TestClock.adjust("5 seconds")
      const probe = yield* Effect.forkChild(outcomeOf(client))
      yield* TestClock.adjust("10 seconds")
      // Its time limit cut the hung probe at 15 s: a failure, which opens the circuit again.
      expect(yield* Fiber.join(probe)).toBe("ConnectionError Timeout")
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(5) })
      yield* TestClock.adjust("5 seconds")
      expect(yield* outcomeOf(client)).toBe("200")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 5_000, 20_000])
    })
  )
})
