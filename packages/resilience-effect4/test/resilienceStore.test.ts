// @generated from templates/test/resilienceStore.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Layer, Metric, type Scope } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilienceStore from "../src/ResilienceStore.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/r"
const origin = "http://api.test:80"
const fast = { jitter: "none", backoff: RetryPolicy.constant(0), maxAttempts: 3 } as const

/** Runs `use` on the TestClock until it ends; its exit. */
const run = <A, E>(use: Effect.Effect<A, E, Scope.Scope>, advance: Duration.Input = "1 minute") =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(use)))
    yield* TestClock.adjust(advance)
    return yield* Fiber.join(fiber)
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find(Cause.isFailReason)
  if (reason === undefined) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return reason.error
}

/** The package README's pattern: the resilient client built inside the effect of each call. */
const perCall = (client: HttpClient.HttpClient, options: RetryPolicy.Options) =>
  Effect.flatMap(
    Effect.sync(() => ResilientHttpClient.withResilience(client, { ...options })),
    (resilient) => resilient.get(url)
  )

/** The requests counted as sent to `host` (every method), from the process-wide metrics. */
const attemptsCounted = (host: string): Effect.Effect<number> =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter(
        (snapshot) =>
          snapshot.id === "http.client.resilience.attempts" && snapshot.attributes?.["server.address"] === host
      )
      .reduce((sum, snapshot) => sum + (snapshot.type === "Counter" ? Number(snapshot.state.count) : 0), 0)
  )

describe("ResilienceStore: one budget and breaker per origin, however often the client is built", () => {
  it.effect("a client built per call holds a lasting outage to one shared budget: at most 1.2 requests a call", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const calls = 300
      // A floor of 10 retries (1/s over the 10 s ttl), so that a few hundred calls show the ratio;
      // the default floor of 100 gives the same 1.2 from 1,000 calls on (bench:profile measures it).
      const options = { ...fast, retryBudget: { minPerSecond: 1 } }
      // No backoff, so no waits: the calls run back to back at time 0, within the budget's ttl.
      yield* Effect.forEach(Array.from({ length: calls }), () =>
        Effect.flip(Effect.scoped(perCall(scripted.client, options)))
      )
      const retries = scripted.exchanges.length - calls
      // The floor plus a tenth of the calls, once for all: a budget per client would allow 2 per call.
      expect(retries).toBeGreaterThanOrEqual(calls / 10 + 8)
      expect(retries).toBeLessThanOrEqual(calls / 10 + 11)
      expect(scripted.exchanges.length / calls).toBeLessThanOrEqual(1.2)
    })
  )

  it.effect("clients built per call share a breaker: the one that trips it stops the next, unsent", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const options = {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(2) })
      }
      const first = yield* run(perCall(scripted.client, options), "1 second")
      expect(failureOf(first)).toMatchObject({ giveUpReason: "circuit-open", attempt: 2 })
      const second = yield* run(perCall(scripted.client, options), "1 second")
      expect(failureOf(second)).toMatchObject({ reason: "CircuitOpen", giveUpReason: "circuit-open" })
      expect(scripted.exchanges).toHaveLength(2)
    })
  )

  it.effect("one breaker per options and onStateChange; at most 256 of them, the oldest forgotten first", () =>
    Effect.gen(function* () {
      const store = ResilienceStore.makeMemory()
      const observe = () => Effect.void
      const options = { tripPolicy: CircuitBreaker.consecutive(1), onStateChange: observe }
      const first = yield* CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin(options))
      expect(yield* CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin({ ...options }))).toBe(first)
      // A callback written anew for each client is a breaker of its own, and the table stays bounded.
      for (let i = 0; i < 256; i++)
        yield* CircuitBreaker.fromStore(
          store,
          CircuitBreaker.perOrigin({ ...options, onStateChange: () => Effect.void })
        )
      expect(yield* CircuitBreaker.fromStore(store, CircuitBreaker.perOrigin(options))).not.toBe(first)
    })
  )

  it.effect("layerMemory gives what runs under it a store of its own", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const options = {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(1) })
      }
      yield* run(perCall(scripted.client, options), "1 second")
      expect(scripted.exchanges).toHaveLength(1)
      // The default store's circuit is open; an isolated store's is not.
      yield* run(Effect.provide(perCall(scripted.client, options), ResilienceStore.layerMemory()), "1 second")
      expect(scripted.exchanges).toHaveLength(2)
    })
  )
})

describe("ResilienceStore: a 429's Retry-After cools its origin down for every call", () => {
  const limited = (): ScriptedHttpClient.ScriptedHttpClient =>
    ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "5" } }, { status: 200 }])

  /** Call A at 0 s meets the 429; call B starts at 1 s. When each request was sent, and B's exit. */
  const twoCalls = (
    scripted: ScriptedHttpClient.ScriptedHttpClient,
    optionsB: RetryPolicy.Options,
    wrapB: <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.Effect<A, E, Scope.Scope> = (effect) => effect,
    optionsA: RetryPolicy.Options = fast
  ) =>
    Effect.gen(function* () {
      const a = yield* Effect.forkChild(Effect.exit(Effect.scoped(perCall(scripted.client, optionsA))))
      const b = yield* Effect.forkChild(
        Effect.andThen(Effect.sleep("1 second"), Effect.exit(Effect.scoped(wrapB(perCall(scripted.client, optionsB)))))
      )
      yield* TestClock.adjust("1 minute")
      const exitA = yield* Fiber.join(a)
      const exitB = yield* Fiber.join(b)
      return { exitA, exitB, times: scripted.times() }
    })

  it.effect("a call started during the cool-down waits for its end before it sends", () =>
    Effect.gen(function* () {
      const { exitA, exitB, times } = yield* twoCalls(limited(), fast)
      expect(Exit.isSuccess(exitA)).toBe(true)
      expect(Exit.isSuccess(exitB)).toBe(true)
      // A at 0 (429) and its retry at 5 s; B, started at 1 s, also at 5 s.
      expect(times).toEqual([0, 5000, 5000])
    })
  )

  it.effect("a call that may not wait that long gives up unsent, saying why", () =>
    Effect.gen(function* () {
      const scripted = limited()
      const { exitB, times } = yield* twoCalls(scripted, {
        ...fast,
        maxDelay: "2 seconds",
        whenRetryAfterExceedsMaxDelay: "give-up"
      })
      expect(failureOf(exitB)).toMatchObject({
        _tag: "ConnectionError",
        reason: "CoolingDown",
        giveUpReason: "retry-after-exceeds-max-delay"
      })
      expect(failureOf(exitB).message).toBe(
        `GET ${url}: not sent: the origin is cooling down after a 429 with Retry-After; gave up: the cool-down is longer than maxDelay`
      )
      expect(times).toEqual([0, 5000])
    })
  )

  it.effect("a call whose total timeout ends first gives up unsent, as deadline-exceeded", () =>
    Effect.gen(function* () {
      const { exitB, times } = yield* twoCalls(limited(), { ...fast, totalTimeout: "3 seconds" })
      expect(failureOf(exitB)).toMatchObject({ reason: "CoolingDown", giveUpReason: "deadline-exceeded" })
      expect(times).toEqual([0, 5000])
    })
  )

  it.effect("a policy that ignores Retry-After neither waits for nor starts a cool-down", () =>
    Effect.gen(function* () {
      const { times } = yield* twoCalls(limited(), { ...fast, retryAfter: "ignore" })
      // B is sent at 1 s; A still waits its own Retry-After.
      expect(times).toEqual([0, 1000, 5000])
    })
  )

  it.effect("retryAfterScope: call keeps a 429's Retry-After to the call that received it", () =>
    Effect.gen(function* () {
      const { exitA, times } = yield* twoCalls(limited(), fast, undefined, { ...fast, retryAfterScope: "call" })
      expect(Exit.isSuccess(exitA)).toBe(true)
      // B is sent at 1 s; A still waits its own Retry-After.
      expect(times).toEqual([0, 1000, 5000])
    })
  )

  it("a bad retryAfterScope is an InvalidRetryPolicy that names it", () => {
    const options: RetryPolicy.Options = JSON.parse('{"retryAfterScope":"fleet"}')
    const result = RetryPolicy.validate(options)
    expect(result._tag).toBe("Failure")
    expect(String(result._tag === "Failure" ? result.failure.message : "")).toContain("retryAfterScope")
  })

  it.effect("another store does not see the cool-down", () =>
    Effect.gen(function* () {
      const { times } = yield* twoCalls(limited(), fast, (effect) =>
        Effect.provide(effect, ResilienceStore.layerMemory())
      )
      expect(times).toEqual([0, 1000, 5000])
    })
  )

  it.effect("a call interrupted while it waits out the cool-down sends nothing and counts no attempt", () =>
    Effect.gen(function* () {
      const host = "interrupted-cool-down.test"
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const call = Effect.scoped(ResilientHttpClient.withResilience(scripted.client, fast).get(`http://${host}/r`))
      const store = yield* ResilienceStore.ResilienceStore
      yield* store.coolDown(`http://${host}:80`, 5000)
      const waiting = yield* Effect.forkChild(call)
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(waiting)
      expect(scripted.exchanges).toHaveLength(0)
      expect(yield* attemptsCounted(host)).toBe(0)
      // Once the cool-down is over, a call is sent and counted.
      yield* TestClock.adjust("4 seconds")
      expect(Exit.isSuccess(yield* run(call))).toBe(true)
      expect(scripted.exchanges).toHaveLength(1)
      expect(yield* attemptsCounted(host)).toBe(1)
    }).pipe(Effect.provide(ResilienceStore.layerMemory()))
  )

  it.effect("the store answers what is left of an origin's cool-down", () =>
    Effect.gen(function* () {
      const scripted = limited()
      yield* Effect.forkChild(Effect.scoped(perCall(scripted.client, fast)))
      yield* TestClock.adjust("2 seconds")
      const store = yield* ResilienceStore.ResilienceStore
      expect(yield* store.coolDownLeft(origin)).toBe(3000)
      yield* TestClock.adjust("3 seconds")
      expect(yield* store.coolDownLeft(origin)).toBe(0)
      expect(yield* Clock.currentTimeMillis).toBe(Duration.toMillis("5 seconds"))
    })
  )
})

describe("ResilienceStore: where it is given", () => {
  type Wiring = "around" | "layer" | "layerHttpClient" | "both"

  /**
   * A call that meets a 429 (Retry-After: 5) through a client whose store `given` is wired as
   * `wiring` says (`both`: `given` to the layer, `other` around the program): what is left of the
   * origin's cool-down in each store, 1 s in.
   */
  const coolDownsAfter = (wiring: Wiring) =>
    Effect.gen(function* () {
      const given = ResilienceStore.makeMemory()
      const other = ResilienceStore.makeMemory()
      const scripted = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "5" } }, { status: 200 }])
      const transport = Layer.succeed(HttpClient.HttpClient, scripted.client)
      const toLayer = Layer.merge(Layer.succeed(ResilienceStore.ResilienceStore, given), transport)
      const viaService = Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
        Effect.scoped(client.get(url))
      )
      const viaPlatform = Effect.flatMap(HttpClient.HttpClient, (client) => Effect.scoped(client.get(url)))
      const call: Effect.Effect<unknown, unknown> =
        wiring === "around"
          ? viaService.pipe(
              Effect.provide(ResilientHttpClient.layer(fast).pipe(Layer.provide(transport))),
              Effect.provide(Layer.succeed(ResilienceStore.ResilienceStore, given))
            )
          : wiring === "layerHttpClient"
            ? Effect.provide(viaPlatform, ResilientHttpClient.layerHttpClient(fast).pipe(Layer.provide(toLayer)))
            : viaService.pipe(
                Effect.provide(ResilientHttpClient.layer(fast).pipe(Layer.provide(toLayer))),
                // Without one around, the call's context holds the default store.
                wiring === "both"
                  ? Effect.provide(Layer.succeed(ResilienceStore.ResilienceStore, other))
                  : (effect) => effect
              )
      const fiber = yield* Effect.forkChild(Effect.exit(call))
      yield* TestClock.adjust("1 second")
      const left = [yield* given.coolDownLeft(origin), yield* other.coolDownLeft(origin)]
      const byDefault = yield* Effect.flatMap(ResilienceStore.ResilienceStore, (store) => store.coolDownLeft(origin))
      yield* TestClock.adjust("1 minute")
      expect(Exit.isSuccess(yield* Fiber.join(fiber))).toBe(true)
      expect(scripted.times()).toEqual([0, 5000])
      return [...left, byDefault]
    })

  it.effect("given around the program, the calls use it", () =>
    Effect.map(coolDownsAfter("around"), (left) => expect(left).toEqual([4000, 0, 0]))
  )

  it.effect("given to ResilientHttpClient.layer with Layer.provide, the calls use it, not the default", () =>
    Effect.map(coolDownsAfter("layer"), (left) => expect(left).toEqual([4000, 0, 0]))
  )

  it.effect("given to layerHttpClient with Layer.provide, the calls use it, not the default", () =>
    Effect.map(coolDownsAfter("layerHttpClient"), (left) => expect(left).toEqual([4000, 0, 0]))
  )

  it.effect("given both, the layer's store decides: the one around the program sees nothing", () =>
    Effect.map(coolDownsAfter("both"), (left) => expect(left).toEqual([4000, 0, 0]))
  )
})
