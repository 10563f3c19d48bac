import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { get, json, request } from "./support/client.js"

const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

layer(ChaosServer.layer())("GET /api/status/:code", (it) => {
  it.effect("answers 503 with a JSON description and Retry-After: 5", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/status/503")
      expect(response.status).toBe(503)
      expect(response.headers["retry-after"]).toBe("5")
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.headers["x-simulated"]).toBeUndefined()
      expect(json(response)).toEqual({
        status: 503,
        statusText: "Service Unavailable",
        category: "server-error",
        message: "Simulated 503 Service Unavailable"
      })
    })
  )

  it.effect("answers 429 with Retry-After: 5", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/status/429")
      expect(response.status).toBe(429)
      expect(response.headers["retry-after"]).toBe("5")
      expect(json(response)).toMatchObject({ status: 429, statusText: "Too Many Requests", category: "client-error" })
    })
  )

  it.effect("categorises each class of status and sends Retry-After only for 429 and 503", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const cases = [
        [200, "success", "OK"],
        [301, "redirection", "Moved Permanently"],
        [400, "client-error", "Bad Request"],
        [404, "client-error", "Not Found"],
        [500, "server-error", "Internal Server Error"],
        [502, "server-error", "Bad Gateway"]
      ] as const
      for (const [status, category, statusText] of cases) {
        const response = yield* get(server, `/api/status/${status}`)
        expect(response.status).toBe(status)
        expect(response.headers["retry-after"]).toBeUndefined()
        expect(json(response)).toMatchObject({ status, category, statusText })
      }
    })
  )

  it.effect("sends no body for 204 and 304", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const status of [204, 304]) {
        const response = yield* get(server, `/api/status/${status}`)
        expect(response.status).toBe(status)
        expect(response.body).toBe("")
      }
    })
  )

  it.effect("sets the Retry-After seconds with ?retryAfter=N, also on statuses that lack it by default", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      expect((yield* get(server, "/api/status/503?retryAfter=2")).headers["retry-after"]).toBe("2")
      expect((yield* get(server, "/api/status/429?retryAfter=0")).headers["retry-after"]).toBe("0")
      expect((yield* get(server, "/api/status/500?retryAfter=7")).headers["retry-after"]).toBe("7")
    })
  )

  it.effect("omits Retry-After with ?retryAfter=none", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/status/503?retryAfter=none")
      expect(response.status).toBe(503)
      expect(response.headers["retry-after"]).toBeUndefined()
    })
  )

  it.effect("sends an IMF-fixdate N seconds ahead with ?retryAfterDate=N, and in the past for a negative N", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const ahead = (yield* get(server, "/api/status/503?retryAfterDate=30")).headers["retry-after"] ?? ""
      expect(ahead).toMatch(imfFixdate)
      // The date has whole seconds, so it may be up to 1 s earlier than now + 30 s, and busy cores
      // may take a few more seconds to read it.
      const aheadSeconds = (Date.parse(ahead) - Date.now()) / 1000
      expect(aheadSeconds).toBeGreaterThan(20)
      expect(aheadSeconds).toBeLessThanOrEqual(30)

      const past = (yield* get(server, "/api/status/429?retryAfterDate=-60")).headers["retry-after"] ?? ""
      expect(past).toMatch(imfFixdate)
      expect(Date.parse(past)).toBeLessThan(Date.now() - 55_000)
    })
  )

  it.effect("answers any method and HEAD without a body", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const post = yield* request(`${server.url}/api/status/503`, { method: "POST", body: '{"order":1}' })
      expect(post.status).toBe(503)
      const head = yield* request(`${server.url}/api/status/503`, { method: "HEAD" })
      expect(head.status).toBe(503)
      expect(head.body).toBe("")
    })
  )

  describe("bad input", () => {
    const badRequests = [
      ["/api/status/abc", "not a number"],
      ["/api/status/5030", "four digits"],
      ["/api/status/100", "1xx is not allowed"],
      ["/api/status/199", "1xx is not allowed"],
      ["/api/status/600", "out of range"],
      ["/api/status/299", "not a known status"],
      ["/api/status/-50", "negative"],
      ["/api/status/503?retryAfter=-1", "negative retryAfter"],
      ["/api/status/503?retryAfter=1.5", "fractional retryAfter"],
      ["/api/status/503?retryAfter=soon", "non-numeric retryAfter"],
      ["/api/status/503?retryAfter=", "empty retryAfter"],
      ["/api/status/503?retryAfter=86401", "retryAfter over a day"],
      ["/api/status/503?retryAfterDate=tomorrow", "non-numeric retryAfterDate"],
      ["/api/status/503?retryAfter=5&retryAfterDate=5", "both Retry-After forms"]
    ] as const
    for (const [path, why] of badRequests) {
      it.effect(`answers 400 with an explanation for ${path} (${why})`, () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          const response = yield* get(server, path)
          expect(response.status).toBe(400)
          expect(response.headers["content-type"]).toBe("application/json")
          const body = json(response)
          expect(body).toEqual({ error: expect.any(String) })
          expect(body).not.toEqual({ error: "" })
        })
      )
    }
  })
})
