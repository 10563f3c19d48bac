// @generated from templates/src/internal/redisCluster.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// A node-redis cluster client (`createCluster()`) as the store's commands. Every command goes
// with the prefix's hash tag as its routing key, so to the one master that holds the prefix's
// keys: the scripts it loads are where they run, and its late-joiner read needs no scan of every
// master. A PUBLISH there reaches the subscribers of every node (the cluster bus carries it).
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as ResilienceStoreRedis from "../ResilienceStoreRedis.js"
import type { RedisCommands } from "./redisStore.js"

/** @internal */
export const make = (cluster: ResilienceStoreRedis.RedisClusterClient, slot: string): RedisCommands => ({
  send: (command, args) => Effect.tryPromise(() => cluster.sendCommand(slot, false, [command, ...args])),
  // Through the cluster's own pub/sub connection (node-redis keeps it apart from the commands'),
  // let go of when the scope closes: the cluster is the user's. node-redis subscribes again
  // after a reconnect by itself, so the delivery never ends.
  subscribe: (channel, onMessage) =>
    Effect.gen(function* () {
      const messages = yield* Queue.sliding<string>(1024)
      // Messages come as strings (no buffer mode is asked for); bytes would be UTF-8.
      const listener = (message: string | Uint8Array) => {
        Queue.offerUnsafe(messages, typeof message === "string" ? message : new TextDecoder().decode(message))
      }
      yield* Effect.acquireRelease(
        Effect.tryPromise(() => cluster.subscribe(channel, listener)),
        () => Effect.ignore(Effect.tryPromise(() => cluster.unsubscribe(channel, listener)))
      )
      return Effect.forever(Effect.flatMap(Queue.take(messages), onMessage))
    })
})
