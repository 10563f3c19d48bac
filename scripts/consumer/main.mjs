// The consumer test's runtime check (scripts/consumer-test.sh copies it into a fresh project that
// installed the packed tarballs with npm). Plain ESM JavaScript: no tsx, no type stripping.
import * as Assert from "node:assert/strict"
import * as ChildProcess from "node:child_process"
import { createRequire } from "node:module"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Either, Layer, Option } from "effect"
import { HttpFailure, ResilientHttpClient, RetryAfter, RetryPolicy } from "effect-http-resilience"
import * as RetryAfterModule from "effect-http-resilience/RetryAfter"

const step = (name) => console.log(`consumer: ${name}`)

/**
 * The URLs of every module Node loads to import `specifier` in a fresh process (a `load` hook
 * appends each to a file): what a program that imports it pays at startup.
 */
const modulesLoadedBy = (specifier) => {
  const log = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "consumer-loaded-")), "loaded.txt")
  const hooks = `import { appendFileSync } from "node:fs"
export const load = (url, context, next) => { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context) }`
  const register = `import { register } from "node:module"
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})`
  ChildProcess.execFileSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(specifier)})`
    ],
    { stdio: "inherit" }
  )
  return Fs.readFileSync(log, "utf8").trim().split("\n")
}

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

// The Redis store is an entry point of its own: importing the main one loads none of its modules
// (nor node-redis), and `ResilienceStore` no longer has it.
{
  const isRedis = (url) =>
    /\/dist\/(internal\/redis\w*|ResilienceStoreRedis)\.js$|\/node_modules\/(redis|@redis)\//.test(url)
  const main = modulesLoadedBy("effect-http-resilience")
  Assert.ok(
    main.some((url) => url.includes("/effect-http-resilience/dist/index.js")),
    "the hook saw the main entry point"
  )
  Assert.deepEqual(main.filter(isRedis), [], "importing effect-http-resilience loads the Redis store")
  Assert.ok(
    modulesLoadedBy("effect-http-resilience/redis").some(isRedis),
    "the /redis entry point loads the Redis store"
  )
  const Redis = await import("effect-http-resilience/redis")
  Assert.equal(typeof Redis.layerRedis, "function")
  const { ResilienceStore } = await import("effect-http-resilience")
  Assert.equal("layerRedis" in ResilienceStore, false)
}
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
