// @generated from templates/test/e2e/timeLimit.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The attempt time limit holds whatever the wrapped client does (issue #16), over real loopback
 * sockets: a redirect followed inside the resilient client, and one request value in flight twice.
 * (Effect 4's line, a forked race, always held it.)
 * A small node:http server in this file redirects to the chaos server's hang and holds requests
 * until the test answers them; nothing here waits a fixed time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, type Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Http from "node:http"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { eventually } from "../support/eventually.js"
import { closeLoopback, listenOnLoopback } from "../support/loopback.js"

let chaos: StartedChaosServer
let helper: Http.Server
let helperUrl: string
// Requests to `/held`, in arrival order, each answered when the test says.
const held: Array<Http.ServerResponse> = []

beforeAll(async () => {
  chaos = await startChaosServer()
  helper = Http.createServer((request, response) => {
    if (request.url === "/redirect-to-hang") {
      response.writeHead(302, { location: `${chaos.url}/api/chaos/hang` }).end()
    } else {
      request.resume()
      held.push(response)
    }
  })
  helperUrl = await listenOnLoopback(helper)
})
afterAll(async () => {
  await closeLoopback(helper)
  await chaos?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined

// Generous: a hang past it is the bug, not a slow machine.
const withinBound = <A, E, R>(call: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(call, { duration: "30 seconds", orElse: () => Effect.fail("the call outlived its time limits") })

for (const [name, transport] of transports) {
  describe(`Effect 4 attempt time limit over ${name}`, () => {
    it.live(
      "a redirect followed inside the resilient client to a hanging endpoint fails as a Timeout",
      () =>
        Effect.gen(function* () {
          const client = (yield* HttpClient.HttpClient).pipe(
            HttpClient.followRedirects(2),
            ResilientHttpClient.withResilience({
              maxAttempts: 1,
              attemptTimeout: "300 millis",
              backoff: RetryPolicy.constant(0),
              retryBudget: "none"
            })
          )
          // A first call that goes well, then one whose second hop hangs.
          const ok = yield* Effect.scoped(Effect.map(client.get(`${chaos.url}/api/status/200`), (r) => r.status))
          expect(ok).toBe(200)
          const exit = yield* withinBound(Effect.exit(Effect.scoped(client.get(`${helperUrl}/redirect-to-hang`))))
          expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 1 })
        }).pipe(Effect.provide(transport)),
      60_000
    )

    it.live(
      "one request value in flight twice: one call's 404 leaves the other's healthy request alone",
      () =>
        Effect.gen(function* () {
          held.length = 0
          const service = yield* ResilientHttpClient.make({ attemptTimeout: "20 seconds", retryBudget: "none" })
          const request = HttpClientRequest.post(`${helperUrl}/held`).pipe(HttpClientRequest.bodyText("order"))
          const call = Effect.scoped(Effect.map(service.execute(request), (response) => response.status))
          const first = yield* Effect.forkChild(Effect.exit(call))
          yield* eventually(
            Effect.sync(() => held.length === 1),
            "the first request at the server"
          )
          const second = yield* Effect.forkChild(Effect.exit(call))
          yield* eventually(
            Effect.sync(() => held.length === 2),
            "the second request at the server"
          )
          held[0]!.writeHead(404, { "content-length": "0" }).end()
          expect(failureOf(yield* Fiber.join(first))).toMatchObject({ _tag: "PermanentStatus", status: 404 })
          held[1]!.writeHead(200, { "content-length": "2" }).end("ok")
          expect(yield* withinBound(Fiber.join(second))).toEqual(Exit.succeed(200))
        }).pipe(Effect.provide(transport)),
      60_000
    )
  })
}
