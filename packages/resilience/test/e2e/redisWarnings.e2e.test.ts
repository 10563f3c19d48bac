// @generated from templates/test/e2e/redisWarnings.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The store's warning says why Redis cannot be reached, and no failure of the store shows a Redis
 * password (issue #40), against real redis-servers of this file's own. A refused connection, a
 * password Redis no longer takes, a certificate the client does not trust and a Redis that does
 * not answer in time are each told apart, in the one warning of the episode; the password is in
 * none of them, nor in the metrics. A `url` node-redis could not read (a port above 65535, an IPv6
 * address without its bracket, `redis:/:…@host`, `http://:…@host`), or one this line does not
 * take, fails the layer with an `InvalidRetryPolicy` naming it, never a defect, and its password
 * is in neither its message, its JSON, `util.inspect` nor `Cause.pretty`.
 */
import { trusted } from "@effect-http-resilience/conformance/redisTls"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Either, Exit, Layer, Metric, type Scope } from "effect"
import * as Util from "node:util"
import { createClient } from "redis"
import { afterAll, beforeAll } from "vitest"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilienceStoreRedis from "../../src/ResilienceStoreRedis.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { freePort, type RedisInstance, startRedis, storeUser } from "../support/redisServer.js"
import { capturedLogs, type StoreOptions, storeOn } from "../support/redisStores.js"

let redis: RedisInstance
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

let prefixes = 0
const freshPrefix = () => `warnings-${process.pid}-${++prefixes}`
// A timeout long enough for busy cores, so that what the store meets first is the fault itself.
const patient: StoreOptions = { syncInterval: "50 millis", timeout: "2 seconds" }
const origin = "http://api.example.test:80"
const budget = Either.getOrThrow(
  RetryBudget.validate(RetryBudget.finagle({ ratio: 0, minPerSecond: 10, ttl: "10 seconds" }))
)

type Store = ResilienceStore.ResilienceStore.Service

// The warnings a store says once `fault` has happened to it, a retry then asking Redis; the
// password of its user in none of its log lines, nor in the metrics.
const warningsAfter = (store: Effect.Effect<Store, never, Scope.Scope>, fault: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const logs = capturedLogs()
    const warnings = yield* Effect.scoped(
      Effect.gen(function* () {
        const built = yield* store
        yield* fault
        yield* built.retryBudget(budget).tryRetry(origin, "transient-status")
        yield* eventually(
          Effect.sync(() => logs.degraded() >= 1),
          "the warning"
        )
        return logs.lines.filter((line) => line.startsWith("ResilienceStore on Redis is degraded"))
      })
    ).pipe(Effect.provide(logs.layer))
    expect(logs.lines.join("\n")).not.toContain(storeUser.password)
    expect(JSON.stringify(yield* Metric.snapshot)).not.toContain(storeUser.password)
    return warnings
  })

const command = (instance: RedisInstance, ...args: Array<string>) => Effect.promise(() => instance.command(...args))

// Every connection of the store's user closed: the store meets the fault as it connects again.
const dropConnections = (instance: RedisInstance) => command(instance, "CLIENT", "KILL", "USER", storeUser.username)

// A redis-server of the test's own, stopped after it.
const ownRedis = (options?: { readonly tls?: boolean }) =>
  Effect.acquireRelease(
    Effect.promise(() => startRedis(options)),
    (instance) => Effect.promise(() => instance.stop())
  )

// The store on a TLS port that trusts the `trusted` authority: your node-redis client on Effect 3,
// `NodeRedis.layer` on Effect 4.
const storeOverTls = (instance: RedisInstance): Effect.Effect<Store, never, Scope.Scope> => {
  const url = `rediss://${storeUser.username}:${storeUser.password}@127.0.0.1:${instance.tls?.port}`
  return Effect.gen(function* () {
    const client = createClient({ url, socket: { tls: true, ca: [trusted.ca] }, disableOfflineQueue: true })
    client.on("error", () => {})
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect()),
      () => Effect.sync(() => client.destroy())
    )
    const layer = ResilienceStoreRedis.layerRedis({ client, prefix: freshPrefix(), ...patient })
    return Context.get(yield* Effect.orDie(Layer.build(layer)), ResilienceStore.ResilienceStore)
  })
}

describe.skipIf(skipWithout(redisServer))("Effect 3 the store's warning says why", () => {
  it.live("a refused connection: Redis gone", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const instance = yield* ownRedis()
        const warnings = yield* warningsAfter(
          storeOn(instance.url, freshPrefix(), patient),
          Effect.promise(() => instance.kill())
        )
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toMatch(/\(connection refused: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(on /)
      })
    )
  )

  it.live("a password Redis no longer takes: authentication failed, WRONGPASS", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsAfter(
        storeOn(redis.url, freshPrefix(), patient),
        Effect.andThen(
          command(redis, "ACL", "SETUSER", storeUser.username, "resetpass", ">a-new-password"),
          dropConnections(redis)
        )
      )
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(
        /\(authentication failed: WRONGPASS invalid username-password pair or user is disabled\. \(on /
      )
    }).pipe(
      Effect.ensuring(command(redis, "ACL", "SETUSER", storeUser.username, "resetpass", `>${storeUser.password}`))
    )
  )

  it.live("a certificate the client does not trust: TLS failed, with the certificate's error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const instance = yield* ownRedis({ tls: true })
        const warnings = yield* warningsAfter(
          storeOverTls(instance),
          Effect.andThen(
            Effect.promise(async () => instance.tls?.serveUntrusted()),
            dropConnections(instance)
          )
        )
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toMatch(/\(TLS failed: self-signed certificate in certificate chain \(on /)
      })
    )
  )

  it.live("no answer in time: timed out, within the store's timeout", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsAfter(
        storeOn(redis.url, freshPrefix(), { syncInterval: "50 millis", timeout: "100 millis" }),
        Effect.asVoid(command(redis, "CLIENT", "PAUSE", "1000", "ALL"))
      )
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/\(timed out: no answer within 100 ms \(on /)
    }).pipe(Effect.ensuring(Effect.ignore(command(redis, "CLIENT", "UNPAUSE"))))
  )

  it.live("as the layer starts: a dead port, a wrong password and a CA not given each say so", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dead = `redis://${storeUser.username}:${storeUser.password}@127.0.0.1:${yield* Effect.promise(freePort)}`
        const wrong = `redis://${storeUser.username}:not-its-password@127.0.0.1:${redis.port}`
        const instance = yield* ownRedis({ tls: true })
        const noCa = `rediss://${storeUser.username}:${storeUser.password}@127.0.0.1:${instance.tls?.port}`
        const cases = [
          [dead, /\(connection refused: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(on /],
          [wrong, /\(authentication failed: WRONGPASS invalid username-password pair or user is disabled\. \(on /],
          [noCa, /\(TLS failed: self-signed certificate in certificate chain \(on /]
        ] as const
        // A short timeout: the layer waits ten times as long to connect; every command then fails
        // at once, the client having no connection.
        const said = yield* Effect.forEach(
          cases,
          ([url]) =>
            warningsAfter(
              storeOn(url, freshPrefix(), { syncInterval: "50 millis", timeout: "100 millis" }),
              Effect.void
            ),
          { concurrency: "unbounded" }
        )
        cases.forEach(([, expected], n) => {
          expect(said[n]).toHaveLength(1)
          expect(said[n]?.[0]).toMatch(expected)
        })
      })
    )
  )
})

// A failure's every face: its message, JSON, util.inspect and Cause.pretty.
const faces = (exit: Exit.Exit<unknown, unknown>): string => {
  const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
  return [
    Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "",
    failure instanceof Error ? failure.message : "",
    JSON.stringify(failure),
    Util.inspect(failure, { depth: 10 })
  ].join("\n")
}

// The layer built with `options`, as a user writes them (some are not the options' type).
const built = (options: unknown) => {
  const given: ResilienceStoreRedis.RedisOptions = JSON.parse(JSON.stringify(options))
  return Effect.exit(Effect.scoped(Layer.build(ResilienceStoreRedis.layerRedis(given))))
}

describe.skipIf(skipWithout(redisServer))("Effect 3 no Redis password in the store's failures", () => {
  it.live(
    "a url or options node-redis could not read fail the layer with an InvalidRetryPolicy naming them, without the password",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ url: "redis://:s3cret@127.0.0.1:99999" }, "layerRedis.url"],
          [{ url: "redis://:s3cret@[::1:6379" }, "layerRedis.url"],
          [{ url: "redis:/:s3cret@127.0.0.1:6379" }, "layerRedis.url"],
          [{ url: "http://:s3cret@127.0.0.1:6379" }, "layerRedis.url"],
          [{ client: { url: "redis://:s3cret@127.0.0.1:6379" } }, "layerRedis.client"],
          [{ cluster: { rootNodes: [{ url: "redis://:s3cret@127.0.0.1:6379" }] } }, "layerRedis.cluster"],
          [{ password: "s3cret" }, "layerRedis.password"]
        ]
        for (const [options, option] of cases) {
          const exit = yield* built(options)
          // A failure, not a defect.
          expect(Exit.isFailure(exit) && !Cause.isDie(exit.cause)).toBe(true)
          expect(Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined).toMatchObject({
            _tag: "InvalidRetryPolicy",
            option
          })
          expect(faces(exit)).not.toContain("s3cret")
        }
      })
  )
})
