import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { get, json } from "./support/client.js"

const basic = (userAndPassword: string) => ({
  authorization: `Basic ${Buffer.from(userAndPassword, "utf8").toString("base64")}`
})

layer(ChaosServer.layer())("/api/basic-auth/:user/:password", (it) => {
  it.effect("answers 200 with {authenticated, user} to the user and password of its path", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/basic-auth/u/p", { headers: basic("u:p") })
      expect(response.status).toBe(200)
      expect(json(response)).toEqual({ authenticated: true, user: "u" })
    })
  )

  it.effect("answers 401 with WWW-Authenticate: Basic without the header, or to another user or password", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const headers of [{}, basic("u:wrong"), basic("v:p"), { authorization: "Bearer u:p" }, basic("up")]) {
        const response = yield* get(server, "/api/basic-auth/u/p", { headers })
        expect(response.status).toBe(401)
        expect(response.headers["www-authenticate"]).toBe('Basic realm="chaos-server", charset="UTF-8"')
        expect(json(response)).toMatchObject({ authenticated: false })
      }
    })
  )

  it.effect(
    "compares the percent-decoded path: a password may hold @ and colons; the user ends at the first colon",
    () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const atAndColon = yield* get(server, "/api/basic-auth/u/p%40ss%3Aw", { headers: basic("u:p@ss:w") })
        expect(atAndColon.status).toBe(200)
        const unicode = yield* get(server, "/api/basic-auth/J%C3%BCrgen/p", { headers: basic("Jürgen:p") })
        expect(json(unicode)).toEqual({ authenticated: true, user: "Jürgen" })
        // RFC 7617 2: the header cannot carry a user with a colon, as httpbin reads it too.
        const colonInUser = yield* get(server, "/api/basic-auth/a%3Ab/p", { headers: basic("a:b:p") })
        expect(colonInUser.status).toBe(401)
      })
  )
})
