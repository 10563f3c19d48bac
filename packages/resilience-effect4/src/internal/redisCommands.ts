// Effect 4's `Redis` service (`effect/persistence`) as the store's commands.
import * as Effect from "effect/Effect"
import type * as Redis from "effect/persistence/Redis"
import * as Queue from "effect/Queue"
import type { RedisCommands } from "./redisStore.js"

/** @internal */
export const make = (redis: Redis.Redis["Service"]): RedisCommands => ({
  send: (command, args) => redis.send(command, ...args),
  subscribe: (channel, onMessage) =>
    Effect.flatMap(redis.subscribe(channel), (messages) =>
      Effect.asVoid(
        Effect.forkScoped(
          Effect.forever(Effect.flatMap(Queue.take(messages), (received) => onMessage(received.message)))
        )
      )
    )
})
