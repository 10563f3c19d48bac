import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import * as ChaosServer from "../src/ChaosServer.js"
import { awaitStats, get, json, withServer } from "./support/client.js"

const mebibyte = 1024 * 1024

layer(ChaosServer.layer())("GET /api/chaos/large-json", (it) => {
  it.effect("answers a valid JSON array of exactly 1 MiB by default, with its Content-Length", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/large-json")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.headers["content-length"]).toBe(String(mebibyte))
      expect(response.body).toHaveLength(mebibyte)
      const array = json(response)
      expect(Array.isArray(array) && array.every((element) => element === 0)).toBe(true)
    })
  )

  it.effect("with length=false is chunked, without Content-Length, and just as exact", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/large-json?bytes=200000&length=false")
      expect(response.headers["content-length"]).toBeUndefined()
      expect(response.headers["transfer-encoding"]).toBe("chunked")
      expect(response.body).toHaveLength(200_000)
      expect(Array.isArray(json(response))).toBe(true)
    })
  )

  // Both parities, and sizes either side of the 64 KiB chunk boundaries.
  const sizes = [2, 3, 4, 5, 6, 65_536, 65_537, 65_538, 65_539, 131_073, 131_074]
  for (const bytes of sizes) {
    it.effect(`bytes=${bytes} is valid JSON of exactly that size`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const response = yield* get(server, `/api/chaos/large-json?bytes=${bytes}`)
        expect(response.body).toHaveLength(bytes)
        expect(response.headers["content-length"]).toBe(String(bytes))
        expect(Array.isArray(json(response))).toBe(true)
      })
    )
  }

  it.effect("small sizes are the shortest arrays", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const bodies = yield* Effect.forEach([2, 3, 4, 5], (bytes) =>
        Effect.map(get(server, `/api/chaos/large-json?bytes=${bytes}`), (response) => response.body)
      )
      expect(bodies).toEqual(["[]", "[0]", "[0 ]", "[0,0]"])
    })
  )

  for (const query of ["bytes=1", "bytes=0", "bytes=268435457", "bytes=1e6", "bytes=big", "length=yes", "length="]) {
    it.effect(`?${query} is refused with 400`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const response = yield* get(server, `/api/chaos/large-json?${query}`)
        expect(response.status).toBe(400)
        expect(json(response)).toEqual({ error: expect.any(String) })
      })
    )
  }
})

/** Receives the response head of `path`, reads no body, and destroys the request when the scope closes. */
const openWithoutReading = (server: ChaosServer.ChaosServer["Type"], path: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly request: Http.ClientRequest; readonly status: number | undefined }>((resume) => {
      const request = Http.request(`${server.url}${path}`, { agent: false })
      request.on("response", (incoming) => {
        incoming.pause()
        resume(Effect.succeed({ request, status: incoming.statusCode }))
      })
      request.on("error", () => {})
      request.end()
    }),
    ({ request }) => Effect.sync(() => request.destroy())
  )

describe("responses.bodyBytesStreamed", () => {
  it.live("counts every byte of a body read to its end, and /__reset clears the count", () =>
    withServer((server) =>
      Effect.gen(function* () {
        yield* get(server, "/api/chaos/large-json?bytes=300000&length=false")
        yield* get(server, "/api/chaos/slow-body?chunks=3&interval=0")
        const slowBody = '[{"chunk":1,"of":3},{"chunk":2,"of":3},{"chunk":3,"of":3}]'
        expect((yield* server.stats).responses).toEqual({
          streaming: 0,
          bodyBytesStreamed: 300_000 + slowBody.length
        })
        yield* server.reset
        expect((yield* server.stats).responses.bodyBytesStreamed).toBe(0)
      })
    )
  )

  it.live("stops, within the socket buffers, when the client stops reading; leaving ends its stream", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const size = 128 * mebibyte
        yield* Effect.scoped(
          Effect.gen(function* () {
            const { status } = yield* openWithoutReading(server, `/api/chaos/large-json?bytes=${size}`)
            expect(status).toBe(200)
            // Time enough to send all of it, were it not held back by the unread socket.
            yield* Effect.sleep("300 millis")
            const { responses } = yield* server.stats
            expect(responses.streaming).toBe(1)
            expect(responses.bodyBytesStreamed).toBeGreaterThan(0)
            expect(responses.bodyBytesStreamed).toBeLessThan(size / 4)
          })
        )
        yield* awaitStats(
          server,
          (stats) => stats.responses.streaming === 0 && stats.connections.open === 0,
          "the abandoned large body's stream ending"
        )
      })
    )
  )
})

layer(ChaosServer.layer())("GET /api/chaos/slow-body?length=false", (it) => {
  it.effect("trickles the same JSON array chunked, without Content-Length", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/slow-body?chunks=3&interval=10&length=false")
      expect(response.headers["content-length"]).toBeUndefined()
      expect(response.headers["transfer-encoding"]).toBe("chunked")
      expect(json(response)).toEqual([
        { chunk: 1, of: 3 },
        { chunk: 2, of: 3 },
        { chunk: 3, of: 3 }
      ])
    })
  )

  it.effect("?length=no is refused with 400", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/slow-body?length=no")
      expect(response.status).toBe(400)
      expect(json(response)).toEqual({ error: expect.stringContaining("length") })
    })
  )
})

layer(ChaosServer.layer())("?status on the streamed bodies", (it) => {
  it.effect("large-json and slow-body stream the same body under the status asked", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const large = yield* get(server, "/api/chaos/large-json?bytes=200000&status=503")
      expect(large.status).toBe(503)
      expect(large.headers["content-length"]).toBe("200000")
      expect(large.body).toHaveLength(200_000)
      const slow = yield* get(server, "/api/chaos/slow-body?chunks=2&interval=0&status=429")
      expect(slow.status).toBe(429)
      expect(json(slow)).toEqual([
        { chunk: 1, of: 2 },
        { chunk: 2, of: 2 }
      ])
    })
  )

  for (const bad of ["204", "304", "199", "600", "abc"]) {
    it.effect(`?status=${bad} is refused with 400`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        for (const path of ["/api/chaos/large-json", "/api/chaos/slow-body"]) {
          const response = yield* get(server, `${path}?status=${bad}`)
          expect(response.status).toBe(400)
          expect(json(response)).toEqual({ error: expect.stringContaining("status") })
        }
      })
    )
  }
})

describe("GET /api/chaos/redirect-loop", () => {
  it.live("redirects to itself with the same query and an empty body", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const response = yield* get(server, "/api/chaos/redirect-loop?key=a%20b&n=1")
        expect(response.status).toBe(302)
        expect(response.headers.location).toBe("/api/chaos/redirect-loop?key=a+b&n=1")
        expect(response.body).toBe("")
        const bare = yield* get(server, "/api/chaos/redirect-loop")
        expect(bare.headers.location).toBe("/api/chaos/redirect-loop")
      })
    )
  )

  it.live("a client that follows redirects loops until its own limit, every request counted", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const failure = yield* Effect.flip(
          Effect.tryPromise(() => fetch(`${server.url}/api/chaos/redirect-loop`, { redirect: "follow" }))
        )
        expect(String(failure.cause)).toContain("fetch failed")
        // fetch follows 20 redirects: the first request and 20 more.
        const stats = yield* awaitStats(server, (stats) => stats.requests.inFlight === 0, "the loop ending")
        expect(stats.requests.byPath["/api/chaos/redirect-loop"]).toBe(21)
      })
    )
  )
})
