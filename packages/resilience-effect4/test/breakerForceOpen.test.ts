// @generated from templates/test/breakerForceOpen.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The internal controls a shared store has over a breaker it made, on Effect 4 (issue #18,
 * `shareCircuitBreaker`): `forceOpen` opens a closed or half-open circuit as any opening is seen
 * (its state, `changes`, `onStateChange`), and `onOpen` hears the openings the breaker decided
 * itself, from closed and from half-open, never a forced one. All on the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as circuitBreakerService from "../src/internal/circuitBreakerService.js"

const origin = "http://force.test:80"

const breakerWith = (changes: Array<CircuitBreaker.StateChange>) =>
  Effect.gen(function* () {
    const breaker = yield* CircuitBreaker.make({
      tripPolicy: CircuitBreaker.consecutive(1),
      breakDuration: "1 second",
      maxBreakDuration: "10 seconds",
      onStateChange: (change) =>
        Effect.sync(() => {
          changes.push(change)
        })
    })
    const controls = circuitBreakerService.controlsOf(breaker)
    if (controls === undefined) throw new Error("a breaker made by CircuitBreaker.make has controls")
    const opened: Array<readonly [string, number]> = []
    controls.setOnOpen((at, breakMillis) =>
      Effect.sync(() => {
        opened.push([at, breakMillis])
      })
    )
    return { breaker, controls, opened }
  })

/** Lets the observers' fiber run (it runs after the caller, on its own). */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

describe("CircuitBreaker controls for a shared store, on Effect 4", () => {
  it.effect("forceOpen opens a closed circuit, seen by state, changes and onStateChange, not by onOpen", () =>
    Effect.gen(function* () {
      const changes: Array<CircuitBreaker.StateChange> = []
      const { breaker, controls, opened } = yield* breakerWith(changes)
      const streamed = yield* Effect.forkChild(Stream.runCollect(Stream.take(breaker.changes, 1)))
      yield* settle
      yield* controls.forceOpen(origin, 4_000)
      const state = yield* breaker.state(origin)
      expect(state._tag === "Open" && Duration.toMillis(state.retryAfter)).toBe(4_000)
      expect(yield* Effect.flip(breaker.execute(Effect.succeed(1), origin))).toMatchObject({
        _tag: "CircuitOpen",
        state: "Open"
      })
      yield* settle
      const change = { origin, from: "Closed", to: "Open", breakDuration: Duration.millis(4_000), manual: false }
      expect(changes).toEqual([change])
      expect(yield* Fiber.join(streamed)).toEqual([change])
      expect(opened).toEqual([])
      // An open circuit keeps its own break: a second forced opening changes nothing.
      yield* controls.forceOpen(origin, 10_000)
      const still = yield* breaker.state(origin)
      expect(still._tag === "Open" && Duration.toMillis(still.retryAfter)).toBe(4_000)
      // After the break it probes on its own; the probe's success closes it.
      yield* TestClock.adjust("4 seconds")
      expect(yield* breaker.execute(Effect.succeed(1), origin)).toBe(1)
      expect((yield* breaker.state(origin))._tag).toBe("Closed")
    })
  )

  it.effect("forceOpen holds the break within breakDuration and maxBreakDuration", () =>
    Effect.gen(function* () {
      const { breaker, controls } = yield* breakerWith([])
      yield* controls.forceOpen(origin, 60_000)
      const state = yield* breaker.state(origin)
      expect(state._tag === "Open" && Duration.toMillis(state.retryAfter)).toBe(10_000)
    })
  )

  it.effect("onOpen hears the breaker's own openings, from closed and from a failed probe, with their breaks", () =>
    Effect.gen(function* () {
      const { breaker, opened } = yield* breakerWith([])
      yield* Effect.ignore(breaker.execute(Effect.fail("down"), origin))
      expect(opened).toEqual([[origin, 1_000]])
      yield* TestClock.adjust("1 second")
      yield* Effect.ignore(breaker.execute(Effect.fail("still down"), origin))
      expect(opened).toEqual([
        [origin, 1_000],
        [origin, 1_000]
      ])
    })
  )

  it.effect("forceOpen on a half-open circuit fences its probe; an isolated circuit stays isolated", () =>
    Effect.gen(function* () {
      const changes: Array<CircuitBreaker.StateChange> = []
      const { breaker, controls, opened } = yield* breakerWith(changes)
      yield* Effect.ignore(breaker.execute(Effect.fail("down"), origin))
      yield* TestClock.adjust("1 second")
      const probe = yield* breaker.acquire(origin)
      yield* controls.forceOpen(origin, 5_000)
      yield* probe.report(CircuitBreaker.success)
      const state = yield* breaker.state(origin)
      expect(state._tag === "Open" && Duration.toMillis(state.retryAfter)).toBe(5_000)
      yield* settle
      expect(changes.map((change) => `${change.from} -> ${change.to}`)).toEqual([
        "Closed -> Open",
        "Open -> HalfOpen",
        "HalfOpen -> Open"
      ])
      expect(opened).toEqual([[origin, 1_000]])
      yield* breaker.isolate(origin)
      yield* controls.forceOpen(origin, 5_000)
      expect((yield* breaker.state(origin))._tag).toBe("Isolated")
    })
  )

  it.effect("a service that is not one of ours has no controls", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make()
      expect(circuitBreakerService.controlsOf({ ...breaker })).toBeUndefined()
    })
  )
})
