import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ChaosServer from "../src/ChaosServer.js"
import { get, json } from "./support/client.js"

const Track = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  artists: Schema.Array(Schema.Struct({ name: Schema.String })),
  album: Schema.Struct({ name: Schema.String }),
  duration_ms: Schema.Number,
  popularity: Schema.Number
})
const TrackSearchResult = Schema.Struct({
  tracks: Schema.Struct({ items: Schema.Array(Track), total: Schema.Number })
})

layer(ChaosServer.layer())("sample data", (it) => {
  it.effect("GET /api/Products/:id answers a product", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/Products/1")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(json(response)).toEqual({ id: 1, name: "Product 1", price: 8.31 })
      expect(json(yield* get(server, "/api/Products/42"))).toEqual({
        id: 42,
        name: "Product 42",
        price: expect.any(Number)
      })
    })
  )

  it.effect("GET /api/Todos/:id answers a todo", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      expect(json(yield* get(server, "/api/Todos/1"))).toEqual({ id: 1, title: "Todo 1", completed: false })
      expect(json(yield* get(server, "/api/Todos/2"))).toEqual({ id: 2, title: "Todo 2", completed: true })
    })
  )

  it.effect("answers 400 for a malformed id and 404 for an id outside the catalogue", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const path of ["/api/Products/abc", "/api/Todos/-1", "/api/Products/1.5", "/api/Todos/1234567890"]) {
        const response = yield* get(server, path)
        expect(response.status, path).toBe(400)
        expect(json(response)).toEqual({ error: expect.stringContaining("id") })
      }
      for (const path of ["/api/Products/0", "/api/Todos/1000001"]) {
        const response = yield* get(server, path)
        expect(response.status, path).toBe(404)
        expect(json(response)).toEqual({ error: expect.stringContaining("not found") })
      }
    })
  )

  it.effect("GET /v1/search answers Spotify-like tracks matching q, the same for the same q", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/v1/search?q=daft%20punk&type=track")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      // Decoding checks the Spotify shape; extra or missing fields fail here.
      const result = Schema.decodeUnknownSync(TrackSearchResult, { onExcessProperty: "error" })(json(response))
      expect(result.tracks.total).toBe(3)
      expect(result.tracks.items).toHaveLength(3)
      for (const track of result.tracks.items) {
        expect(track).toEqual({
          id: expect.stringMatching(/^[0-9A-Za-z]{22}$/),
          name: expect.stringContaining("daft punk"),
          artists: [{ name: expect.any(String) }],
          album: { name: expect.any(String) },
          duration_ms: expect.any(Number),
          popularity: expect.any(Number)
        })
        expect(track.popularity).toBeGreaterThanOrEqual(0)
        expect(track.popularity).toBeLessThanOrEqual(100)
      }
      const again = yield* get(server, "/v1/search?q=daft%20punk&type=track")
      expect(again.body).toBe(response.body)
      const other = yield* get(server, "/v1/search?q=other&type=track")
      expect(other.body).not.toBe(response.body)
    })
  )

  it.effect("GET /v1/search requires q and type=track", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const cases = [
        ["/v1/search?type=track", "q"],
        ["/v1/search?q=&type=track", "q"],
        ["/v1/search?q=%20%20&type=track", "q"],
        [`/v1/search?q=${"x".repeat(201)}&type=track`, "q"],
        ["/v1/search?q=hello", "type"],
        ["/v1/search?q=hello&type=album", "type"]
      ] as const
      for (const [path, parameter] of cases) {
        const response = yield* get(server, path)
        expect(response.status, path).toBe(400)
        expect(json(response)).toEqual({ error: expect.stringContaining(parameter) })
      }
    })
  )

  it.effect("answers unknown paths with a JSON 404", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const path of ["/", "/nope", "/api/chaos", "/api/Products", "/api/status/503/extra", "/__nothing"]) {
        const response = yield* get(server, path)
        expect(response.status, path).toBe(404)
        expect(response.headers["content-type"]).toBe("application/json")
        expect(json(response)).toEqual({ error: expect.stringContaining("no route") })
      }
    })
  )

  it.effect("survives hostile request targets", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const path of ["/api/status/%", "/api/chaos/retry/%E0%A4%A", "//double/slash", "/api/status/503?%%%=&&=="]) {
        const response = yield* get(server, path)
        expect(response.status, path).toBeGreaterThanOrEqual(400)
        expect(response.status, path).toBeLessThan(600)
      }
      // The server still answers afterwards.
      expect((yield* get(server, "/api/status/200")).status).toBe(200)
    })
  )
})
