// The consumer test's runtime check of the Effect 4 line (scripts/consumer-test.sh copies it into
// a fresh project that installed the packed tarball with the package README's install lines, and
// runs it under Node 22). Plain ESM JavaScript. The server is a plain node:http one: the chaos
// server is an Effect 3 package and cannot share this project's `effect`.
import * as Assert from "node:assert/strict"
import * as Fs from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Option, Result, Schema } from "effect"
import { HttpClient } from "effect/http"
import { ResilientHttpClient, RetryAfter, RetryPolicy } from "effect-http-resilience-effect4"
import * as RetryAfterModule from "effect-http-resilience-effect4/RetryAfter"

const step = (name) => console.log(`consumer (Effect 4): ${name}`)

// 1. The installed manifests point at built JavaScript only, and the core came with the library.
const require = createRequire(import.meta.url)
for (const name of ["effect-http-resilience-effect4", "@effect-http-resilience/core"]) {
  const manifestPath = require.resolve(`${name}/package.json`)
  const manifest = JSON.parse(Fs.readFileSync(manifestPath, "utf8"))
  const targets = [manifest.main, manifest.types]
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
console.log("consumer (Effect 4): all runtime checks passed")
