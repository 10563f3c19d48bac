// The consumer test's check that the Effect 4 line runs on Node.js 20 as its README says: over
// FetchHttpClient (Node's own fetch), since @effect/platform-node 4 needs Node 22.19. Run with the
// system's Node in the project that installed the packed tarball (scripts/consumer-test.sh).
import * as Assert from "node:assert/strict"
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { ResilientHttpClient } from "effect-http-resilience-effect4"

const server = await startChaosServer()
try {
  // The service fails twice with 503, then answers: the third attempt succeeds.
  const program = Effect.gen(function* () {
    const http = yield* ResilientHttpClient.ResilientHttpClient
    const response = yield* http.get(`${server.url}/api/chaos/retry/node20?succeedAfter=2&retryAfter=0`)
    return response.headers["x-attempt"]
  }).pipe(Effect.scoped, Effect.provide(ResilientHttpClient.layer().pipe(Layer.provide(FetchHttpClient.layer))))
  Assert.equal(await Effect.runPromise(program), "3")
  console.log(`consumer (Effect 4): FetchHttpClient on Node ${process.version}: 3 attempts, then 200`)
} finally {
  await server.close()
}
