// @generated from templates/test/readme/chaosServer.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The testing guide's example, verbatim, so that CI runs it: docs/testing.md, "End to end against the chaos server" >
// "Effect 4". readme.test.ts checks that it stays the same as the guide's block.
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect4"
import { NodeHttpClient } from "@effect/platform-node"
import { expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import { ResilientHttpClient } from "effect-http-resilience-effect4"

const HttpLive = ResilientHttpClient.layerHttpClient({ maxAttempts: 3 }).pipe(Layer.provide(NodeHttpClient.layerUndici))

it.live("over a real socket: a 503 with Retry-After: 1, then 200 a second later", () =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    const client = yield* HttpClient.HttpClient
    const start = yield* Clock.currentTimeMillis
    // Fails once with 503 and Retry-After: 1, then answers 200; X-Attempt counts the requests.
    const response = yield* client.get(`${server.url}/api/chaos/retry/items?succeedAfter=1&retryAfter=1`)
    const elapsed = (yield* Clock.currentTimeMillis) - start
    expect([response.status, response.headers["x-attempt"]]).toEqual([200, "2"]) // 2 attempts
    expect(elapsed).toBeGreaterThan(900) // the 1 s wait (a real timer may fire a few ms early)
  }).pipe(Effect.provide(Layer.merge(ChaosServer.layer(), HttpLive)))
)
