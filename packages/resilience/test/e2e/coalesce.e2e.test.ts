// @generated from templates/test/e2e/coalesce.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Request coalescing (issue #44 item 4) over real loopback sockets, on undici and fetch: 100
 * concurrent identical GETs of a slow endpoint reach the chaos server as one request (counted at
 * the server), and each caller reads the whole body, a JSON document of several socket reads.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as Coalesce from "../../src/Coalesce.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import { eventually } from "../support/eventually.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const bytes = 200_000

for (const [name, transport] of transports) {
  describe(`Effect 3 request coalescing over ${name}`, () => {
    it.live("100 concurrent identical GETs send one request; each caller reads the whole body", () =>
      Effect.gen(function* () {
        const namespace = chaos.namespace()
        const client = yield* ResilientHttpClient.make({ coalesce: Coalesce.identical() })
        // Answered after 2 s: every call has long joined the one in flight by then, on a busy machine too.
        const url = `${namespace.url}/api/chaos/large-json?bytes=${bytes}&delay=2`
        const bodies = yield* Effect.all(
          Array.from({ length: 100 }, () =>
            Effect.scoped(Effect.flatMap(client.get(url), (response) => response.text))
          ),
          { concurrency: "unbounded" }
        )
        expect(bodies.map((body) => body.length)).toEqual(Array.from({ length: 100 }, () => bytes))
        // Every caller read the same document, whole: a JSON array of zeros.
        expect(new Set(bodies).size).toBe(1)
        const parsed: unknown = JSON.parse(bodies[0] ?? "")
        expect(Array.isArray(parsed) && parsed.length > 1000 && parsed.every((zero) => zero === 0)).toBe(true)
        yield* eventually(
          Effect.map(
            Effect.promise(() => namespace.stats()),
            (stats) => stats.requests.total >= 1
          ),
          "the request counted at the server"
        )
        expect((yield* Effect.promise(() => namespace.stats())).requests.total).toBe(1)
      }).pipe(Effect.provide(transport))
    )
  })
}
