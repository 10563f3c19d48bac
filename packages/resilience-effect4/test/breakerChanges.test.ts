/**
 * A breaker's state-change stream: a subscriber that falls more than 1024 changes behind loses
 * the oldest, and sees the newer ones in order.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"

const origin = "http://api.test:80"

describe("CircuitBreaker changes", () => {
  it.effect("subscribe: a subscriber more than 1024 changes behind loses the oldest", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const breaker = yield* CircuitBreaker.make()
        const changes = yield* breaker.subscribe
        // 1100 changes (isolate, close, ...), then a last isolation once the stream is read.
        for (let round = 0; round < 550; round++) {
          yield* breaker.isolate(origin)
          yield* breaker.close(origin)
        }
        const collected = yield* Effect.forkChild(Stream.runCollect(Stream.take(changes, 1025)))
        for (let i = 0; i < 100; i++) yield* Effect.yieldNow
        yield* breaker.isolate(origin)
        const seen = yield* Fiber.join(collected)
        const isolation = { origin, from: "Closed", to: "Isolated", manual: true }
        // The 76 oldest were dropped: the 77th change (an isolation) is the first seen.
        expect(seen).toHaveLength(1025)
        expect(seen[0]).toEqual(isolation)
        expect(seen[1023]).toEqual({ origin, from: "Isolated", to: "Closed", manual: true })
        expect(seen[1024]).toEqual(isolation)
      })
    )
  )
})
