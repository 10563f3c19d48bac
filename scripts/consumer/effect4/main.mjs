// The consumer test's runtime check of the Effect 4 line (scripts/consumer-test.sh copies it into
// a fresh project that installed the packed tarball with the package README's install lines, and
// runs it under Node 22), with the chaos server installed by its README's Effect 4 lines. Plain
// ESM JavaScript. Step 3 counts requests with a node:http server of its own; step 4 runs the chaos
// server's Effect 4 layer on this project's `effect`.
import * as Assert from "node:assert/strict"
import * as Fs from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect4"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Option, Result, Schema } from "effect"
import { HttpBody, HttpClient } from "effect/http"
import { ResilientHttpClient, RetryAfter, RetryPolicy } from "effect-http-resilience-effect4"
import * as RetryAfterModule from "effect-http-resilience-effect4/RetryAfter"
import { checkRedisEntryPoint } from "./redisEntryPoint.mjs"

const step = (name) => console.log(`consumer (Effect 4): ${name}`)

// 1. The installed manifests point at built JavaScript only, and the core came with the library.
const require = createRequire(import.meta.url)
for (const name of [
  "effect-http-resilience-effect4",
  "@effect-http-resilience/core",
  "@effect-http-resilience/chaos-server"
]) {
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
}
await Assert.rejects(import("effect-http-resilience-effect4/internal/client.js"), {
  code: "ERR_PACKAGE_PATH_NOT_EXPORTED"
})
step("manifests point at dist/, internal modules are not importable")

// 2. Pure modules, from the root and from their subpath.
Assert.ok(RetryAfterModule.parse === RetryAfter.parse)
Assert.ok(Option.isSome(RetryAfter.parse("120", 0)))
Assert.ok(Result.isFailure(RetryPolicy.validate({ maxAttempts: 0 })))
step("RetryAfter and RetryPolicy work")

// The Redis store is an entry point of its own, off the main one's import graph.
await checkRedisEntryPoint("effect-http-resilience-effect4")
step("the Redis store is behind effect-http-resilience-effect4/redis, off the main entry point's import graph")

// 3. Over a real socket through @effect/platform-node 4's undici: a service that fails twice
// with 503 then answers; a POST without an Idempotency-Key is sent once.
const counts = new Map()
const server = Http.createServer((request, response) => {
  const n = (counts.get(request.url) ?? 0) + 1
  counts.set(request.url, n)
  if (request.url === "/recovers" && n <= 2) {
    response.writeHead(503, { "retry-after": "0", "content-type": "application/json" })
    return response.end('{"error":"busy"}')
  }
  if (request.url === "/orders") {
    response.writeHead(503, { "retry-after": "0" })
    return response.end()
  }
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ id: 7, name: "Product 7", attempt: n }))
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const base = `http://127.0.0.1:${server.address().port}`

const Product = Schema.Struct({ id: Schema.Number, name: Schema.String, attempt: Schema.Number })
const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("10 millis"), jitter: "none" }

const program = Effect.gen(function* () {
  const service = yield* ResilientHttpClient.make(fast)
  const product = yield* service.getJson(`${base}/recovers`, Product)
  Assert.deepEqual(product, { id: 7, name: "Product 7", attempt: 3 })
  const posted = yield* Effect.exit(Effect.scoped(service.client.post(`${base}/orders`)))
  Assert.equal(posted._tag, "Failure")
  Assert.equal(counts.get("/orders"), 1)
  // The drop-in layer: code written against Effect 4's HttpClient, unchanged.
  const status = yield* Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.get(`${base}/orders`)
    return response.status
  }).pipe(Effect.provide(ResilientHttpClient.layerHttpClient(fast)))
  Assert.equal(status, 503)
  Assert.equal(counts.get("/orders"), 4)
})
await Effect.runPromise(program.pipe(Effect.provide(NodeHttpClient.layerUndici)))
server.close()
step("getJson retried a 503 twice over undici, a POST was sent once, the drop-in layer kept a 503 a response")

// 4. The chaos server's Effect 4 layer on this project's effect: a service that recovers on
// attempt 3, and an order placed once through a POST retried with an Idempotency-Key.
const chaos = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  const http = yield* ResilientHttpClient.ResilientHttpClient
  const recovered = yield* Effect.scoped(http.get(`${server.url}/api/chaos/retry/consumer?succeedAfter=2&retryAfter=0`))
  Assert.equal(recovered.headers["x-attempt"], "3")
  const placed = yield* Effect.scoped(
    http.client.post(`${server.url}/api/orders?retryAfter=0`, {
      headers: { "idempotency-key": "consumer-order" },
      body: HttpBody.jsonUnsafe({ sku: "A-1" })
    })
  )
  Assert.equal(placed.status, 201)
  const stats = yield* server.stats
  Assert.deepEqual(stats.orders, { placed: 1, byIdempotencyKey: { "consumer-order": 3 } })
})
await Effect.runPromise(
  chaos.pipe(
    Effect.provide(
      Layer.merge(ChaosServer.layer(), ResilientHttpClient.layer(fast).pipe(Layer.provide(NodeHttpClient.layerUndici)))
    )
  )
)
step("the chaos server's Effect 4 layer: a retried GET recovered on attempt 3, an order was placed once")
console.log("consumer (Effect 4): all runtime checks passed")
