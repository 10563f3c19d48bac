import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { request } from "./support/client.js"

layer(ChaosServer.layer())("HEAD", (it) => {
  it.effect("on a streaming endpoint answers its headers and produces no body", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const large = yield* request(`${server.url}/api/chaos/large-json?bytes=1000000`, { method: "HEAD" })
      expect(large.status).toBe(200)
      expect(large.headers["content-length"]).toBe("1000000")
      expect(large.body).toBe("")
      const slow = yield* request(`${server.url}/api/chaos/slow-body?chunks=1000&interval=60`, { method: "HEAD" })
      expect(slow.status).toBe(200)
      expect(slow.body).toBe("")
      expect((yield* server.stats).responses).toEqual({ streaming: 0, bodyBytesStreamed: 0 })
    })
  )
})
