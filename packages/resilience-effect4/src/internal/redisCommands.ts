// Effect 4's `Redis` service (`effect/persistence`) as the store's commands.
//
// Commands go on a connection the store reserves from the service's pool (`Redis.reserve`), not
// on the shared client: node-redis queues a shared client's commands while Redis is down, and
// `NodeRedis.layer` closes that client by waiting for its queue, which a Redis that stays down
// never empties, so a program whose store had sent a command then could not end. A reserved
// connection does not reconnect: a command on a dropped one fails at once ("The client is closed",
// never sent), and goes again on a new one, whose failure to connect says why Redis cannot be
// reached (a refused connection, a password it no longer takes, a certificate not trusted).
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Redis from "effect/persistence/Redis"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { RedisCommands } from "./redisStore.js"

interface Held {
  readonly connection: Redis.Connection
  readonly scope: Scope.Closeable
}

/** @internal */
export const make = (redis: Redis.Redis["Service"]): Effect.Effect<RedisCommands, never, Scope.Scope> =>
  Effect.gen(function* () {
    const storeScope = yield* Effect.scope
    // One reservation at a time: concurrent commands share the connection (node-redis pipelines
    // them) rather than each reserving one.
    const reserving = yield* Semaphore.make(1)
    let held: Held | undefined

    const reserve: Effect.Effect<Held, Redis.RedisError> = Effect.gen(function* () {
      const scope = yield* Scope.fork(storeScope)
      const connection = yield* Effect.onError(Scope.provide(redis.reserve, scope), () => Scope.close(scope, Exit.void))
      const reserved = { connection, scope }
      held = reserved
      return reserved
    })
    const connection = reserving.withPermits(1)(
      Effect.suspend(() => (held === undefined ? reserve : Effect.succeed(held)))
    )

    // A connection whose command failed other than by an error reply is gone: it goes back to the
    // pool, which closes it, and the next command reserves another. One whose command did not
    // answer in time is kept: a paused Redis still runs that command when it resumes, which the
    // store counts on, and a closed connection's unread commands would never run.
    const release = (dropped: Held): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (held === dropped) held = undefined
        return Scope.close(dropped.scope, Exit.void)
      })

    // A wrong password is an error reply on a connection that will never be let in: gone too.
    const sendOn = (current: Held, command: string, args: ReadonlyArray<string>) =>
      Effect.tapError(current.connection.send(command, ...args), (error) =>
        SharedStore.errorReplyCode(error) === undefined || SharedStore.failureKind(error) === "authentication"
          ? release(current)
          : Effect.void
      )

    return {
      send: (command, args) =>
        Effect.flatMap(connection, (current) =>
          Effect.catch(sendOn(current, command, args), (error) =>
            SharedStore.neverSent(error)
              ? Effect.flatMap(connection, (fresh) => sendOn(fresh, command, args))
              : Effect.fail(error)
          )
        ),
      subscribe: (channel, onMessage) =>
        // The service reconnects its subscriber and subscribes again by itself; a subscription
        // that fails, or ends, fails its queue, and with it the delivery. One Redis refused
        // (NOPERM), or could not make, has failed its queue before it is handed over: that is the
        // subscription failing, for the store to say why.
        Effect.flatMap(redis.subscribe(channel), (messages) => {
          const first = Queue.takeUnsafe(messages)
          if (first !== undefined && Exit.isFailure(first)) return Effect.failCause(first.cause)
          const delivered = Effect.forever(
            Effect.flatMap(Queue.take(messages), (received) => onMessage(received.message))
          )
          return Effect.succeed(
            first === undefined ? delivered : Effect.andThen(onMessage(first.value.message), delivered)
          )
        })
    } satisfies RedisCommands
  })
