import { HttpClientRequest, Headers } from "@effect/platform"
import { assert, describe, expect, it } from "@effect/vitest"
import {
  Cause,
  Clock,
  Duration,
  Effect,
  Either,
  Exit,
  FastCheck as fc,
  Fiber,
  Option,
  Random,
  Ref,
  Schedule,
  TestClock
} from "effect"
import * as HttpFailure from "../src/HttpFailure.js"
import * as RetryAfter from "../src/RetryAfter.js"
import * as RetryPolicy from "../src/RetryPolicy.js"

const request = HttpClientRequest.get("http://api.test/")

const transient = (status = 503, retryAfter: Option.Option<Duration.Duration> = Option.none()) =>
  new HttpFailure.TransientStatus({ request, attempt: 1, status, headers: Headers.empty, retryAfter })

/**
 * Feeds the policy's schedule the same failure until it stops, on the TestClock, and returns
 * the wait before each retry and the number of attempts made.
 */
const drive = (policy: RetryPolicy.RetryPolicy, failure: HttpFailure.HttpFailure) =>
  Effect.gen(function* () {
    const times = yield* Ref.make<Array<number>>([])
    const attempt = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.zipRight(
        Ref.update(times, (all) => [...all, now]),
        Effect.fail(failure)
      )
    )
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.fork(Effect.retry(attempt, RetryPolicy.toSchedule(policy)).pipe(Effect.flip))
    yield* TestClock.adjust(Duration.days(365))
    yield* Fiber.join(fiber)
    const sent = (yield* Ref.get(times)).map((at) => at - start)
    return { attempts: sent.length, waits: sent.slice(1).map((at, i) => at - sent[i]!) }
  })

describe("RetryPolicy.make", () => {
  it("applies the documented defaults", () => {
    const policy = RetryPolicy.make()
    expect(policy.maxAttempts).toBe(3)
    expect(policy.backoff).toMatchObject({ _tag: "Exponential", factor: 2 })
    expect(Duration.toMillis(policy.backoff.base)).toBe(500)
    expect(Duration.toMillis(policy.maxDelay)).toBe(30_000)
    expect(policy.jitter).toBe("equal")
    expect(policy.retryAfter).toBe("respect")
    expect(policy.whenRetryAfterExceedsMaxDelay).toBe("wait-max-delay")
    expect(policy.retryNonIdempotent).toBe(false)
    expect(Duration.isFinite(policy.maxElapsed)).toBe(false)
    expect(Duration.toMillis(policy.attemptTimeout)).toBe(10_000)
    expect([408, 429, 500, 502, 503, 504].every(policy.isTransientStatus)).toBe(true)
    expect([400, 401, 403, 404, 409, 413, 501, 505].some(policy.isTransientStatus)).toBe(false)
  })

  const bad: ReadonlyArray<readonly [string, RetryPolicy.Options, string]> = [
    ["maxAttempts 0", { maxAttempts: 0 }, "maxAttempts"],
    ["maxAttempts 2.5", { maxAttempts: 2.5 }, "maxAttempts"],
    ["maxAttempts NaN", { maxAttempts: Number.NaN }, "maxAttempts"],
    ["maxAttempts Infinity", { maxAttempts: Number.POSITIVE_INFINITY }, "maxAttempts"],
    ["negative base", { backoff: RetryPolicy.linear(-1) }, "backoff.base"],
    ["negative base string", { backoff: RetryPolicy.constant("-5 millis") }, "backoff.base"],
    ["infinite base", { backoff: RetryPolicy.linear(Duration.infinity) }, "backoff.base"],
    ["unparseable base", { backoff: RetryPolicy.linear("soon" as Duration.DurationInput) }, "backoff.base"],
    ["factor below 1", { backoff: RetryPolicy.exponential(100, 0.5) }, "backoff.factor"],
    ["factor NaN", { backoff: RetryPolicy.exponential(100, Number.NaN) }, "backoff.factor"],
    ["negative maxDelay", { maxDelay: -1 }, "maxDelay"],
    ["NaN maxDelay", { maxDelay: Number.NaN }, "maxDelay"],
    ["infinite maxDelay", { maxDelay: Duration.infinity }, "maxDelay"],
    ["zero attemptTimeout", { attemptTimeout: 0 }, "attemptTimeout"],
    ["negative maxElapsed", { maxElapsed: "-1 seconds" }, "maxElapsed"]
  ]
  for (const [name, options, option] of bad) {
    it(`throws InvalidRetryPolicy naming "${option}" for ${name}`, () => {
      let thrown: unknown
      try {
        RetryPolicy.make(options)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(RetryPolicy.InvalidRetryPolicy)
      expect(thrown).toMatchObject({ _tag: "InvalidRetryPolicy", option })
      expect(String((thrown as Error).message)).toContain(option)
    })
  }

  it('accepts "infinity" (any case) where an option may be infinite, and rejects it where not', () => {
    expect(Duration.isFinite(RetryPolicy.make({ attemptTimeout: "infinity" }).attemptTimeout)).toBe(false)
    expect(Duration.isFinite(RetryPolicy.make({ maxElapsed: Duration.infinity }).maxElapsed)).toBe(false)
    const untyped = (options: object) => RetryPolicy.validate(options)
    expect(Duration.isFinite(Either.getOrThrow(untyped({ maxElapsed: "Infinity" })).maxElapsed)).toBe(false)
    expect(untyped({ maxDelay: "infinity" })).toMatchObject(Either.left({ option: "maxDelay" }))
  })

  it("rejects unknown choices and option names from untyped callers", () => {
    const untyped = (options: object) => RetryPolicy.validate(options)
    expect(untyped({ jitter: "random" })).toMatchObject(Either.left({ option: "jitter" }))
    expect(untyped({ retryAfter: "maybe" })).toMatchObject(Either.left({ option: "retryAfter" }))
    expect(untyped({ whenRetryAfterExceedsMaxDelay: "wait" })).toMatchObject(
      Either.left({ option: "whenRetryAfterExceedsMaxDelay" })
    )
    expect(untyped({ maxAtempts: 5 })).toMatchObject(Either.left({ option: "maxAtempts" }))
    expect(untyped({ backoff: { _tag: "Fibonacci", base: 1 } })).toMatchObject(Either.left({ option: "backoff" }))
    expect(untyped({ isTransientStatus: true })).toMatchObject(Either.left({ option: "isTransientStatus" }))
    expect(untyped({ retryNonIdempotent: "yes" })).toMatchObject(Either.left({ option: "retryNonIdempotent" }))
  })

  it("explains the bad value in the message", () => {
    const result = RetryPolicy.validate({ maxAttempts: 0 })
    expect(Either.isLeft(result) && result.left.message).toBe(
      'Invalid retry policy option "maxAttempts": must be a whole number of at least 1 (it counts the first attempt) (got 0)'
    )
  })
})

describe("RetryPolicy.make: values named as given, nulls, the options record, lower bounds", () => {
  // As options arrive from untyped code: a JSON config, JavaScript callers.
  const untyped = (options: object) => RetryPolicy.validate(options)
  const fromJson = (text: string) => RetryPolicy.validate(JSON.parse(text))
  const messageOf = (result: Either.Either<RetryPolicy.RetryPolicy, RetryPolicy.InvalidRetryPolicy>) =>
    Either.isLeft(result) ? result.left.message : "valid"

  const named: ReadonlyArray<readonly [object, string]> = [
    [{ maxAttempts: Number.NaN }, 'Invalid retry policy option "maxAttempts": is not a number (got NaN)'],
    [
      { maxAttempts: Number.POSITIVE_INFINITY },
      'Invalid retry policy option "maxAttempts": must be a whole number of at least 1 (it counts the first attempt) (got Infinity)'
    ],
    [{ maxDelay: Number.NaN }, 'Invalid retry policy option "maxDelay": is not a duration (got NaN)'],
    [{ maxDelay: Number.POSITIVE_INFINITY }, 'Invalid retry policy option "maxDelay": must be finite (got Infinity)'],
    [
      { maxDelay: Number.NEGATIVE_INFINITY },
      'Invalid retry policy option "maxDelay": must not be negative (got -Infinity)'
    ],
    [
      { attemptTimeout: [Number.NaN, 0] },
      'Invalid retry policy option "attemptTimeout": is not a duration (got [NaN, 0])'
    ],
    [{ maxElapsed: "soon" }, 'Invalid retry policy option "maxElapsed": is not a duration (got "soon")'],
    [
      { backoff: RetryPolicy.exponential(100, Number.NaN) },
      'Invalid retry policy option "backoff.factor": is not a number (got NaN)'
    ],
    [
      { backoff: { _tag: "Linear", base: Number.NaN } },
      'Invalid retry policy option "backoff.base": is not a duration (got NaN)'
    ],
    [{ backoff: { factor: Number.NaN } }, "(got { factor: NaN })"],
    [{ maxAttempts: BigInt(10) }, "(got 10n)"],
    [{ jitter: Symbol("fast") }, "(got Symbol(fast))"],
    [{ retryNonIdempotent: function always() {} }, "(got the function always)"],
    [{ retryNonIdempotent: () => true }, "(got the function retryNonIdempotent)"],
    [{ isTransientStatus: [500, 503] }, "(got [500, 503])"],
    [{ retryAfter: undefined, jitter: new Map() }, "(got an instance of Map)"]
  ]
  for (const [options, expected] of named) {
    it(`names the value as given: ${expected}`, () => {
      expect(messageOf(untyped(options))).toContain(expected)
    })
  }

  it("never says NaN is negative", () => {
    for (const options of [{ maxAttempts: Number.NaN }, { maxDelay: Number.NaN }, { maxElapsed: [1, Number.NaN] }]) {
      expect(messageOf(untyped(options))).not.toContain("negative")
    }
  })

  it("keeps the message short for a large value", () => {
    const message = messageOf(untyped({ isTransientStatus: Array.from({ length: 1000 }, (_, i) => `status ${i}`) }))
    expect(message.length).toBeLessThan(320)
    expect(message).toContain('(got ["status 0", "status 1"')
  })

  it("null is an error for every option, never the default", () => {
    const names = Object.keys(RetryPolicy.defaults)
    expect(names).toContain("maxAttempts")
    for (const option of names) {
      const result = fromJson(`{ "${option}": null }`)
      expect(result).toMatchObject(Either.left({ option, reason: "must not be null: omit the option for its default" }))
    }
    // Only undefined, or leaving the option out, means the default.
    expect(Either.isRight(untyped({ maxAttempts: undefined }))).toBe(true)
    expect(fromJson("null")).toMatchObject(Either.left({ option: "options" }))
  })

  it("the options must be a plain object: an array, a Map, a Date, a class instance are errors", () => {
    class Settings {
      readonly maxAttempts = 5
    }
    for (const options of [[], [5], new Map([["maxAttempts", 5]]), new Date(0), new Settings(), new Set()]) {
      const result = untyped(options)
      expect(result).toMatchObject(Either.left({ option: "options" }))
      expect(messageOf(result)).toContain("must be a plain object")
    }
    expect(messageOf(untyped(new Settings()))).toContain("(got an instance of Settings)")
    expect(messageOf(untyped(new Date(0)))).toContain("(got a Date (1970-01-01T00:00:00.000Z))")
    const bare: { maxAttempts?: number } = Object.create(null)
    bare.maxAttempts = 5
    expect(Either.getOrThrow(untyped(bare)).maxAttempts).toBe(5)
    expect(Either.getOrThrow(untyped(RetryPolicy.make({ maxAttempts: 4 }))).maxAttempts).toBe(4)
  })

  it("maxDelay 0 is an error that says how to retry without waiting", () => {
    for (const maxDelay of [0, "0 millis", Duration.zero]) {
      const result = untyped({ maxDelay })
      expect(result).toMatchObject(Either.left({ option: "maxDelay" }))
      expect(messageOf(result)).toContain("must be greater than zero")
      expect(messageOf(result)).toContain("RetryPolicy.constant(0)")
    }
  })

  it.effect(
    "retries without waiting: backoff constant(0), with retryAfter ignore to disregard the server's delay",
    () =>
      Effect.gen(function* () {
        const failure = transient(503, Option.some(Duration.seconds(5)))
        const atOnce = RetryPolicy.make({ maxAttempts: 3, backoff: RetryPolicy.constant(0), retryAfter: "ignore" })
        expect(yield* drive(atOnce, failure)).toEqual({ attempts: 3, waits: [0, 0] })
        // Respected, Retry-After still sets the wait; maxDelay still caps it.
        const respecting = RetryPolicy.make({ maxAttempts: 3, backoff: RetryPolicy.constant(0), maxDelay: "2 seconds" })
        expect(yield* drive(respecting, failure)).toEqual({ attempts: 3, waits: [2000, 2000] })
      })
  )

  it("a positive limit or cap below 1 millisecond is an error; maxElapsed and backoff.base may be that small", () => {
    for (const option of ["attemptTimeout", "totalTimeout", "maxDelay"]) {
      for (const value of ["1 nanos", "999999 nanos", "0.5 millis", BigInt(1)]) {
        const result = untyped({ [option]: value })
        expect(result).toMatchObject(Either.left({ option }))
        expect(messageOf(result)).toContain("must be at least 1 millisecond")
      }
      expect(Either.isRight(untyped({ [option]: "1 millis" }))).toBe(true)
    }
    expect(Either.isRight(untyped({ maxElapsed: "1 nanos" }))).toBe(true)
    expect(Either.isRight(untyped({ backoff: RetryPolicy.constant("1 nanos") }))).toBe(true)
  })

  describe("an isTransientStatus that throws", () => {
    const boom = new Error("status table not loaded")
    const throwing = RetryPolicy.make({
      isTransientStatus: (status) => {
        if (status === 503) throw boom
        return false
      }
    })

    it("throws an error naming the option and the status, with the thrown value as cause", () => {
      let thrown: unknown
      try {
        throwing.isTransientStatus(503)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(Error)
      expect(thrown).toMatchObject({
        _tag: "IsTransientStatusError",
        status: 503,
        cause: boom,
        message: 'Retry policy option "isTransientStatus" threw for status 503: status table not loaded'
      })
      expect(throwing.isTransientStatus(500)).toBe(false)
    })

    it.effect("the schedule dies with that defect: no retry, no typed failure", () =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(Effect.retry(Effect.fail(transient(503)), RetryPolicy.toSchedule(throwing)))
        assert(Exit.isFailure(exit))
        expect(Cause.failureOption(exit.cause)).toEqual(Option.none())
        expect(Option.getOrUndefined(Cause.dieOption(exit.cause))).toMatchObject({
          _tag: "IsTransientStatusError",
          status: 503,
          cause: boom
        })
      })
    )

    it("a thrown non-Error is named as given", () => {
      const policy = RetryPolicy.make({
        isTransientStatus: () => {
          throw "no table"
        }
      })
      expect(() => policy.isTransientStatus(429)).toThrow(
        'Retry policy option "isTransientStatus" threw for status 429: "no table"'
      )
    })

    it("only true means transient", () => {
      const truthy = Either.getOrThrow(untyped({ isTransientStatus: () => 1 }))
      expect(truthy.isTransientStatus(503)).toBe(false)
    })
  })
})

describe("RetryPolicy.toSchedule: backoff shapes", () => {
  it.effect("linear waits base, 2·base, 3·base", () =>
    Effect.gen(function* () {
      const run = yield* drive(
        RetryPolicy.make({ maxAttempts: 4, jitter: "none", backoff: RetryPolicy.linear(500) }),
        transient()
      )
      expect(run).toEqual({ attempts: 4, waits: [500, 1000, 1500] })
    })
  )

  it.effect("exponential waits base·factor^n and is capped by maxDelay", () =>
    Effect.gen(function* () {
      const run = yield* drive(
        RetryPolicy.make({ maxAttempts: 6, jitter: "none", backoff: RetryPolicy.exponential(100, 3), maxDelay: 2000 }),
        transient()
      )
      expect(run).toEqual({ attempts: 6, waits: [100, 300, 900, 2000, 2000] })
    })
  )

  it.effect("constant waits the same every time; maxAttempts 1 never retries", () =>
    Effect.gen(function* () {
      const constant = yield* drive(
        RetryPolicy.make({ maxAttempts: 3, jitter: "none", backoff: RetryPolicy.constant(250) }),
        transient()
      )
      expect(constant).toEqual({ attempts: 3, waits: [250, 250] })
      const once = yield* drive(RetryPolicy.make({ maxAttempts: 1 }), transient())
      expect(once).toEqual({ attempts: 1, waits: [] })
    })
  )

  it.effect("an exponential backoff with a huge attempt count never produces NaN or exceeds the cap", () =>
    Effect.gen(function* () {
      const run = yield* drive(
        RetryPolicy.make({ maxAttempts: 2000, jitter: "none", backoff: RetryPolicy.exponential(0, 10), maxDelay: 5 }),
        transient()
      )
      expect(run.attempts).toBe(2000)
      expect(run.waits.every((wait) => wait === 0)).toBe(true)
    })
  )
})

describe("RetryPolicy.toSchedule: a Retry-After too large to represent", () => {
  // 999999999 s (31 years) is representable; 20 nines are not, and RFC 9111 1.2.2 reads them
  // as the largest delay there is. Both are far over the cap and must be treated alike.
  for (const value of ["999999999", "99999999999999999999"]) {
    it.effect(`Retry-After: ${value} is over the cap: waits maxDelay, or gives up at once`, () =>
      Effect.gen(function* () {
        const failure = transient(503, RetryAfter.parse(value, 0))
        const waiting = yield* drive(RetryPolicy.make({ maxAttempts: 3, maxDelay: "2 seconds" }), failure)
        expect(waiting).toEqual({ attempts: 3, waits: [2000, 2000] })
        const giveUp = RetryPolicy.make({ maxDelay: "2 seconds", whenRetryAfterExceedsMaxDelay: "give-up" })
        expect(yield* drive(giveUp, failure)).toEqual({ attempts: 1, waits: [] })
      })
    )
  }
})

describe("RetryPolicy.toSchedule: jitter formulas with a fixed Random", () => {
  const base = { maxAttempts: 4, backoff: RetryPolicy.exponential(1000), maxDelay: 3000 } as const
  const withRandom = (values: [number, ...Array<number>]) => Effect.withRandom(Random.fixed(values))

  it.effect("full: random(0, min(cap, v)) at both ends", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.make({ ...base, jitter: "full" })
      expect(yield* drive(policy, transient()).pipe(withRandom([0]))).toMatchObject({ waits: [0, 0, 0] })
      expect(yield* drive(policy, transient()).pipe(withRandom([1]))).toMatchObject({ waits: [1000, 2000, 3000] })
    })
  )

  it.effect("equal: v/2 + random(0, v/2) at both ends", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.make({ ...base, jitter: "equal" })
      expect(yield* drive(policy, transient()).pipe(withRandom([0]))).toMatchObject({ waits: [500, 1000, 1500] })
      expect(yield* drive(policy, transient()).pipe(withRandom([1]))).toMatchObject({ waits: [1000, 2000, 3000] })
    })
  )

  it.effect("decorrelated: min(cap, random(base, 3·previous))", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.make({ ...base, jitter: "decorrelated" })
      expect(yield* drive(policy, transient()).pipe(withRandom([0]))).toMatchObject({ waits: [1000, 1000, 1000] })
      // 3·1000 = 3000, then 3·3000 capped at 3000.
      expect(yield* drive(policy, transient()).pipe(withRandom([1]))).toMatchObject({ waits: [3000, 3000, 3000] })
      expect(yield* drive(policy, transient()).pipe(withRandom([0.5]))).toMatchObject({ waits: [2000, 3000, 3000] })
    })
  )
})

describe("RetryPolicy.toSchedule: properties over random policies", () => {
  const policyArbitrary = fc.record({
    maxAttempts: fc.integer({ min: 1, max: 8 }),
    jitter: fc.constantFrom<RetryPolicy.Jitter>("none", "full", "equal", "decorrelated"),
    backoff: fc.oneof(
      fc.integer({ min: 0, max: 5000 }).map(RetryPolicy.linear),
      fc.integer({ min: 0, max: 5000 }).map(RetryPolicy.constant),
      fc
        .tuple(fc.integer({ min: 0, max: 5000 }), fc.double({ min: 1, max: 10, noNaN: true }))
        .map(([b, f]) => RetryPolicy.exponential(b, f))
    ),
    maxDelay: fc.integer({ min: 1, max: 20_000 }),
    retryAfter: fc.constantFrom<RetryPolicy.RetryAfterMode>("respect", "ignore"),
    whenRetryAfterExceedsMaxDelay: fc.constantFrom<RetryPolicy.OverCapMode>("wait-max-delay", "give-up")
  })
  const failureArbitrary = fc.oneof(
    fc
      .tuple(fc.constantFrom(408, 429, 500, 502, 503, 504), fc.option(fc.integer({ min: 0, max: 60_000 })))
      .map(([status, delay]) => transient(status, Option.map(Option.fromNullable(delay), Duration.millis))),
    fc.constant(new HttpFailure.ConnectionError({ request, attempt: 1, reason: "Transport", cause: "reset" }))
  )
  const permanentArbitrary = fc.oneof(
    fc
      .integer({ min: 300, max: 599 })
      .filter((status) => !RetryPolicy.isDefaultTransientStatus(status))
      .map(
        (status) => new HttpFailure.PermanentStatus({ request, attempt: 1, status, headers: Headers.empty, body: "" })
      ),
    fc.constant(new HttpFailure.DecodeError({ request, attempt: 1, status: 200, cause: "bad json" })),
    fc.constant(new HttpFailure.ConnectionError({ request, attempt: 1, reason: "InvalidRequest", cause: "bad url" }))
  )

  it.effect.prop(
    "waits never exceed maxDelay and attempts never exceed maxAttempts",
    [policyArbitrary, failureArbitrary, fc.integer()],
    ([options, failure, seed]) =>
      Effect.gen(function* () {
        const policy = RetryPolicy.make(options)
        const run = yield* drive(policy, failure).pipe(Effect.withRandom(Random.make(seed)))
        expect(run.attempts).toBeLessThanOrEqual(options.maxAttempts)
        expect(run.attempts).toBeGreaterThanOrEqual(1)
        for (const wait of run.waits) {
          expect(wait).toBeGreaterThanOrEqual(0)
          expect(wait).toBeLessThanOrEqual(options.maxDelay)
        }
      }),
    // 100 random policies take about 2 s alone, several times that on busy cores.
    { fastCheck: { numRuns: 100 } }
  )

  it.effect.prop(
    "permanent failures are never retried",
    [policyArbitrary, permanentArbitrary],
    ([options, failure]) =>
      Effect.gen(function* () {
        const run = yield* drive(RetryPolicy.make(options), failure)
        expect(run.attempts).toBe(1)
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect("each schedule run starts afresh: the policy holds no state between calls", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.make({ maxAttempts: 3, jitter: "none", backoff: RetryPolicy.linear(10) })
      const first = yield* drive(policy, transient())
      const second = yield* drive(policy, transient())
      expect(second).toEqual(first)
      expect(Schedule.isSchedule(RetryPolicy.toSchedule(policy))).toBe(true)
    })
  )
})
