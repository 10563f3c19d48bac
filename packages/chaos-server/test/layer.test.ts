import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ChaosServer from "../src/ChaosServer.js"
import { ServeError } from "../src/index.js"
import { get } from "./support/client.js"
import { addressInUse, occupiedPort } from "./support/ports.js"

describe("ChaosServer.layer (Effect 3)", () => {
  it.live("serves while the layer lives and stops when it is released", () =>
    Effect.gen(function* () {
      const url = yield* Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        expect((yield* get(server, "/api/status/503")).status).toBe(503)
        expect((yield* server.stats).requests.total).toBe(1)
        return server.url
      }).pipe(Effect.provide(ChaosServer.layer()))
      const refused = yield* Effect.flip(get({ url }, "/api/status/200"))
      expect(refused.code).toBe("ECONNREFUSED")
    })
  )

  it.live("fails with a ServeError saying why, in the error channel, when the port is in use", () =>
    Effect.gen(function* () {
      const port = yield* occupiedPort
      const error = yield* Effect.flip(Layer.build(ChaosServer.layer({ port })))
      expect(error).toBeInstanceOf(ServeError)
      expect(error._tag).toBe("ServeError")
      expect(error.port).toBe(port)
      expect(error.code).toBe("EADDRINUSE")
      expect(error.message).toBe(addressInUse(port))
      // catchTag reaches it by its tag.
      const caught = yield* ChaosServer.make({ port }).pipe(
        Effect.as("started"),
        Effect.catchTag("ServeError", (serveError) => Effect.succeed(serveError.message))
      )
      expect(caught).toBe(addressInUse(port))
    }).pipe(Effect.scoped)
  )

  it.live("dies with a RangeError naming the option when an option is invalid", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Effect.scoped(ChaosServer.make({ maxConnections: 0 })))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain(
        "maxConnections must be an integer between 1 and 1000000"
      )
    })
  )
})
