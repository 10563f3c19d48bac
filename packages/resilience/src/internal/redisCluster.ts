// @generated from templates/src/internal/redisCluster.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// A node-redis cluster client (`createCluster()`) as the store's commands. Every command goes
// with the prefix's hash tag as its routing key, so to the one master that holds the prefix's
// keys: the scripts it loads are where they run, and its late-joiner read needs no scan of every
// master. A PUBLISH there reaches the subscribers of every node (the cluster bus carries it).
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as ResilienceStoreRedis from "../ResilienceStoreRedis.js"
import type { RedisCommands } from "./redisStore.js"

// An unsubscribe waits for the pub/sub connection, which a cluster that is down never gives:
// past this, the listener is left to the cluster (the user's) rather than hang the scope's close.
const unsubscribeWithin = Duration.seconds(1)

/** @internal */
export const make = (cluster: ResilienceStoreRedis.RedisClusterClient, slot: string): RedisCommands => ({
  send: (command, args) => Effect.tryPromise(() => cluster.sendCommand(slot, false, [command, ...args])),
  // Through the cluster's own pub/sub connection (node-redis keeps it apart from the commands'),
  // let go of when the scope closes: the cluster is the user's. node-redis subscribes again after
  // a reconnect by itself, but what was published meanwhile is lost: a node's error (each of its
  // connections', the pub/sub one included) ends the delivery, and the store subscribes afresh
  // and reads what it missed.
  subscribe: (channel, onMessage) =>
    Effect.gen(function* () {
      const messages = yield* Queue.sliding<string>(1024)
      // Messages come as strings (no buffer mode is asked for); bytes would be UTF-8.
      const listener = (message: string | Uint8Array) => {
        Queue.unsafeOffer(messages, typeof message === "string" ? message : new TextDecoder().decode(message))
      }
      yield* Effect.acquireRelease(
        Effect.tryPromise(() => cluster.subscribe(channel, listener)),
        () =>
          Effect.ignore(
            Effect.timeout(
              Effect.tryPromise(() => cluster.unsubscribe(channel, listener)),
              unsubscribeWithin
            )
          )
      )
      const dropped = Effect.async<never, unknown>((resume) => {
        const onError = (error: unknown) => resume(Effect.fail(error))
        cluster.on("node-error", onError)
        return Effect.sync(() => cluster.off("node-error", onError))
      })
      const delivered = Effect.forever(Effect.flatMap(Queue.take(messages), onMessage))
      return Effect.raceFirst(delivered, dropped)
    })
})
