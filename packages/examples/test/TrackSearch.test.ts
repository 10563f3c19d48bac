import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, TestClock } from "effect"
// The library's scripted transport: answers from a script, records when each request was sent.
import { Testing } from "effect-http-resilience"
import * as TrackSearch from "../src/TrackSearch.js"

const found = JSON.stringify({
  tracks: {
    total: 1,
    items: [
      {
        id: "t1",
        name: "One More Time",
        artists: [{ name: "Daft Punk" }],
        album: { name: "Discovery" },
        duration_ms: 320000
      }
    ]
  }
})

const searchWith = (script: Testing.Script, query: string) =>
  Effect.gen(function* () {
    const scripted = yield* Testing.scriptedHttpClient(script)
    const live = TrackSearch.layerEchoPlay({ baseUrl: "http://search.test" }).pipe(Layer.provide(scripted.layer))
    const fiber = yield* Effect.fork(
      Effect.exit(
        Effect.flatMap(TrackSearch.TrackSearch, (service) => service.search(query)).pipe(Effect.provide(live))
      )
    )
    yield* TestClock.adjust("1 minute")
    const exit = yield* Fiber.join(fiber)
    const requests = yield* scripted.requests
    return { exit, requests, times: requests.map((request) => request.sentAtMillis) }
  })

describe("TrackSearch (EchoPlay policy)", () => {
  it.effect("retries 503 and 429 at 0, 500 and 1500 ms and decodes the tracks", () =>
    Effect.gen(function* () {
      const { exit, requests, times } = yield* searchWith(
        [{ status: 503 }, { status: 429 }, { status: 200, body: found }],
        "daft punk"
      )
      expect(Exit.isSuccess(exit) && exit.value.map((track) => track.name)).toEqual(["One More Time"])
      expect(times).toEqual([0, 500, 1500])
      const url = new URL(requests[0]!.url)
      expect(url.pathname).toBe("/v1/search")
      expect([...url.searchParams]).toEqual([
        ["q", "daft punk"],
        ["type", "track"]
      ])
    })
  )

  it.effect("gives up after 3 attempts with the last 5xx", () =>
    Effect.gen(function* () {
      const { exit, times } = yield* searchWith([{ status: 502 }], "x")
      expect(exit).toMatchObject(
        Exit.fail(expect.objectContaining({ _tag: "TransientStatus", status: 502, attempt: 3 }))
      )
      expect(times).toEqual([0, 500, 1500])
    })
  )

  it.effect("a 401 is permanent: one attempt", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* searchWith([{ status: 401 }], "x")
      expect(exit).toMatchObject(Exit.fail(expect.objectContaining({ _tag: "PermanentStatus", status: 401 })))
      expect(requests).toHaveLength(1)
    })
  )

  it.effect("invalid JSON in a 200 is a DecodeError, never retried", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* searchWith([{ status: 200, body: '{"tracks": [' }], "x")
      expect(exit).toMatchObject(Exit.fail(expect.objectContaining({ _tag: "DecodeError", attempt: 1 })))
      expect(requests).toHaveLength(1)
    })
  )

  it.effect("a connection failure is retried", () =>
    Effect.gen(function* () {
      const { exit, times } = yield* searchWith([{ transportError: "ECONNREFUSED" }, { status: 200, body: found }], "x")
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(times).toEqual([0, 500])
    })
  )

  it.effect("a blank query fails before any request", () =>
    Effect.gen(function* () {
      const { exit, requests } = yield* searchWith([{ status: 200, body: found }], "   ")
      expect(exit).toMatchObject(Exit.fail(expect.objectContaining({ _tag: "BlankQuery" })))
      expect(requests).toHaveLength(0)
    })
  )
})
