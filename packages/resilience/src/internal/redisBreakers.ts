// @generated from templates/src/internal/redisBreakers.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The circuit breaker shared across a fleet, opt-in (`shareCircuitBreaker`), local first: each
// process keeps its own breaker (its window, its trip policy, its probes). When one opens by its
// own decision (a failure, a failed probe), the store publishes `open <break> <store> <settings>
// <origin>` in the background, and every other store on the prefix opens its breakers of the
// same settings for that origin, for that break; each then probes on its own. A close is never
// told: each process closes through its own probe. An opening learned this way is not told again,
// and a store ignores its own messages, so nothing echoes.
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import type { Proof, RedisCommands } from "./redisStore.js"
import { monotonicMillis } from "./retryBudgetService.js"

type Breaker = CircuitBreaker.CircuitBreaker.Service

// How many breakers (of distinct options) the store follows, as many as its memory store keeps:
// past it the oldest is no longer told nor telling.
const maxBreakers = 256

/** What the store lends its shared breakers. @internal */
export interface Options {
  readonly commands: RedisCommands
  readonly prefix: string
  /** Listens on a channel as the store does, for the scope's life. */
  readonly listen: (
    channel: string,
    onMessage: (message: string) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Scope.Scope>
  /**
   * A round trip bounded by the store's timeout, that degrades the store when Redis does not
   * answer; what Redis refused, tried again by each probe as `proof` says.
   */
  readonly roundTrip: <A>(
    request: SharedStore.StoreRequest,
    work: Effect.Effect<A, unknown>,
    proof?: Proof
  ) => Effect.Effect<{ readonly value: A } | undefined>
  /** Counts a message on the channel that is no opening, or one past the breakers' cap. */
  readonly rejected: () => Effect.Effect<void>
}

/** One store's following of its breakers, for its scope's life. */
interface Fleet {
  readonly options: Options
  readonly channel: string
  readonly storeId: string
  readonly scope: Scope.Scope
  /** The breakers this store made, with their settings' key: in the order they were made. */
  readonly followed: Map<Breaker, { readonly settingsKey: string; readonly controls: circuitBreakerService.Controls }>
}

const send = (fleet: Fleet, settingsKey: string, origin: string, breakMillis: number) =>
  fleet.options.commands.send("PUBLISH", [
    fleet.channel,
    SharedStore.breakerOpenedMessage({ breakMillis, storeId: fleet.storeId, settingsKey, origin })
  ])

// An opening Redis refused is published again by each probe, for the break it has left: the fleet
// hears it late rather than never. Once the break is over nothing is left to tell, and a PING
// answered ends the episode.
const publish = (fleet: Fleet, settingsKey: string, origin: string, breakMillis: number): Effect.Effect<void> =>
  Effect.clockWith((clock) => {
    const endsAt = monotonicMillis(clock) + breakMillis
    const again = Effect.clockWith((later) => {
      const left = endsAt - monotonicMillis(later)
      return left > 0 ? send(fleet, settingsKey, origin, left) : Effect.void
    })
    const request: SharedStore.StoreRequest = { command: `PUBLISH ${fleet.channel}` }
    return Effect.asVoid(
      Effect.forkIn(
        Effect.interruptible(
          fleet.options.roundTrip(request, send(fleet, settingsKey, origin, breakMillis), {
            name: `breaker ${settingsKey} ${origin}`,
            again
          })
        ),
        fleet.scope
      )
    )
  })

const follow = (fleet: Fleet, breaker: Breaker): void => {
  const { followed } = fleet
  if (followed.has(breaker)) return
  const controls = circuitBreakerService.controlsOf(breaker)
  if (controls === undefined) return
  if (followed.size >= maxBreakers) {
    const oldest = followed.entries().next()
    if (oldest.done !== true) {
      oldest.value[1].controls.setOnOpen(undefined)
      followed.delete(oldest.value[0])
    }
  }
  const settingsKey = SharedStore.settingsKey(JSON.stringify(controls.settings))
  controls.setOnOpen((origin, breakMillis) => publish(fleet, settingsKey, origin, breakMillis))
  followed.set(breaker, { settingsKey, controls })
}

// An opening is applied as the breaker's own would be: `forceOpen` holds the break within the
// breaker's `breakDuration` and `maxBreakDuration`, as a Retry-After hint is held. One longer
// than that cap is counted as cut; a message that is no opening, as dropped.
const onMessage = (fleet: Fleet, message: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const opened = SharedStore.readBreakerOpenedMessage(message)
    if (opened === undefined) return fleet.options.rejected()
    if (opened.storeId === fleet.storeId) return Effect.void
    const breakers = [...fleet.followed.values()].filter((breaker) => breaker.settingsKey === opened.settingsKey)
    const cut = breakers.some((breaker) => opened.breakMillis > breaker.controls.settings.maxBreakDurationMillis)
    return Effect.andThen(
      cut ? fleet.options.rejected() : Effect.void,
      Effect.forEach(breakers, (breaker) => breaker.controls.forceOpen(opened.origin, opened.breakMillis), {
        discard: true
      })
    )
  })

// Closed with the store: its breakers (kept by its memory store) tell no one any more.
const unfollowAll = (fleet: Fleet): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const { controls } of fleet.followed.values()) controls.setOnOpen(undefined)
    fleet.followed.clear()
  })

/**
 * The store's `shareCircuitBreaker`, for the scope's life: the breakers its memory store keeps
 * have their openings published (each forked in the scope, bounded by the store's timeout, never
 * waited for by a call), and the fleet's applied to them.
 *
 * @internal
 */
export const make = (options: Options): Effect.Effect<(breaker: Breaker) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fleet: Fleet = {
      options,
      channel: SharedStore.keysFor(options.prefix).breakerChannel,
      storeId: crypto.randomUUID(),
      scope: yield* Effect.scope,
      followed: new Map()
    }
    yield* options.listen(fleet.channel, (message) => onMessage(fleet, message))
    yield* Effect.addFinalizer(() => unfollowAll(fleet))
    return (breaker) => Effect.sync(() => follow(fleet, breaker))
  })
