// The consumer test's runtime check (scripts/consumer-test.sh copies it into a fresh project that
// installed the packed tarballs with npm). Plain ESM JavaScript: no tsx, no type stripping.
import * as Assert from "node:assert/strict"
import { createRequire } from "node:module"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, Option } from "effect"
import { HttpFailure, ResilientHttpClient, RetryAfter, RetryPolicy } from "effect-http-resilience"
import * as RetryAfterModule from "effect-http-resilience/RetryAfter"
import { checkRedisEntryPoint } from "./redisEntryPoint.mjs"

const step = (name) => console.log(`consumer: ${name}`)

// 1. The installed manifests point at built JavaScript only.
const require = createRequire(import.meta.url)
for (const name of ["effect-http-resilience", "@effect-http-resilience/chaos-server"]) {
  const manifestPath = require.resolve(`${name}/package.json`)
  const manifest = JSON.parse(Fs.readFileSync(manifestPath, "utf8"))
  const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {})]
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (target === null || subpath === "./package.json") continue
    targets.push(target.types, target.default)
  }
  for (const target of targets) {
    Assert.match(target, /^\.\/dist\/.*\.(js|d\.ts)$/, `${name}: ${target} is not built output in dist/`)
    Assert.ok(Fs.existsSync(Path.join(Path.dirname(manifestPath), target)), `${name}: ${target} is missing`)
  }
  Assert.equal(manifest.exports["./internal/*"], null, `${name}: internal modules must be blocked`)
}
step("manifests point at dist/")

// 2. Internal modules cannot be deep-imported.
for (const specifier of [
  "effect-http-resilience/internal/client.js",
  "effect-http-resilience/internal/retryPolicy",
  "effect-http-resilience/dist/internal/client.js",
  "@effect-http-resilience/chaos-server/internal/app.js"
]) {
  await Assert.rejects(import(specifier), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" }, `${specifier} must not resolve`)
}
step("internal modules are not importable")

// 3. Pure modules work from the root and from their subpath.
Assert.ok(RetryAfterModule.parse === RetryAfter.parse)
Assert.deepEqual(
  Option.map(RetryAfter.parse("120", 0), (d) => d.value),
  Option.some({ _tag: "Millis", millis: 120_000 })
)
Assert.ok(Either.isLeft(RetryPolicy.validate({ maxAttempts: 0 })))

// The Redis store is an entry point of its own, off the main one's import graph.
await checkRedisEntryPoint("effect-http-resilience")
step("the Redis store is behind effect-http-resilience/redis, off the main entry point's import graph")

// 4. A retried call through ResilientHttpClient.layer against the packed chaos server.
const HttpLive = ResilientHttpClient.layer({
  maxAttempts: 3,
  backoff: RetryPolicy.constant("10 millis"),
  jitter: "none"
}).pipe(Layer.provide(NodeHttpClient.layerUndici))

const retried = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  const http = yield* ResilientHttpClient.ResilientHttpClient
  const key = `consumer-${process.pid}-${Date.now()}`
  const response = yield* http.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503&retryAfter=0`)
  const body = yield* Effect.orDie(response.json)
  return { status: response.status, attempt: response.headers["x-attempt"], body }
}).pipe(Effect.scoped)

const exhausted = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  const http = yield* ResilientHttpClient.ResilientHttpClient
  const key = `consumer-exhausted-${process.pid}-${Date.now()}`
  return yield* http.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=5&failStatus=503&retryAfter=0`)
}).pipe(Effect.scoped, Effect.flip)

const [success, failure] = await Effect.runPromise(
  Effect.all([retried, exhausted]).pipe(Effect.provide(Layer.merge(ChaosServer.layer(), HttpLive)))
)
Assert.equal(success.status, 200)
Assert.equal(success.attempt, "3", "the chaos server must have counted three attempts")
Assert.equal(success.body.attempt, 3)
Assert.ok(HttpFailure.isTransientStatus(failure), `expected a TransientStatus, got ${String(failure)}`)
Assert.equal(failure._tag, "TransientStatus")
Assert.equal(failure.status, 503)
Assert.equal(failure.attempt, 3)
step("retried call succeeded on attempt 3; an exhausted one failed with TransientStatus after 3 attempts")

// 5. The promise API of the chaos server, and its orders endpoint.
const server = await startChaosServer()
try {
  const response = await fetch(`${server.url}/api/status/404`)
  Assert.equal(response.status, 404)
  await response.arrayBuffer()
  Assert.equal((await server.stats()).requests.total, 1)
  const order = await fetch(`${server.url}/api/orders?succeedAfter=0`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": "consumer" },
    body: JSON.stringify({ sku: "A-1" })
  })
  Assert.equal(order.status, 201)
  Assert.deepEqual((await order.json()).order, { sku: "A-1" })
  Assert.equal((await server.stats()).orders.placed, 1)
} finally {
  await server.close()
}
step("startChaosServer works without Effect; POST /api/orders places an order")

console.log("consumer: all runtime checks passed")
