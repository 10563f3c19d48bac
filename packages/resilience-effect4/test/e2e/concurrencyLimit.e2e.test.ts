// @generated from templates/test/e2e/concurrencyLimit.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The per-origin concurrency limit (issue #34) over real loopback sockets, through undici, against
 * the chaos server's capacity route at a capacity of 4: with `concurrencyLimit: ConcurrencyLimit.fixed(4)` the server
 * never holds more than 4 of 16 calls at once and sheds none; without it, it holds more. The
 * server's own counts are read, never a time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as ConcurrencyLimit from "../../src/ConcurrencyLimit.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import type * as RetryPolicy from "../../src/RetryPolicy.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const capacity = 4
const calls = 16

/** The server at capacity 4 and its counts cleared, then 16 GETs at once; their statuses. */
const burst = (options: RetryPolicy.Options, baseMillis: number) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => chaos.reset())
    yield* Effect.promise(() => fetch(`${chaos.url}/__capacity?limit=${capacity}`, { method: "POST" }))
    const client = yield* ResilientHttpClient.make({ maxAttempts: 1, ...options })
    const url = `${chaos.url}/api/chaos/capacity?base=${baseMillis}&shedAt=2`
    const statuses = yield* Effect.forEach(
      Array.from({ length: calls }, () => url),
      (target) =>
        Effect.scoped(Effect.map(client.get(target), (response) => response.status)).pipe(
          Effect.catch((failure) => Effect.succeed(failure._tag))
        ),
      { concurrency: "unbounded" }
    )
    const stats = yield* Effect.promise(() => chaos.stats())
    return { statuses, capacity: stats.capacity }
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

describe("concurrency limit over real sockets", () => {
  it.live("limit 4 against a server of capacity 4: never more than 4 held, none shed", () =>
    Effect.gen(function* () {
      const { statuses, capacity: server } = yield* burst(
        { concurrencyLimit: ConcurrencyLimit.fixed(capacity, { queue: calls }) },
        50
      )
      expect(statuses).toEqual(Array.from({ length: calls }, () => 200))
      expect(server).toMatchObject({ requests: calls, served: calls, overloaded: 0 })
      expect(server.peakInFlight).toBeLessThanOrEqual(capacity)
    })
  )

  it.live("without the limit the same burst goes past the server's capacity", () =>
    Effect.gen(function* () {
      // Each request held 1 s at least: however busy the machine, the 16 overlap.
      const { capacity: server } = yield* burst({}, 1000)
      expect(server.requests).toBe(calls)
      expect(server.peakInFlight).toBeGreaterThan(capacity)
      expect(server.overloaded).toBeGreaterThan(0)
    })
  )
})
