// node-redis (`redis` 5 or later) as the store's commands. The client is typed by what the store
// uses, so the library needs no `redis` types; the package is loaded only when a URL is given.
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as ResilienceStoreRedis from "../ResilienceStoreRedis.js"
import type { RedisCommands } from "./redisStore.js"

type RedisClient = ResilienceStoreRedis.RedisClient

// The last error each client's connection met. node-redis fails a command it cannot send with
// "The client is offline", and tells why only in an 'error' event (a refused connection, a wrong
// password, a certificate it does not trust): the store's warning says that.
const lastErrors = new WeakMap<RedisClient, unknown>()

// The store learns of failures from the commands that fail, and why from the 'error' events; an
// 'error' event nobody listens to would crash the process.
const listened = (client: RedisClient): RedisClient => {
  client.on("error", (error) => {
    lastErrors.set(client, error)
  })
  return client
}

// A client of the store's own, destroyed with the scope.
const owned = (make: () => RedisClient): Effect.Effect<RedisClient, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => listened(make())),
    (client) =>
      Effect.sync(() => {
        // node-redis 5 throws for a client that never opened (6 returns): closed either way.
        try {
          client.destroy()
        } catch {}
      })
  )

// Your client, whose errors the store hears for the scope's life.
const heard = (client: RedisClient): Effect.Effect<RedisClient, never, Scope.Scope> => {
  const onError = (error: Error) => {
    lastErrors.set(client, error)
  }
  return Effect.acquireRelease(
    Effect.sync(() => {
      client.on("error", onError)
      return client
    }),
    () => Effect.sync(() => client.off?.("error", onError))
  )
}

// Connecting waits for Redis (node-redis reconnects on its own): a Redis down at start leaves the
// store degraded, never the program stopped.
const connected = (client: RedisClient): Effect.Effect<void, unknown> =>
  client.isOpen ? Effect.void : Effect.asVoid(Effect.tryPromise(() => client.connect()))

// A subscriber connects, or fails with the first error its connection meets, where node-redis
// would try again and again and the subscription wait: the store says why, and subscribes afresh
// with its probes.
const connectedOrFailed = (client: RedisClient): Effect.Effect<void, unknown> =>
  client.isOpen
    ? Effect.void
    : Effect.async<void, unknown>((resume) => {
        client.on("error", (error) => resume(Effect.fail(error)))
        client.connect().then(
          () => resume(Effect.void),
          (error: unknown) => resume(Effect.fail(error))
        )
      })

// A command, or a subscription, failed as node-redis failed it; one it did not send for want of a
// connection, with why the connection is down.
const attempt = <A>(client: RedisClient, run: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({
    try: run,
    catch: (error) =>
      SharedStore.neverSent(error) ? new SharedStore.NotConnected(error, lastErrors.get(client)) : error
  })

// node-redis by a specifier bundlers leave alone: a browser bundle of the library (Vite, esbuild,
// webpack) must build without `redis`, which only the Redis store loads, on Node.
const nodeRedis = "redis"
const loadNodeRedis = (): Promise<typeof import("redis")> =>
  import(/* @vite-ignore */ /* webpackIgnore: true */ nodeRedis)

const createClient = (url: string | undefined): Effect.Effect<RedisClient, never, Scope.Scope> =>
  Effect.flatMap(
    Effect.orDieWith(
      Effect.tryPromise(loadNodeRedis),
      () => new Error("layerRedis({ url }) needs the `redis` package (node-redis 5 or later): npm install redis")
    ),
    (redis) =>
      owned(() =>
        // Commands fail at once while disconnected, rather than queue without bound.
        redis.createClient({ ...(url === undefined ? {} : { url }), disableOfflineQueue: true })
      )
  )

// A subscription takes a connection of its own, for its scope. node-redis would reconnect it and
// subscribe again by itself, but what was published meanwhile is lost: its first error fails the
// delivery, and the store subscribes afresh (and reads what it missed).
const subscribe =
  (client: RedisClient): RedisCommands["subscribe"] =>
  (channel, onMessage) =>
    Effect.gen(function* () {
      const subscriber = yield* owned(() => client.duplicate())
      const messages = yield* Queue.sliding<string>(1024)
      yield* connectedOrFailed(subscriber)
      yield* attempt(subscriber, () =>
        subscriber.subscribe(channel, (message) => {
          Queue.unsafeOffer(messages, message)
        })
      )
      const dropped = Effect.async<never, Error>((resume) => {
        subscriber.on("error", (error) => resume(Effect.fail(error)))
      })
      const delivered = Effect.forever(Effect.flatMap(Queue.take(messages), onMessage))
      return Effect.raceFirst(delivered, dropped)
    })

/** @internal */
export const make = (options: {
  readonly url?: string | undefined
  readonly client?: RedisClient | undefined
  readonly readyWithinMillis: number
}): Effect.Effect<RedisCommands, never, Scope.Scope> =>
  Effect.gen(function* () {
    const client = options.client === undefined ? yield* createClient(options.url) : yield* heard(options.client)
    if (options.client === undefined) {
      // The store starts once connected, or degraded after `readyWithinMillis`: node-redis goes
      // on trying.
      const connecting = yield* Effect.forkScoped(connected(client))
      yield* Effect.ignore(Effect.timeout(Fiber.join(connecting), Duration.millis(options.readyWithinMillis)))
    }
    return {
      send: (command, args) => attempt(client, () => client.sendCommand([command, ...args])),
      subscribe: subscribe(client)
    } satisfies RedisCommands
  })
