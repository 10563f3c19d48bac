// @generated from templates/test/support/rateLimitMember.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * One process of the fleet's rate-limit test (test/e2e/redisRateLimit.e2e.test.ts), run as an OS
 * process of its own, as a user's program: `calls` GETs of `url`, one after another, through
 * `ResilientHttpClient.layer({ rateLimit })` on its own store (`redis`: the fleet's, on `prefix`;
 * `memory`: its own). Prints one JSON line: how many calls got a 200, and how many the rate limit
 * refused unsent.
 *
 * argv: redisUrl prefix url calls store limit window burst
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as RateLimit from "../../src/RateLimit.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilienceStoreRedis from "../../src/ResilienceStoreRedis.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"

const [
  redisUrl = "",
  prefix = "",
  url = "",
  calls = "0",
  store = "redis",
  limit = "10",
  window = "600000",
  burst = "1"
] = process.argv.slice(2)

const storeLayer =
  store === "memory"
    ? ResilienceStore.layerMemory()
    : ResilienceStoreRedis.layerRedis({ url: redisUrl, prefix, timeout: "2 seconds" })

const program = Effect.gen(function* () {
  const client = yield* ResilientHttpClient.ResilientHttpClient
  const outcomes = { ok: 0, rateLimited: 0, other: 0 }
  for (let i = 0; i < Number(calls); i++) {
    const outcome = yield* Effect.scoped(Effect.map(client.get(url), (response) => response.status)).pipe(
      Effect.catchAll((failure) =>
        Effect.succeed(HttpFailure.isConnectionError(failure) ? failure.reason : failure._tag)
      )
    )
    if (outcome === 200) outcomes.ok++
    else if (outcome === "RateLimited") outcomes.rateLimited++
    else outcomes.other++
  }
  return outcomes
})

const outcomes = await Effect.runPromise(
  program.pipe(
    Effect.provide(
      ResilientHttpClient.layer({
        maxAttempts: 1,
        rateLimit: RateLimit.make({ limit: Number(limit), window: Number(window), burst: Number(burst) })
      })
    ),
    Effect.provide(Layer.merge(storeLayer, NodeHttpClient.layerUndici))
  )
)
process.stdout.write(`${JSON.stringify(outcomes)}\n`)
