// @generated from templates/test/e2e/redisCluster.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * `ResilienceStoreRedis.layerRedis({ cluster })` on a real Redis Cluster of three masters (issue #31):
 * each store has its own node-redis cluster client, as each process of a fleet would. A prefix's
 * keys share its hash slot (its tag `{prefix}`), so each script runs on one master and no command
 * meets `CROSSSLOT` or `MOVED`; cool-downs reach the other processes through the cluster's
 * pub/sub and a late joiner reads them from the one slot, on whichever master holds it; the
 * budget and breaker openings are shared as on one Redis. A client of one node on a cluster node
 * is refused when the layer starts.
 */
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "@effect/vitest"
import { NodeRedis } from "@effect/platform-node"
import { Effect, Result, Layer } from "effect"
import { createCluster } from "redis"
import { afterAll, beforeAll } from "vitest"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import type * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilienceStoreRedis from "../../src/ResilienceStoreRedis.js"
import * as RetryBudget from "../../src/RetryBudget.js"
import { eventually } from "../support/eventually.js"
import { type RedisClusterInstance, startRedisCluster, storeUser } from "../support/redisServer.js"
import { capturedLogs, type StoreOptions, storeOnCluster } from "../support/redisStores.js"

let cluster: RedisClusterInstance
beforeAll(async () => {
  cluster = await startRedisCluster()
})
afterAll(async () => {
  await cluster?.stop()
})

const origin = "http://api.example.test:80"

// A cluster client of the process's own: connected, destroyed with the scope.
const clusterClient = Effect.acquireRelease(
  Effect.promise(async () => {
    // As the store's least-privilege user (docs/overload.md's ACL), on every master.
    const client = createCluster({ rootNodes: [...cluster.rootNodes], defaults: storeUser })
    client.on("error", () => {})
    await client.connect()
    return client
  }),
  (client) => Effect.sync(() => client.destroy())
)

// One store, as one process of the fleet would have it, with a cluster client of its own; a
// timeout long enough that a busy machine never makes a retry decide locally.
const storeOf = (prefix: string, options: StoreOptions = {}) =>
  Effect.flatMap(clusterClient, (client) => storeOnCluster(client, prefix, { timeout: "2 seconds", ...options }))

// An integer reply (`:5\r\n`).
const integer = (reply: string): number => Number(/^:(-?\d+)\r\n$/.exec(reply)?.[1])

// The master (its index in `cluster.ports`) that holds a slot: a third of the slots each.
const masterOf = (slot: number): number => Math.floor((slot * cluster.ports.length) / 16_384)

const slotOf = (prefix: string) =>
  Effect.map(
    Effect.promise(() => cluster.command("CLUSTER", "KEYSLOT", SharedStore.keysFor(prefix).slot)),
    integer
  )

// Sends one command to every master, after `AUTH password` when one is given.
const onEveryMasterAs = (password: string | undefined, ...args: Array<string>) =>
  Effect.suspend(() =>
    Effect.forEach(cluster.ports, (port) =>
      Effect.promise(() =>
        password === undefined ? cluster.commandOn(port, ...args) : cluster.commandAs(password, port, ...args)
      )
    )
  )
const onEveryMaster = (...args: Array<string>) => onEveryMasterAs(undefined, ...args)

// How many connections listen on a channel, over the whole cluster: each node counts its own.
const listeners = (channel: string, password?: string) =>
  Effect.map(onEveryMasterAs(password, "PUBSUB", "NUMSUB", channel), (replies) =>
    replies.reduce((sum, reply) => sum + Number(/:(\d+)\r\n$/.exec(reply)?.[1]), 0)
  )

// What failed on the masters since their statistics were reset: every command that was
// redirected or refused (MOVED, ASK, CROSSSLOT count as rejected) or failed as it ran (NOSCRIPT,
// a script's error), and every error reply but ERR (Redis 7.0 answers node-redis' CLIENT SETINFO,
// a command it does not know, with ERR).
const failures = Effect.map(
  Effect.all([onEveryMaster("INFO", "commandstats"), onEveryMaster("INFO", "errorstats")]),
  ([commandStats, errorStats]) => [
    ...commandStats.flatMap((reply) =>
      [...reply.matchAll(/cmdstat_(\S+?):.*rejected_calls=(\d+),failed_calls=(\d+)/g)]
        .filter((match) => match[2] !== "0" || match[3] !== "0")
        .map((match) => match[0])
    ),
    ...errorStats.flatMap((reply) =>
      [...reply.matchAll(/errorstat_(\w+):count=\d+/g)].filter((match) => match[1] !== "ERR").map((match) => match[0])
    )
  ]
)

// ratio 0: the floor alone, 1 retry a second over 10 s: 10 retries for the fleet. A window
// much longer than the test, so that no withdrawal leaves it on a busy machine.
const budget = Result.getOrThrow(
  RetryBudget.validate(RetryBudget.finagle({ ratio: 0, minPerSecond: 1, ttl: "10 seconds" }))
)
const breakerOptions: CircuitBreaker.Options = { tripPolicy: CircuitBreaker.consecutive(1), breakDuration: "1 minute" }

describe.skipIf(skipWithout(redisServer))("Effect 4 ResilienceStoreRedis.layerRedis on a Redis Cluster", () => {
  it("startRedisCluster: three masters on 127.0.0.1 that hold every slot", async () => {
    for (const port of cluster.ports) {
      const info = await cluster.commandOn(port, "CLUSTER", "INFO")
      expect(info).toContain("cluster_state:ok")
      expect(info).toContain("cluster_slots_assigned:16384")
      expect(info).toContain("cluster_size:3")
    }
    const nodes = (await cluster.commandOn(cluster.ports[0]!, "CLUSTER", "NODES"))
      .split("\n")
      .filter((line) => line.includes("master"))
    expect(nodes.map((line) => /127\.0\.0\.1:(\d+)/.exec(line)?.[1]).sort()).toEqual(cluster.ports.map(String).sort())
  })

  it.live(
    "a prefix on each master: cool-downs reach the other process and a late joiner, the budget's floor is lent once, every key in the prefix's slot",
    () =>
      Effect.suspend(() => {
        const logs = capturedLogs()
        return Effect.gen(function* () {
          yield* onEveryMaster("CONFIG", "RESETSTAT")
          // One prefix whose slot each master holds: the root node, and two that only routing reaches.
          const prefixes = new Map<number, { readonly prefix: string; readonly slot: number }>()
          for (let n = 0; prefixes.size < cluster.ports.length; n++) {
            const prefix = `cluster-${process.pid}-${n}`
            const slot = yield* slotOf(prefix)
            if (!prefixes.has(masterOf(slot))) prefixes.set(masterOf(slot), { prefix, slot })
          }
          for (const [master, { prefix, slot }] of prefixes) {
            yield* Effect.scoped(
              Effect.gen(function* () {
                const first = yield* storeOf(prefix)
                const second = yield* storeOf(prefix)
                yield* eventually(
                  Effect.map(listeners(SharedStore.keysFor(prefix).channel), (count) => count === 2),
                  "both stores listening"
                )
                yield* first.coolDown(origin, 30_000)
                yield* eventually(
                  Effect.map(second.coolDownLeft(origin), (left) => left > 20_000),
                  `${prefix}: the second process`
                )
                const late = yield* storeOf(prefix)
                expect(yield* late.coolDownLeft(origin)).toBeGreaterThan(20_000)
                const tryRetry = (store: ResilienceStore.ResilienceStore.Service) =>
                  store.retryBudget(budget).tryRetry(origin, "transient-status")
                expect(
                  yield* Effect.forEach(
                    Array.from({ length: 10 }, () => first),
                    tryRetry
                  )
                ).not.toContain(false)
                expect(yield* tryRetry(second)).toBe(false)
                // The prefix's keys (its cool-downs, its budget) are all in its slot, on its master.
                const port = cluster.ports[master]!
                expect(
                  integer(
                    yield* Effect.promise(() => cluster.commandOn(port, "CLUSTER", "COUNTKEYSINSLOT", String(slot)))
                  )
                ).toBe(2)
                const score = yield* Effect.promise(() =>
                  cluster.commandOn(port, "ZSCORE", SharedStore.keysFor(prefix).coolDowns, origin)
                )
                expect(score).not.toBe("$-1\r\n")
              })
            )
          }
          // Every command went to the master that holds its key at once (no MOVED), and none failed
          // (no CROSSSLOT, no NOSCRIPT): the stores were never degraded.
          expect(yield* failures).toEqual([])
          expect(logs.lines.filter((line) => line.includes("degraded"))).toEqual([])
        }).pipe(Effect.provide(logs.layer))
      })
  )

  it.live(
    "shareCircuitBreaker: an opening in one process opens the other's breaker, through the cluster's pub/sub",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = `cluster-breakers-${process.pid}`
          const first = yield* storeOf(prefix, { shareCircuitBreaker: true })
          const second = yield* storeOf(prefix, { shareCircuitBreaker: true })
          yield* eventually(
            Effect.map(listeners(SharedStore.keysFor(prefix).breakerChannel), (count) => count === 2),
            "both stores listening"
          )
          yield* Effect.ignore(
            (yield* CircuitBreaker.fromStore(first, CircuitBreaker.perOrigin(breakerOptions))).execute(
              Effect.fail("refused"),
              origin
            )
          )
          const breaker = yield* CircuitBreaker.fromStore(second, CircuitBreaker.perOrigin(breakerOptions))
          yield* eventually(
            Effect.map(breaker.state(origin), (state) => state._tag === "Open"),
            "the second process's breaker open"
          )
        })
      )
  )

  it.live(
    "a cool-down published while a process's pub/sub connection is down reaches it once the connection is back",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const prefix = `cluster-resubscribe-${process.pid}`
          const publisher = yield* storeOf(prefix)
          const listener = yield* storeOf(prefix, { syncInterval: "100 millis" })
          yield* eventually(
            Effect.map(listeners(SharedStore.keysFor(prefix).channel), (count) => count === 2),
            "both stores listening"
          )
          // Pub/sub connections dropped, and kept from coming back (a password they do not know),
          // while the publisher's command connection, authenticated before, keeps working.
          const password = `resubscribe-${process.pid}`
          yield* Effect.addFinalizer(() =>
            Effect.promise(() =>
              Promise.all(
                cluster.ports.map((port) =>
                  cluster.commandAs(password, port, "CONFIG", "SET", "requirepass", "").catch(() => "")
                )
              )
            )
          )
          yield* onEveryMaster("CONFIG", "SET", "requirepass", password)
          yield* onEveryMasterAs(password, "CLIENT", "KILL", "TYPE", "pubsub")
          yield* eventually(
            Effect.map(listeners(SharedStore.keysFor(prefix).channel, password), (count) => count === 0),
            "no listener left"
          )
          yield* publisher.coolDown(origin, 30_000)
          expect(yield* listener.coolDownLeft(origin)).toBe(0)
          yield* onEveryMasterAs(password, "CONFIG", "SET", "requirepass", "")
          // What was published while it was away is read again, not only what comes next.
          yield* eventually(
            Effect.map(listener.coolDownLeft(origin), (left) => left > 20_000),
            "the listener holds the cool-down"
          )
        })
      )
  )

  it.live("a client of one node on a cluster node is refused when the layer starts, naming the cluster option", () =>
    Effect.gen(function* () {
      const built = Layer.build(
        ResilienceStoreRedis.layerRedis({ prefix: "one-node" }).pipe(
          Layer.provide(NodeRedis.layer({ url: cluster.rootNodes[0]!.url }))
        )
      )
      const failure = yield* Effect.flip(Effect.scoped(built))
      expect(failure).toMatchObject({ _tag: "InvalidRetryPolicy", option: "layerRedis.cluster" })
      expect(failure.message).toContain("cluster_enabled:1")
    })
  )

  it.live("a cluster option that is not a cluster client fails the layer, naming it", () =>
    Effect.gen(function* () {
      const options: ResilienceStoreRedis.RedisOptions = JSON.parse(
        '{ "cluster": { "url": "redis://127.0.0.1:6379" } }'
      )
      const failure = yield* Effect.flip(
        Effect.scoped(
          Layer.build(
            ResilienceStoreRedis.layerRedis(options).pipe(
              Layer.provide(NodeRedis.layer({ url: cluster.rootNodes[0]!.url }))
            )
          )
        )
      )
      expect(failure).toMatchObject({ _tag: "InvalidRetryPolicy", option: "layerRedis.cluster" })
    })
  )
})
