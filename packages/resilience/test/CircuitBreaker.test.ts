import { describe, expect, it } from "@effect/vitest"
import {
  Chunk,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  Metric,
  MetricLabel,
  Ref,
  Stream,
  TestClock
} from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as metrics from "../src/internal/metrics.js"
import { expectInvalidOption } from "./support/invalidOptions.js"

const origin = "http://api.test:80"
type Service = CircuitBreaker.CircuitBreaker.Service

/** An attempt that counts its runs, so a test can tell a rejected attempt from one that ran. */
const counted = Effect.gen(function* () {
  const runs = yield* Ref.make(0)
  const attempt = <A, E>(result: Effect.Effect<A, E>) =>
    Effect.zipRight(
      Ref.update(runs, (n) => n + 1),
      result
    )
  return { runs, attempt }
})

const succeed = (breaker: Service, key = origin) => breaker.execute(Effect.succeed("ok"), key)
const fail = (breaker: Service, key = origin) => Effect.either(breaker.execute(Effect.fail("boom"), key))
const times = <A, E>(n: number, effect: Effect.Effect<A, E>) => Effect.repeatN(effect, n - 1)

const stateOf = (breaker: Service, key = origin) => Effect.map(breaker.state(key), (state) => state._tag)

const rejection = (breaker: Service, key = origin) => Effect.flip(breaker.execute(Effect.succeed("ok"), key))

/** consecutive(1): the first failure opens the circuit. */
const makeTripping = (options: CircuitBreaker.Options = {}) =>
  CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(1), ...options })

/** A consecutive(1) breaker that opened 5 s ago: the next attempt is the probe. */
const brokenUntilNow = Effect.gen(function* () {
  const breaker = yield* makeTripping()
  yield* fail(breaker)
  yield* TestClock.adjust("5 seconds")
  return breaker
})

describe("CircuitBreaker: Polly's cases, on TestClock", () => {
  it.effect("throughput below the minimum never breaks, however many fail", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make()
      yield* times(99, fail(breaker))
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )

  it.effect("a failure ratio equal to the threshold breaks (10 failures in 100 samples at 0.1); 9 do not", () =>
    Effect.gen(function* () {
      const below = yield* CircuitBreaker.make()
      yield* times(91, succeed(below))
      yield* times(9, fail(below))
      expect(yield* stateOf(below)).toBe("Closed")

      const equal = yield* CircuitBreaker.make()
      yield* times(90, succeed(equal))
      yield* times(9, fail(equal))
      expect(yield* stateOf(equal)).toBe("Closed")
      yield* fail(equal)
      expect(yield* equal.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(5) })
    })
  )

  it.effect("an open circuit rejects at once, without running the attempt, with the time left", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const { runs, attempt } = yield* counted
      yield* fail(breaker)
      yield* TestClock.adjust("1200 millis")
      const error = yield* Effect.flip(breaker.execute(attempt(Effect.succeed(1)), origin))
      expect(error).toBeInstanceOf(CircuitBreaker.CircuitOpen)
      expect({ ...error }).toEqual({ _tag: "CircuitOpen", origin, state: "Open", retryAfter: Duration.millis(3800) })
      expect(error.message).toBe(
        "Circuit breaker for http://api.test:80 is open: attempts are rejected for 3s 800ms more, then one probe is let through"
      )
      expect(yield* Ref.get(runs)).toBe(0)
    })
  )

  it.effect("half-open lets exactly one attempt through; a second caller is rejected with the time left", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const { runs, attempt } = yield* counted
      yield* fail(breaker)
      yield* TestClock.adjust("5 seconds")
      const release = yield* Deferred.make<void>()
      const probe = yield* Effect.fork(breaker.execute(attempt(Deferred.await(release)), origin))
      yield* Effect.yieldNow()
      expect(yield* breaker.state(origin)).toEqual({
        _tag: "HalfOpen",
        origin,
        probing: true,
        retryAfter: Duration.seconds(5)
      })
      yield* TestClock.adjust("1 second")
      const second = yield* Effect.flip(breaker.execute(attempt(Effect.void), origin))
      expect({ ...second }).toEqual({ _tag: "CircuitOpen", origin, state: "HalfOpen", retryAfter: Duration.seconds(4) })
      expect(second.message).toContain("half-open and its probe is in flight")
      expect(yield* Ref.get(runs)).toBe(1)

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(probe)
      expect(yield* stateOf(breaker)).toBe("Closed")
      expect(yield* succeed(breaker)).toBe("ok")
    })
  )

  it.effect("a failed probe opens the circuit for a whole new break", () =>
    Effect.gen(function* () {
      const breaker = yield* brokenUntilNow
      yield* fail(breaker)
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(5) })
    })
  )

  it.effect("a probe that hangs is re-armed after the break duration: the next caller becomes the probe", () =>
    Effect.gen(function* () {
      const breaker = yield* brokenUntilNow
      const hung = yield* Effect.fork(breaker.execute(Effect.never, origin))
      yield* Effect.yieldNow()
      yield* TestClock.adjust("4999 millis")
      expect((yield* rejection(breaker)).state).toBe("HalfOpen")
      yield* TestClock.adjust("1 millis")
      expect(yield* succeed(breaker)).toBe("ok")
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* Fiber.interrupt(hung)
      expect(yield* stateOf(breaker)).toBe("Closed")
    })
  )

  it.effect("failures while open do not extend the break", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const gates = yield* Effect.all([Deferred.make<void>(), Deferred.make<void>()])
      const inFlight = yield* Effect.forEach(
        gates,
        (gate) =>
          Effect.fork(
            Effect.either(breaker.execute(Effect.zipRight(Deferred.await(gate), Effect.fail("late")), origin))
          ),
        { concurrency: "unbounded" }
      )
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gates[0], undefined)
      yield* Fiber.join(inFlight[0]!)
      yield* TestClock.adjust("3 seconds")
      yield* Deferred.succeed(gates[1], undefined)
      yield* Fiber.join(inFlight[1]!)
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(2) })
      yield* TestClock.adjust("2 seconds")
      expect(yield* succeed(breaker)).toBe("ok")
    })
  )

  it.effect("the window forgets samples older than the sampling duration", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.sampling({ failureRatio: 0.5, minimumThroughput: 2, samplingDuration: "30 seconds" })
      })
      yield* fail(breaker)
      yield* TestClock.adjust("30 seconds")
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* TestClock.adjust("29999 millis")
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )
})

describe("CircuitBreaker: policies and outcomes", () => {
  it.effect("consecutive: opens on the n-th failure in a row; a success in between starts the count again", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(3) })
      yield* times(2, fail(breaker))
      yield* succeed(breaker)
      yield* times(2, fail(breaker))
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )

  it.effect("consecutive() defaults to 5", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive() })
      expect(breaker.settings.tripPolicy).toEqual({ _tag: "Consecutive", failures: 5 })
      yield* times(4, fail(breaker))
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )

  const classifyStatus = (exit: Exit.Exit<number, number>): CircuitBreaker.Outcome =>
    Exit.match(exit, {
      onSuccess: () => CircuitBreaker.success,
      onFailure: (cause) => {
        const status = cause._tag === "Fail" ? cause.error : 0
        if (status === 429) return CircuitBreaker.ignored
        if (status === 503) return CircuitBreaker.failure({ retryAfter: "20 seconds" })
        if (status === 504) return CircuitBreaker.failure({ retryAfter: "2 minutes" })
        return status >= 500 ? CircuitBreaker.failure() : CircuitBreaker.success
      }
    })

  it.effect("a 429 is not a sample; a permanent status is a success (classified by the caller)", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(2) })
      const status = (code: number) => Effect.either(breaker.execute(Effect.fail(code), origin, classifyStatus))
      yield* status(500)
      yield* times(10, status(429))
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* status(404)
      yield* status(500)
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* status(502)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )

  it.effect("Retry-After on the opening failure lengthens the break, up to maxBreakDuration (30 s by default)", () =>
    Effect.gen(function* () {
      const lengthened = yield* makeTripping()
      yield* Effect.either(lengthened.execute(Effect.fail(503), origin, classifyStatus))
      expect(yield* lengthened.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(20) })

      const capped = yield* makeTripping()
      yield* Effect.either(capped.execute(Effect.fail(504), origin, classifyStatus))
      expect((yield* rejection(capped)).retryAfter).toEqual(Duration.seconds(30))
      yield* TestClock.adjust("29999 millis")
      expect((yield* rejection(capped)).state).toBe("Open")
      yield* TestClock.adjust("1 millis")
      expect(yield* succeed(capped)).toBe("ok")
    })
  )

  it.effect("the pipeable form classifies with the attempt's own types", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const result = yield* Effect.fail(429).pipe(
        // The exit's types come from the piped effect: no annotation needed.
        breaker.execute(origin, (exit) =>
          Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error === 429
            ? CircuitBreaker.ignored
            : CircuitBreaker.failure()
        ),
        Effect.either
      )
      expect(result).toEqual(Either.left(429))
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* Effect.die("defect").pipe(breaker.execute(origin), Effect.exit)
      expect(yield* stateOf(breaker)).toBe("Open")
    })
  )

  it.effect("an interrupted attempt is not a sample", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const fiber = yield* Effect.fork(breaker.execute(Effect.never, origin))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(yield* stateOf(breaker)).toBe("Closed")
      const timedOut = yield* breaker.execute(Effect.never, origin).pipe(Effect.timeoutOption("1 second"), Effect.fork)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(timedOut)
      expect(yield* stateOf(breaker)).toBe("Closed")
    })
  )

  it.effect("an interrupted probe frees its slot at once: the next caller becomes the probe", () =>
    Effect.gen(function* () {
      const breaker = yield* brokenUntilNow
      const probe = yield* Effect.fork(breaker.execute(Effect.never, origin))
      yield* Effect.yieldNow()
      expect((yield* rejection(breaker)).state).toBe("HalfOpen")
      yield* Fiber.interrupt(probe)
      expect(yield* breaker.state(origin)).toEqual({
        _tag: "HalfOpen",
        origin,
        probing: false,
        retryAfter: Duration.zero
      })
      expect(yield* succeed(breaker)).toBe("ok")
      expect(yield* stateOf(breaker)).toBe("Closed")
    })
  )

  it.effect("a classify that throws frees the probe's slot, and the attempt dies with what it threw", () =>
    Effect.gen(function* () {
      const breaker = yield* brokenUntilNow
      const exit = yield* Effect.exit(
        breaker.execute(Effect.succeed(1), origin, () => {
          throw new Error("bad classifier")
        })
      )
      expect(exit).toEqual(Exit.die(new Error("bad classifier")))
      expect(yield* succeed(breaker)).toBe("ok")
    })
  )

  it.effect("acquire and report by hand: one report per permit, later ones ignored", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const permit = yield* breaker.acquire(origin)
      expect(permit).toMatchObject({ origin, probe: false })
      yield* permit.report(CircuitBreaker.success)
      yield* permit.report(CircuitBreaker.failure())
      expect(yield* stateOf(breaker)).toBe("Closed")
      yield* TestClock.adjust("1 second")
      const late = yield* breaker.acquire(origin)
      yield* (yield* breaker.acquire(origin)).report(CircuitBreaker.failure())
      yield* TestClock.adjust("5 seconds")
      const probe = yield* breaker.acquire(origin)
      expect(probe.probe).toBe(true)
      yield* late.report(CircuitBreaker.success)
      expect(yield* stateOf(breaker)).toBe("HalfOpen")
    })
  )

  it.effect("keeps one circuit per origin", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      yield* fail(breaker, "http://down.test:80")
      expect(yield* stateOf(breaker, "http://down.test:80")).toBe("Open")
      expect(yield* succeed(breaker, "http://up.test:80")).toBe("ok")
      expect(yield* breaker.state("http://never.test:80")).toEqual({ _tag: "Closed", origin: "http://never.test:80" })
    })
  )

  it.effect("is shared by everything provided with one layer", () =>
    Effect.gen(function* () {
      const tripper = Effect.flatMap(CircuitBreaker.CircuitBreaker, (breaker) => fail(breaker))
      const observer = Effect.flatMap(CircuitBreaker.CircuitBreaker, (breaker) => breaker.state(origin))
      const [, seen] = yield* Effect.all([tripper, observer]).pipe(
        Effect.provide(CircuitBreaker.layer({ tripPolicy: CircuitBreaker.consecutive(1) }))
      )
      expect(seen._tag).toBe("Open")
    })
  )
})

describe("CircuitBreaker: manual control", () => {
  it.effect("isolate holds the circuit open until closed by hand, whatever the time", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make()
      const { runs, attempt } = yield* counted
      yield* breaker.isolate(origin)
      yield* TestClock.adjust("1 day")
      const error = yield* Effect.flip(breaker.execute(attempt(Effect.void), origin))
      expect({ ...error }).toEqual({ _tag: "CircuitOpen", origin, state: "Isolated", retryAfter: Duration.infinity })
      expect(error.message).toBe(
        "Circuit breaker for http://api.test:80 is isolated: attempts are rejected until it is closed by hand"
      )
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Isolated", origin })
      expect(yield* Ref.get(runs)).toBe(0)
      yield* breaker.close(origin)
      expect(yield* breaker.execute(attempt(Effect.succeed("ok")), origin)).toBe("ok")
    })
  )

  it.effect("close ends a break early and forgets the samples", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(2) })
      yield* times(2, fail(breaker))
      yield* breaker.close(origin)
      yield* fail(breaker)
      expect(yield* stateOf(breaker)).toBe("Closed")
    })
  )
})

describe("CircuitBreaker: observing state changes", () => {
  const cycle = (breaker: Service) =>
    Effect.gen(function* () {
      yield* fail(breaker) // Closed -> Open
      yield* TestClock.adjust("5 seconds")
      yield* fail(breaker) // Open -> HalfOpen, HalfOpen -> Open
      yield* TestClock.adjust("5 seconds")
      yield* succeed(breaker) // Open -> HalfOpen, HalfOpen -> Closed
      yield* breaker.isolate(origin) // Closed -> Isolated
      yield* breaker.close(origin) // Isolated -> Closed
    })

  const expected: ReadonlyArray<CircuitBreaker.StateChange> = [
    { origin, from: "Closed", to: "Open", breakDuration: Duration.seconds(5), manual: false },
    { origin, from: "Open", to: "HalfOpen", manual: false },
    { origin, from: "HalfOpen", to: "Open", breakDuration: Duration.seconds(5), manual: false },
    { origin, from: "Open", to: "HalfOpen", manual: false },
    { origin, from: "HalfOpen", to: "Closed", manual: false },
    { origin, from: "Closed", to: "Isolated", manual: true },
    { origin, from: "Isolated", to: "Closed", manual: true }
  ]

  it.scoped("subscribe: the stream emits every transition after subscribing, in order", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const changes = yield* breaker.subscribe
      yield* cycle(breaker)
      const collected = yield* changes.pipe(Stream.take(expected.length), Stream.runCollect)
      expect(Chunk.toReadonlyArray(collected)).toEqual(expected)
    })
  )

  it.scoped("subscribe: a subscriber more than 1024 changes behind loses the oldest", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const changes = yield* breaker.subscribe
      // 1100 changes (isolate, close, ...), then a last isolation once the stream is read.
      for (let round = 0; round < 550; round++) {
        yield* breaker.isolate(origin)
        yield* breaker.close(origin)
      }
      const collected = yield* changes.pipe(Stream.take(1025), Stream.runCollect, Effect.fork)
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow()
      yield* breaker.isolate(origin)
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(collected))
      const isolation = { origin, from: "Closed", to: "Isolated", manual: true }
      // The 76 oldest were dropped: the 77th change (an isolation) is the first seen.
      expect(seen).toHaveLength(1025)
      expect(seen[0]).toEqual(isolation)
      expect(seen[1023]).toEqual({ origin, from: "Isolated", to: "Closed", manual: true })
      expect(seen[1024]).toEqual(isolation)
    })
  )

  it.effect("changes: a forked stream sees the changes made once it runs, in order", () =>
    Effect.gen(function* () {
      const breaker = yield* makeTripping()
      const collected = yield* breaker.changes.pipe(Stream.take(4), Stream.runCollect, Effect.fork)
      // The stream subscribes when it starts running, some time after the fork: toggle until it has seen four.
      for (let round = 0; round < 100 && collected.unsafePoll() === null; round++) {
        yield* breaker.isolate(origin)
        yield* breaker.close(origin)
        yield* Effect.yieldNow()
      }
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(collected))
      expect(seen).toHaveLength(4)
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.from).toBe(seen[i - 1]!.to)
      expect(seen.every((change) => change.manual && change.origin === origin)).toBe(true)
    })
  )

  it.effect("onStateChange sees the same transitions, in order, in a fiber of its own", () =>
    Effect.gen(function* () {
      const seen = yield* Ref.make<ReadonlyArray<CircuitBreaker.StateChange>>([])
      const breaker = yield* makeTripping({
        onStateChange: (change) => Ref.update(seen, (changes) => [...changes, change])
      })
      yield* cycle(breaker)
      // The observer runs after the caller, in a fiber of its own: let it run.
      for (let i = 0; i < 100 && (yield* Ref.get(seen)).length < expected.length; i++) yield* Effect.yieldNow()
      expect(yield* Ref.get(seen)).toEqual(expected)
    })
  )

  it.effect("metrics: the state gauge per origin, transitions and rejections counted", () =>
    Effect.gen(function* () {
      const key = "http://metrics.test:8080"
      const labels = metrics.originAttributes(key)
      expect(labels).toEqual([
        MetricLabel.make("server.address", "metrics.test"),
        MetricLabel.make("url.scheme", "http"),
        MetricLabel.make("server.port", "8080")
      ])
      const gauge = (state: string) =>
        Metric.value(
          Metric.taggedWithLabels(metrics.circuitBreakerState, [
            ...labels,
            MetricLabel.make("http.client.resilience.circuit_breaker.state", state)
          ])
        ).pipe(Effect.map((value) => value.value))
      const opened = Metric.taggedWithLabels(metrics.circuitBreakerTransitions, [
        ...labels,
        MetricLabel.make("http.client.resilience.circuit_breaker.previous_state", "closed"),
        MetricLabel.make("http.client.resilience.circuit_breaker.state", "open")
      ])
      const rejected = Metric.taggedWithLabels(metrics.circuitBreakerRefusals, [
        ...labels,
        MetricLabel.make("http.client.resilience.circuit_breaker.state", "open")
      ])
      const openedBefore = (yield* Metric.value(opened)).count
      const rejectedBefore = (yield* Metric.value(rejected)).count

      const breaker = yield* makeTripping()
      yield* succeed(breaker, key)
      expect(yield* gauge("closed")).toBe(1)
      yield* fail(breaker, key)
      expect([yield* gauge("closed"), yield* gauge("open")]).toEqual([0, 1])
      yield* times(3, Effect.ignore(rejection(breaker, key)))
      expect((yield* Metric.value(opened)).count - openedBefore).toBe(1)
      expect((yield* Metric.value(rejected)).count - rejectedBefore).toBe(3)
    })
  )
})

describe("CircuitBreaker invalid options", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, unknown]> = [
    ["a break under 500 ms", { breakDuration: "100 millis" }, "circuitBreaker.breakDuration", "100 millis"],
    ["a break that is not a duration", { breakDuration: "a while" }, "circuitBreaker.breakDuration", "a while"],
    ["a cap below the break", { maxBreakDuration: "1 second" }, "circuitBreaker.maxBreakDuration", "1 second"],
    [
      "a failure ratio of 0",
      { tripPolicy: CircuitBreaker.sampling({ failureRatio: 0 }) },
      "circuitBreaker.tripPolicy.failureRatio",
      0
    ],
    [
      "a minimum throughput of 1",
      { tripPolicy: CircuitBreaker.sampling({ minimumThroughput: 1 }) },
      "circuitBreaker.tripPolicy.minimumThroughput",
      1
    ],
    [
      "a sampling duration of 100 ms",
      { tripPolicy: CircuitBreaker.sampling({ samplingDuration: 100 }) },
      "circuitBreaker.tripPolicy.samplingDuration",
      100
    ],
    ["0 consecutive failures", { tripPolicy: CircuitBreaker.consecutive(0) }, "circuitBreaker.tripPolicy.failures", 0],
    ["a trip policy by hand", { tripPolicy: { failures: 3 } }, "circuitBreaker.tripPolicy", { failures: 3 }],
    ["a misspelt option", { breakDurations: "5 seconds" }, "circuitBreaker.breakDurations", "5 seconds"],
    ["a callback that is not a function", { onStateChange: "log" }, "circuitBreaker.onStateChange", "log"]
  ]
  for (const [label, input, option, value] of cases) {
    // Inputs a caller could only build by going around the types.
    it.effect(`${label}: InvalidRetryPolicy naming "${option}"`, () =>
      expectInvalidOption(CircuitBreaker, input as CircuitBreaker.Options, option, value)
    )
  }

  it("the defaults are Polly's, with a 30 s cap on lengthened breaks", () => {
    expect(CircuitBreaker.validate()).toEqual(
      Either.right({
        tripPolicy: {
          _tag: "Sampling",
          failureRatio: 0.1,
          minimumThroughput: 100,
          samplingDuration: Duration.seconds(30)
        },
        breakDuration: Duration.seconds(5),
        maxBreakDuration: Duration.seconds(30),
        slowCalls: undefined,
        halfOpen: { probes: 1, successes: 1 }
      })
    )
  })
})
