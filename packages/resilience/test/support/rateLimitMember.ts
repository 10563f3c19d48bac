// @generated from templates/test/support/rateLimitMember.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * One process of the fleet's rate-limit tests (test/e2e/redisRateLimit.e2e.test.ts,
 * test/fleet/redisStoreWiring.test.ts), run as an OS process of its own, as a user's program:
 * `calls` GETs of `url`, `inFlight` at a time (one after another by default), through a client with `rateLimit` on a store (`redis`:
 * the fleet's, on `prefix`; `memory`: its own), wired as `wiring` says:
 *
 * - `around`: the store provided around the program (`Effect.provide`), the client's layer inside it;
 * - `layer`: the store given to `ResilientHttpClient.layer` with `Layer.provide`;
 * - `layerHttpClient`: the store given to `ResilientHttpClient.layerHttpClient` with `Layer.provide`;
 * - `both`: the store given to `ResilientHttpClient.layer` with `Layer.provide`, and the other kind
 *   (memory for redis, redis for memory) provided around the program.
 *
 * Prints one JSON line: how many calls got a 200, how many the rate limit refused unsent, and others.
 *
 * With `warmUp` 1 (`around` only), one GET of the origin's `/api/status/200` first, outside the client (no token taken): the
 * connection is open before the first call, whose request would otherwise reach the server tens of
 * milliseconds late and so closer to the calls a window after it.
 *
 * argv: redisUrl prefix url calls store limit window wiring burst inFlight warmUp
 */
import { HttpClient } from "@effect/platform"
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
  wiring = "around",
  burst = "1",
  inFlight = "1",
  warmUp = "0"
] = process.argv.slice(2)

const storeLayer = (kind: string) =>
  kind === "memory"
    ? ResilienceStore.layerMemory()
    : ResilienceStoreRedis.layerRedis({ url: redisUrl, prefix, timeout: "2 seconds" })

const policy = {
  maxAttempts: 1,
  rateLimit: RateLimit.make({ limit: Number(limit), window: Number(window), burst: Number(burst) })
}

type Outcome = number | string

const count = <R>(send: Effect.Effect<Outcome, never, R>) =>
  Effect.map(
    Effect.all(
      Array.from({ length: Number(calls) }, () => send),
      { concurrency: Number(inFlight) }
    ),
    (all) => {
      const outcomes = { ok: 0, rateLimited: 0, other: 0 }
      for (const outcome of all) {
        if (outcome === 200) outcomes.ok++
        else if (outcome === "RateLimited") outcomes.rateLimited++
        else outcomes.other++
      }
      return outcomes
    }
  )

const warm =
  warmUp === "1"
    ? Effect.flatMap(HttpClient.HttpClient, (client) =>
        Effect.scoped(client.get(new URL("/api/status/200", url).href))
      ).pipe(
        Effect.catchAll(() => Effect.void),
        Effect.asVoid
      )
    : Effect.void

// Through the service: a refusal is a ConnectionError with reason "RateLimited".
const resilient = count(
  Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
    Effect.scoped(Effect.map(client.get(url), (response): Outcome => response.status))
  ).pipe(
    Effect.catchAll((failure) => Effect.succeed(HttpFailure.isConnectionError(failure) ? failure.reason : failure._tag))
  )
)

// Through the platform's `HttpClient`: a refusal is an `HttpClientError`, counted as other.
const platform = count(
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.scoped(Effect.map(client.get(url), (response): Outcome => response.status))
  ).pipe(Effect.catchAll(() => Effect.succeed<Outcome>("HttpClientError")))
)

const other = store === "memory" ? "redis" : "memory"
const wired = (() => {
  switch (wiring) {
    case "layer":
      return resilient.pipe(
        Effect.provide(
          ResilientHttpClient.layer(policy).pipe(
            Layer.provide(Layer.merge(storeLayer(store), NodeHttpClient.layerUndici))
          )
        )
      )
    case "layerHttpClient":
      return platform.pipe(
        Effect.provide(
          ResilientHttpClient.layerHttpClient(policy).pipe(
            Layer.provide(Layer.merge(storeLayer(store), NodeHttpClient.layerUndici))
          )
        )
      )
    case "both":
      return resilient.pipe(
        Effect.provide(
          ResilientHttpClient.layer(policy).pipe(
            Layer.provide(Layer.merge(storeLayer(store), NodeHttpClient.layerUndici))
          )
        ),
        Effect.provide(storeLayer(other))
      )
    case "around":
      // The platform's client around the program is the one the service sends with: its connections.
      return Effect.zipRight(warm, resilient).pipe(
        Effect.provide(ResilientHttpClient.layer(policy)),
        Effect.provide(Layer.merge(storeLayer(store), NodeHttpClient.layerUndici))
      )
    default:
      throw new Error(`unknown wiring ${wiring}: around, layer, layerHttpClient or both`)
  }
})()

const outcomes = await Effect.runPromise(wired)
process.stdout.write(`${JSON.stringify(outcomes)}\n`)
