// @generated from templates/src/internal/redisStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// A store on Redis, local first: every answer a call waits for comes from this process's memory
// store, except a retry's, which asks the fleet's budget once (bounded by `timeout`). Deposits
// are batched and flushed every `syncInterval`; a cool-down is written once and published to
// every process, which applies it to its own memory. When Redis fails or is slow, the store says
// so once, goes on with local state, and probes Redis until it answers; then it subscribes
// afresh, reads the cool-downs it may have missed and writes those it could not. What it reads
// from Redis is checked as a local decision would be: a value no process could have written is
// dropped, or cut, and counted. A retry the fleet does not answer in time is decided by this
// process's share of the budget (fleetShares), which never lends again what the fleet lent.
// Breakers stay per process; with `shareCircuitBreaker`, an opening is told to the fleet (see
// redisBreakers).
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import * as metrics from "./metrics.js"
import * as fleetShares from "./fleetShares.js"
import * as redisBreakers from "./redisBreakers.js"
import { makeMemory } from "./resilienceStore.js"
import * as retryBudgetService from "./retryBudgetService.js"
import * as storeTimeout from "./storeTimeout.js"

type Service = ResilienceStore.ResilienceStore.Service

/**
 * What the store needs of a Redis client: each line adapts its own (node-redis on Effect 3,
 * Effect 4's `Redis` service).
 *
 * @internal
 */
export interface RedisCommands {
  /** One command and its reply; fails with whatever the client fails with. */
  readonly send: (command: string, args: ReadonlyArray<string>) => Effect.Effect<unknown, unknown>
  /**
   * Subscribes to a channel for the scope's life. Succeeds with the delivery: an effect that
   * hands each message to `onMessage`, and ends (or fails) once the subscription may have missed
   * messages (its connection dropped, or it ended), so that the store subscribes afresh.
   */
  readonly subscribe: (
    channel: string,
    onMessage: (message: string) => Effect.Effect<void>
  ) => Effect.Effect<Effect.Effect<void, unknown>, unknown, Scope.Scope>
}

/** @internal */
export type Settings = SharedStore.StoreSettings

type Units = ReturnType<typeof SharedStore.finagleUnits>

// What a round trip to Redis came to. `refused`: Redis answered with an error (OOM, WRONGTYPE),
// rather than not at all.
type Reply<A> =
  | { readonly _tag: "Answered"; readonly value: A }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Failed"; readonly refused: boolean }

const answered = <A>(value: A): Reply<A> => ({ _tag: "Answered", value })
const timedOut: Reply<never> = { _tag: "TimedOut" }

/** Whether the Redis store answers: 1 while it does not. @internal */
const degradedGauge = Metric.gauge("http.client.resilience.store.degraded", {
  description: "1 while the shared store (Redis) does not answer and calls go on with this process's state, else 0."
})

/**
 * Values read from Redis that no process of the fleet could have written, by `kind`: dropped
 * (unreadable, out of bounds) or cut (a cool-down longer than a day). @internal
 */
const rejectedValues = Metric.counter("http.client.resilience.store.rejected_values", {
  description:
    "Values read from the shared store (Redis) that were dropped or cut, not applied as read: unreadable, or past what a process could have written ({value}).",
  incremental: true
})

/** What was read: a cool-down of the prefix's set, a cool-down message, a budget bucket, a breaker's opening. @internal */
type RejectedKind = "cool_down_entry" | "cool_down_message" | "budget_bucket" | "breaker_message"

const setDegraded = (value: number) => Metric.set(degradedGauge, value)

const rejected = (kind: RejectedKind, count = 1): Effect.Effect<void> =>
  Metric.incrementBy(Metric.tagged(rejectedValues, "kind", kind), count)

const refused = (origin: string): Effect.Effect<void> =>
  Metric.increment(Metric.taggedWithLabels(metrics.retryBudgetRefusals, metrics.originLabels(origin)))

/**
 * A Redis store over these commands, for the scope's life: its subscription and its flushes
 * end with the scope.
 *
 * @internal
 */
export const make = (commands: RedisCommands, settings: Settings): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const local = makeMemory()
    const keys = SharedStore.keysFor(settings.prefix)
    const health = new SharedStore.Health()
    const pending = new SharedStore.PendingDeposits()
    const scope = yield* Effect.scope
    // Units of each budget key with deposits since the last flush, for the flush.
    const unitsByKey = new Map<string, Units>()
    const shas = new Map<string, string>()
    // Deposits a failed round trip did not deliver, for the next flush.
    const putBack = (key: string, deposits: number, units: Units) => {
      if (deposits === 0) return
      pending.restore(key, deposits)
      unitsByKey.set(key, units)
    }
    // Origins whose cool-down started here may not have reached Redis (the write failed or
    // timed out): written again once the store answers, while they last.
    const unwritten = new Set<string>()
    // The budget key whose script Redis refused last: what a store that Redis refuses tries again.
    let refusedBudget: { readonly key: string; readonly units: Units } | undefined
    // Each subscription's signal to subscribe afresh, given when the store answers again.
    const resubscribes: Array<Queue.Queue<void>> = []

    const loadScript = (script: string): Effect.Effect<string, unknown> =>
      Effect.map(commands.send("SCRIPT", ["LOAD", script]), (sha) => {
        const loaded = String(sha)
        shas.set(script, loaded)
        return loaded
      })

    // Scripts run by EVALSHA; loaded on first use, and again after Redis lost them (a restart,
    // SCRIPT FLUSH, a failover), whatever the client wrapped the NOSCRIPT reply in.
    // `sent` hears each EVALSHA as it goes out: until then, the script has surely not run.
    const evalScript = (
      script: string,
      key: string,
      args: ReadonlyArray<string>,
      sent: () => void = () => {}
    ): Effect.Effect<unknown, unknown> => {
      const run = (loaded: string) =>
        Effect.suspend(() => {
          sent()
          return commands.send("EVALSHA", [loaded, "1", key, ...args])
        })
      const load = Effect.flatMap(loadScript(script), run)
      const sha = shas.get(script)
      if (sha === undefined) return load
      return Effect.catchAll(run(sha), (error) =>
        SharedStore.errorReplyCode(error) === "NOSCRIPT" ? load : Effect.fail(error)
      )
    }

    const degrade = (cause: unknown, refused: boolean): Effect.Effect<void> =>
      Effect.suspend(() =>
        health.failed(refused) === undefined
          ? Effect.void
          : Effect.andThen(
              setDegraded(1),
              Effect.logWarning(
                `ResilienceStore on Redis is degraded (${SharedStore.describeFailure(cause)}): calls go on with this process's state, and ${
                  health.needsWork
                    ? `what Redis refused is tried again in ${settings.syncIntervalMillis} ms, then twice as long after each refusal (at most ${Math.max(settings.syncIntervalMillis, SharedStore.maxProbeIntervalMillis)} ms)`
                    : `Redis is tried again every ${settings.syncIntervalMillis} ms`
                }`
              )
            )
      )

    // Back: sharing resumes, the subscriptions start afresh (each then reads the cool-downs in
    // force, those published while it was cut off among them), and the cool-downs Redis may not
    // have taken are written again.
    const resume: Effect.Effect<void> = Effect.suspend(() =>
      health.answered() === undefined
        ? Effect.void
        : Effect.all(
            [
              setDegraded(0),
              Effect.logInfo("ResilienceStore on Redis answers again: sharing resumed"),
              Effect.forEach(resubscribes, (signal) => Queue.offer(signal, undefined), { discard: true }),
              Effect.forkIn(rewrite, scope)
            ],
            { discard: true }
          )
    )

    // A round trip bounded by the timeout. No answer in time is told apart from a failure: a
    // command that timed out may still run (a paused Redis runs it when it resumes). An answer
    // ends an episode in which Redis did not answer; one in which it refused work ends only when
    // that work goes through (`probe`): a Redis that answers PING and refuses the store's scripts
    // (OOM, a key of the wrong type) is not back. `refusals: false`: the round trip is a PING,
    // whose error reply (Redis loading, or wanting a password) says nothing of the work.
    const exchange = <A>(
      request: Effect.Effect<A, unknown>,
      options: { readonly resumes?: boolean; readonly refusals?: boolean } = {}
    ): Effect.Effect<Reply<A>> => {
      const onAnswer = (value: A) =>
        Effect.as(options.resumes === false || health.needsWork ? Effect.void : resume, answered(value))
      const onFailure = (failure: unknown): Effect.Effect<Reply<A>> => {
        if (failure === undefined) return Effect.as(degrade(failure, false), timedOut)
        const refusal = options.refusals !== false && SharedStore.errorReplyCode(failure) !== undefined
        return Effect.as(degrade(failure, refusal), { _tag: "Failed", refused: refusal })
      }
      return Effect.flatMap(Effect.either(storeTimeout.within(request, settings.timeoutMillis)), (answer) =>
        Either.isRight(answer) ? onAnswer(answer.right) : onFailure(answer.left)
      )
    }

    // The answer, or `undefined` when Redis failed or was too slow.
    const roundTrip = <A>(request: Effect.Effect<A, unknown>): Effect.Effect<{ readonly value: A } | undefined> =>
      Effect.map(exchange(request), (reply) => (reply._tag === "Answered" ? reply : undefined))

    // Sends deposits with the budget script. They go back to the batch when Redis surely did not
    // count them (the command failed, or no answer came before the script was even sent); once
    // sent without an answer in time they may have been counted (a paused Redis runs it when it
    // resumes), and the fleet must never count them twice: dropped, which can only make its
    // budget smaller. Buckets the script dropped as no process's are counted.
    const sendDeposits = (
      key: string,
      deposits: number,
      units: Units,
      retry: boolean,
      resumes = true
    ): Effect.Effect<Reply<ReturnType<typeof SharedStore.readBudgetAnswer>>> =>
      Effect.suspend(() => {
        let sent = false
        const script = evalScript(
          SharedStore.budgetScript,
          key,
          [
            String(deposits),
            String(units.windowSeconds),
            String(units.withdrawal),
            String(units.reserve),
            retry ? "1" : "0",
            String(units.mostPerBucket),
            String(units.leastPerBucket)
          ],
          () => {
            sent = true
          }
        )
        return Effect.flatMap(exchange(script, { resumes }), (reply) => {
          if (reply._tag === "Answered") {
            const answer = SharedStore.readBudgetAnswer(reply.value)
            const counted =
              answer !== undefined && answer.rejected > 0 ? rejected("budget_bucket", answer.rejected) : Effect.void
            return Effect.as(counted, answered(answer))
          }
          return Effect.sync(() => {
            if (reply._tag === "Failed" || !sent) putBack(key, deposits, units)
            if (reply._tag === "Failed" && reply.refused) refusedBudget = { key, units }
            return reply
          })
        })
      })

    // A cool-down another process published, checked as a stored one is.
    const applyCoolDownMessage = (message: string): Effect.Effect<void> => {
      const coolDown = SharedStore.readCoolDownMessage(message)
      if (coolDown === undefined) return rejected("cool_down_message")
      return Effect.andThen(
        coolDown.millis > CoolDown.maxMillis ? rejected("cool_down_message") : Effect.void,
        local.coolDown(coolDown.origin, coolDown.millis)
      )
    }

    // Cool-downs in force when this process (re)joins: published before it listened. One read
    // of the prefix's sorted set, on Redis's clock; no SCAN, so nothing is found by pattern and
    // a cluster answers it from the prefix's one slot. An entry no process could have written
    // (unreadable, or past a day) is counted; one past a day is cut to a day, as a local 429's.
    const readCoolDowns: Effect.Effect<void, unknown> = Effect.flatMap(
      evalScript(SharedStore.readCoolDownsScript, keys.coolDowns, []),
      (answer) => {
        const coolDowns = SharedStore.readCoolDownsAnswer(answer)
        const unreadable = (Array.isArray(answer) ? Math.ceil(answer.length / 2) : 1) - coolDowns.length
        return Effect.andThen(
          unreadable > 0 ? rejected("cool_down_entry", unreadable) : Effect.void,
          Effect.forEach(
            coolDowns,
            ({ origin, millis }) =>
              Effect.andThen(
                millis > CoolDown.maxMillis ? rejected("cool_down_entry") : Effect.void,
                local.coolDown(origin, millis)
              ),
            { discard: true }
          )
        )
      }
    )

    // Writes and publishes this process's cool-down; one Redis may not have taken is kept, to
    // be written again once the store answers (the script lengthens, never shortens, so writing
    // one twice does no harm).
    const writeCoolDown = (origin: string, millis: number, resumes = true): Effect.Effect<Reply<unknown>> =>
      Effect.tap(
        exchange(
          evalScript(SharedStore.coolDownScript, keys.coolDowns, [String(Math.ceil(millis)), keys.channel, origin]),
          { resumes }
        ),
        (reply) =>
          Effect.sync(() => {
            if (reply._tag !== "Answered" && unwritten.size < CoolDown.maxOrigins) unwritten.add(origin)
          })
      )

    // The cool-downs kept unwritten, those still in force, written again.
    const rewriteWith = (resumes: boolean): Effect.Effect<Array<Reply<unknown>>> =>
      Effect.suspend(() => {
        const origins = [...unwritten]
        unwritten.clear()
        return Effect.flatMap(
          Effect.forEach(origins, (origin) =>
            Effect.map(local.coolDownLeft(origin), (left) => [origin, left] as const)
          ),
          (lefts) =>
            Effect.forEach(
              lefts.filter(([, left]) => left > 0),
              ([origin, left]) => writeCoolDown(origin, left, resumes)
            )
        )
      })
    const rewrite: Effect.Effect<void> = Effect.asVoid(rewriteWith(true))

    const budgetKeyOf = (settings: RetryBudget.Settings) =>
      SharedStore.settingsKey(JSON.stringify(retryBudgetService.toCoreSettings(settings)))

    const sharedBudget = (
      settings: RetryBudget.Settings,
      own: RetryBudget.RetryBudget.Service
    ): RetryBudget.RetryBudget.Service => {
      const core = retryBudgetService.toCoreSettings(settings)
      // Only Finagle's budget is a ratio of requests that a fleet can add up; the others stay
      // per process.
      if (core._tag !== "Finagle") return own
      const units = SharedStore.finagleUnits(core)
      const settingsKey = budgetKeyOf(settings)
      // Each origin's key built once (bounded): a call's deposit builds no string.
      const keyByOrigin = new Map<string, string>()
      const keyOf = (origin: string): string => {
        let key = keyByOrigin.get(origin)
        if (key === undefined) {
          if (keyByOrigin.size >= 1024) keyByOrigin.clear()
          key = keys.budget(settingsKey, origin)
          keyByOrigin.set(origin, key)
        }
        return key
      }
      // This process's share: what decides when the fleet does not answer in time.
      const shares = fleetShares.make(core)
      const deposit = (origin: string): void => {
        const key = keyOf(origin)
        if (pending.add(key, units.deposit)) unitsByKey.set(key, units)
      }
      const tryAlone = (origin: string, kind: RetryBudget.FailureKind) =>
        Effect.flatMap(shares.tryRetry(origin, kind), (allowed) =>
          allowed ? Effect.succeed(true) : Effect.as(refused(origin), false)
        )
      const ask = (origin: string, retry: boolean) =>
        Effect.suspend(() => {
          const key = keyOf(origin)
          const deposits = pending.take(key)
          return Effect.map(sendDeposits(key, deposits, units, retry), (reply) =>
            reply._tag === "Answered" ? reply.value : undefined
          )
        })
      const shared: RetryBudget.RetryBudget.Service = {
        settings: own.settings,
        onRequest: (origin) =>
          Effect.andThen(
            shares.onRequest(origin),
            Effect.sync(() => deposit(origin))
          ),
        onFailure: own.onFailure,
        onSuccess: own.onSuccess,
        // Whether the store is degraded is read when the effect runs, not when it is made: an
        // effect kept and run again follows the store.
        tryRetry: (origin, kind) =>
          Effect.suspend(() =>
            health.degraded
              ? tryAlone(origin, kind)
              : Effect.flatMap(ask(origin, true), (fleet) => {
                  if (fleet === undefined) return tryAlone(origin, kind)
                  return Effect.as(
                    Effect.andThen(shares.heard(origin, fleet, true), fleet.allowed ? Effect.void : refused(origin)),
                    fleet.allowed
                  )
                })
          ),
        balance: (origin) =>
          Effect.suspend(() =>
            health.degraded
              ? shares.balance(origin)
              : Effect.flatMap(ask(origin, false), (fleet) => {
                  if (fleet === undefined) return shares.balance(origin)
                  return Effect.as(
                    shares.heard(origin, fleet, false),
                    Math.max(0, Math.trunc(fleet.balance / units.withdrawal))
                  )
                })
          )
      }
      // The attempt loop's synchronous face, as the memory budget has: a call that goes well
      // then costs no Effect of the budget's, and a retry still asks the fleet.
      const ownSync = retryBudgetService.syncBudgets.get(own)
      if (ownSync !== undefined) {
        retryBudgetService.syncBudgets.set(shared, {
          ...ownSync,
          retriesAskService: true,
          stateFor: shares.shareOf,
          onRequest: (origin, nowMillis) => {
            shares.shareOf(origin, nowMillis).onRequest(nowMillis)
            deposit(origin)
          }
        })
      }
      return shared
    }

    // One shared budget per budget of the memory store, which keeps at most 256 settings.
    const budgets = new WeakMap<RetryBudget.RetryBudget.Service, RetryBudget.RetryBudget.Service>()

    // The deposits since the last flush, each key with its units.
    const takeBatch = (): Array<readonly [string, number, Units]> => {
      const batch = pending.drain()
      // Units of the keys in this batch only: the table holds no more keys than one interval's.
      const unitsOf = new Map(unitsByKey)
      unitsByKey.clear()
      return batch.flatMap(([key, deposits]) => {
        const units = unitsOf.get(key)
        return units === undefined ? [] : [[key, deposits, units] as const]
      })
    }

    // Deposits reach Redis in batches; with none to send, a PING, so that a store that sends
    // nothing still learns that Redis went away (and its subscriptions with it).
    const flush: Effect.Effect<void> = Effect.suspend(() => {
      const batch = takeBatch()
      if (batch.length === 0) return Effect.asVoid(exchange(commands.send("PING", []), { refusals: false }))
      return Effect.forEach(batch, ([key, deposits, units]) => sendDeposits(key, deposits, units, false), {
        discard: true
      })
    })

    // While degraded: is Redis back? It is when a PING answers, unless it refused work in this
    // episode: then that work (the deposits since, the budget key it refused, the cool-downs it
    // did not take) must go through too, or the store would take a Redis that answers PING and
    // refuses the rest (OOM, a key of the wrong type) as back, and flap.
    const probe: Effect.Effect<void> = Effect.gen(function* () {
      const ping = yield* exchange(commands.send("PING", []), { resumes: false, refusals: false })
      if (ping._tag !== "Answered") return
      if (!health.needsWork) return yield* resume
      const batch = takeBatch()
      const again = refusedBudget
      const work: Array<Effect.Effect<Reply<unknown>>> = batch.map(([key, deposits, units]) =>
        sendDeposits(key, deposits, units, false, false)
      )
      if (again !== undefined && !batch.some(([key]) => key === again.key)) {
        work.push(sendDeposits(again.key, 0, again.units, false, false))
      }
      const replies = [...(yield* Effect.all(work)), ...(yield* rewriteWith(false))]
      if (replies.every((reply) => reply._tag === "Answered")) {
        refusedBudget = undefined
        return yield* resume
      }
      if (replies.some((reply) => reply._tag === "TimedOut" || (reply._tag === "Failed" && reply.refused))) {
        health.workFailedAgain()
      }
    })

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.andThen(
          Effect.suspend(() => (health.degraded ? probe : flush)),
          Effect.suspend(() =>
            Effect.sleep(
              Duration.millis(
                health.degraded ? health.probeDelayMillis(settings.syncIntervalMillis) : settings.syncIntervalMillis
              )
            )
          )
        )
      )
    )

    // Listens on a channel for the scope's life, then runs `then`; subscribes afresh, and runs
    // `then` again, whenever the subscription may have missed messages (its delivery ended) and
    // whenever the store answers again after an episode, tried every `syncInterval` until it
    // holds. The store is ready once the first subscription and its `then` are done, or after
    // `readyWithinMillis`.
    const listen = (
      channel: string,
      onMessage: (message: string) => Effect.Effect<void>,
      then: Effect.Effect<void> = Effect.void
    ): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function* () {
        const resubscribe = yield* Queue.sliding<void>(1)
        resubscribes.push(resubscribe)
        const ready = yield* Deferred.make<void>()
        const subscribed = Effect.scoped(
          Effect.gen(function* () {
            // A signal given before this subscription is answered by it.
            yield* Queue.poll(resubscribe)
            const delivery = yield* commands.subscribe(channel, onMessage)
            yield* then
            yield* Deferred.succeed(ready, undefined)
            yield* Effect.raceFirst(delivery, Queue.take(resubscribe))
          })
        )
        yield* Effect.forkScoped(
          Effect.forever(Effect.catchAll(subscribed, () => Effect.sleep(Duration.millis(settings.syncIntervalMillis))))
        )
        yield* Effect.ignore(
          Effect.timeout(Deferred.await(ready), Duration.millis(SharedStore.readyWithinMillis(settings)))
        )
      })

    // Other processes' cool-downs, applied to this process's memory, and those in force (read
    // again after each subscription: what was published while it was down); and the budget's
    // script loaded, so that a retry's first question to the fleet is one round trip within its
    // timeout, not two.
    yield* listen(
      keys.channel,
      applyCoolDownMessage,
      Effect.andThen(
        Effect.ignore(Effect.timeout(readCoolDowns, Duration.millis(SharedStore.readyWithinMillis(settings)))),
        Effect.ignore(loadScript(SharedStore.budgetScript))
      )
    )
    // Publish this process's cool-downs in the background: the call that met the 429 waits on
    // its own memory, never on Redis.
    // In flight until written; a store that closes (a program that ends right after a 429)
    // waits for them, at most `timeout`, so that its last cool-downs still reach the fleet.
    const publishing = new Set<Fiber.Fiber<unknown>>()
    yield* Effect.addFinalizer(() =>
      Effect.andThen(
        Effect.ignore(Effect.timeout(Fiber.awaitAll([...publishing]), Duration.millis(settings.timeoutMillis))),
        Fiber.interruptAll([...publishing])
      )
    )
    const publishCoolDown = (origin: string, millis: number) =>
      Effect.flatMap(Effect.forkDaemon(writeCoolDown(origin, millis)), (fiber) =>
        Effect.sync(() => {
          publishing.add(fiber)
          fiber.addObserver(() => {
            publishing.delete(fiber)
          })
        })
      )

    const circuitBreaker = settings.shareCircuitBreaker
      ? yield* redisBreakers.make({
          prefix: settings.prefix,
          commands,
          roundTrip,
          listen,
          rejected: () => rejected("breaker_message"),
          local: local.circuitBreaker
        })
      : local.circuitBreaker

    return {
      retryBudget: (settings) => {
        const own = local.retryBudget(settings)
        let budget = budgets.get(own)
        if (budget === undefined) {
          budget = sharedBudget(settings, own)
          budgets.set(own, budget)
        }
        return budget
      },
      circuitBreaker,
      // A day at most, here and for the fleet, as the memory store keeps it.
      coolDown: (origin, millis) =>
        Effect.andThen(
          local.coolDown(origin, millis),
          Effect.asVoid(publishCoolDown(origin, Math.min(millis, CoolDown.maxMillis)))
        ),
      coolDownLeft: local.coolDownLeft
    } satisfies Service
  })
