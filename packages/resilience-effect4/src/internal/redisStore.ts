// @generated from templates/src/internal/redisStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// A store on Redis, local first: every answer a call waits for comes from this process's memory
// store, except a retry's, which asks the fleet's budget once (bounded by `timeout`). Deposits
// are batched and flushed every `syncInterval`; a cool-down is written once and published to
// every process, which applies it to its own memory. When Redis fails or is slow, the store says
// so once, goes on with local state, and probes Redis every `syncInterval` until it answers; a
// retry then decides with this process's share of the budget (fleetShares), which never lends
// again what the fleet lent.
// Breakers stay per process; with `shareCircuitBreaker`, an opening is told to the fleet (see
// redisBreakers).
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as TransportFailure from "@effect-http-resilience/core/TransportFailure"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
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
  /** Hands each message of a channel to `onMessage` for as long as the scope is open. */
  readonly subscribe: (
    channel: string,
    onMessage: (message: string) => Effect.Effect<void>
  ) => Effect.Effect<void, unknown, Scope.Scope>
}

/** @internal */
export type Settings = SharedStore.StoreSettings

// What a round trip to Redis came to.
type Reply<A> =
  | { readonly _tag: "Answered"; readonly value: A }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Failed" }

const answered = <A>(value: A): Reply<A> => ({ _tag: "Answered", value })
const timedOut: Reply<never> = { _tag: "TimedOut" }
const failed: Reply<never> = { _tag: "Failed" }

/** Whether the Redis store answers: 1 while it does not. @internal */
export const degradedGauge = Metric.gauge("http.client.resilience.store.degraded", {
  description: "1 while the shared store (Redis) does not answer and calls go on with this process's state, else 0."
})

const setDegraded = (value: number) => Metric.update(degradedGauge, value)

const refused = (origin: string): Effect.Effect<void> =>
  Metric.update(Metric.withAttributes(metrics.retryBudgetRefusals, metrics.originAttributes(origin)), 1)

// Redis's NOSCRIPT reply, whatever the client wrapped it in (Effect 3: an UnknownException of
// Effect.tryPromise; Effect 4: a RedisError).
const scriptLost = (error: unknown): boolean =>
  TransportFailure.someCause(error, (link) => "message" in link && String(link.message).startsWith("NOSCRIPT"))

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : cause === undefined ? "no answer in time" : String(cause)

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
    // Units of each budget key with deposits since the last flush, for the flush.
    const unitsByKey = new Map<string, ReturnType<typeof SharedStore.finagleUnits>>()
    const shas = new Map<string, string>()
    // Deposits a failed round trip did not deliver, for the next flush.
    const putBack = (key: string, deposits: number, units: ReturnType<typeof SharedStore.finagleUnits>) => {
      if (deposits === 0) return
      pending.restore(key, deposits)
      unitsByKey.set(key, units)
    }

    const loadScript = (script: string): Effect.Effect<string, unknown> =>
      Effect.map(commands.send("SCRIPT", ["LOAD", script]), (sha) => {
        const loaded = String(sha)
        shas.set(script, loaded)
        return loaded
      })

    // Scripts run by EVALSHA; loaded on first use, and again after Redis lost them (a restart,
    // SCRIPT FLUSH).
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
      return Effect.catch(run(sha), (error) => (scriptLost(error) ? load : Effect.fail(error)))
    }

    const degrade = (cause: unknown): Effect.Effect<void> =>
      health.failed() === undefined
        ? Effect.void
        : Effect.andThen(
            setDegraded(1),
            Effect.logWarning(
              `ResilienceStore on Redis is degraded (${describe(cause)}): calls go on with this process's state, and Redis is tried again every ${settings.syncIntervalMillis} ms`
            )
          )

    // A round trip bounded by the timeout. No answer in time is told apart from a failure: a
    // command that timed out may still run (a paused Redis runs it when it resumes).
    const exchange = <A>(request: Effect.Effect<A, unknown>): Effect.Effect<Reply<A>> =>
      Effect.flatMap(Effect.result(storeTimeout.within(request, settings.timeoutMillis)), (answer) =>
        Result.isSuccess(answer)
          ? Effect.as(resumed, answered(answer.success))
          : Effect.as(degrade(answer.failure), answer.failure === undefined ? timedOut : failed)
      )

    // The answer, or `undefined` when Redis failed or was too slow.
    const roundTrip = <A>(request: Effect.Effect<A, unknown>): Effect.Effect<{ readonly value: A } | undefined> =>
      Effect.map(exchange(request), (reply) => (reply._tag === "Answered" ? reply : undefined))

    // Sends deposits with the budget script. They go back to the batch when Redis surely did not
    // count them (the command failed, or no answer came before the script was even sent); once
    // sent without an answer in time they may have been counted (a paused Redis runs it when it
    // resumes), and the fleet must never count them twice: dropped, which can only make its
    // budget smaller.
    const sendDeposits = (
      key: string,
      deposits: number,
      units: ReturnType<typeof SharedStore.finagleUnits>,
      retry: boolean
    ): Effect.Effect<Reply<unknown>> =>
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
            retry ? "1" : "0"
          ],
          () => {
            sent = true
          }
        )
        return Effect.tap(exchange(script), (reply) =>
          reply._tag === "Failed" || (reply._tag === "TimedOut" && !sent)
            ? Effect.sync(() => putBack(key, deposits, units))
            : Effect.void
        )
      })

    // Cool-downs in force when this process (re)joins: published before it listened. One read
    // of the prefix's sorted set, on Redis's clock; no SCAN, so nothing is found by pattern and
    // a cluster answers it from the prefix's one slot.
    const readCoolDowns: Effect.Effect<void, unknown> = Effect.flatMap(
      evalScript(SharedStore.readCoolDownsScript, keys.coolDowns, []),
      (answer) =>
        Effect.forEach(
          SharedStore.readCoolDownsAnswer(answer),
          ({ origin, millis }) => local.coolDown(origin, millis),
          {
            discard: true
          }
        )
    )

    const resumed: Effect.Effect<void> = Effect.suspend(() =>
      health.answered() === undefined
        ? Effect.void
        : Effect.andThen(
            setDegraded(0),
            Effect.andThen(
              Effect.logInfo("ResilienceStore on Redis answers again: sharing resumed"),
              Effect.ignore(readCoolDowns)
            )
          )
    )

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
            reply._tag === "Answered" ? { value: SharedStore.readBudgetAnswer(reply.value) } : undefined
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
        tryRetry: (origin, kind) =>
          health.degraded
            ? tryAlone(origin, kind)
            : Effect.flatMap(ask(origin, true), (answer) => {
                const fleet = answer?.value
                if (fleet === undefined) return tryAlone(origin, kind)
                return Effect.as(
                  Effect.andThen(shares.heard(origin, fleet, true), fleet.allowed ? Effect.void : refused(origin)),
                  fleet.allowed
                )
              }),
        balance: (origin) =>
          health.degraded
            ? shares.balance(origin)
            : Effect.flatMap(ask(origin, false), (answer) => {
                const fleet = answer?.value
                if (fleet === undefined) return shares.balance(origin)
                return Effect.as(
                  shares.heard(origin, fleet, false),
                  Math.max(0, Math.trunc(fleet.balance / units.withdrawal))
                )
              })
      }
      return shared
    }

    // One shared budget per budget of the memory store, which keeps at most 256 settings.
    const budgets = new WeakMap<RetryBudget.RetryBudget.Service, RetryBudget.RetryBudget.Service>()

    // Deposits reach Redis in batches; while degraded the flush is the probe that finds it back.
    const flush: Effect.Effect<void> = Effect.suspend(() => {
      if (health.degraded) return Effect.asVoid(roundTrip(commands.send("PING", [])))
      const batch = pending.drain()
      // Units of the keys in this batch only: the table holds no more keys than one interval's.
      const unitsOf = new Map(unitsByKey)
      unitsByKey.clear()
      return Effect.forEach(
        batch,
        ([key, deposits]) => {
          const units = unitsOf.get(key)
          if (units === undefined) return Effect.void
          return Effect.asVoid(sendDeposits(key, deposits, units, false))
        },
        { discard: true }
      )
    })
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.millis(settings.syncIntervalMillis))))

    // Listens on a channel, tried again every `syncInterval` until it holds, then runs `then`.
    // The store is ready once both are done, or after `readyWithinMillis`.
    const listen = (
      channel: string,
      onMessage: (message: string) => Effect.Effect<void>,
      then: Effect.Effect<void> = Effect.void
    ): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function* () {
        const listening = yield* Effect.forkScoped(
          Effect.andThen(
            Effect.retry(
              commands.subscribe(channel, onMessage),
              Schedule.spaced(Duration.millis(settings.syncIntervalMillis))
            ),
            then
          )
        )
        yield* Effect.ignore(
          Effect.timeout(Fiber.join(listening), Duration.millis(SharedStore.readyWithinMillis(settings)))
        )
      })

    // Other processes' cool-downs, applied to this process's memory, and those in force; and the
    // budget's script loaded, so that a retry's first question to the fleet is one round trip
    // within its timeout, not two.
    yield* listen(
      keys.channel,
      (message) => {
        const coolDown = SharedStore.readCoolDownMessage(message)
        return coolDown === undefined ? Effect.void : local.coolDown(coolDown.origin, coolDown.millis)
      },
      Effect.andThen(Effect.ignore(readCoolDowns), Effect.ignore(loadScript(SharedStore.budgetScript)))
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
      Effect.flatMap(
        Effect.forkDetach(
          roundTrip(
            evalScript(SharedStore.coolDownScript, keys.coolDowns, [String(Math.ceil(millis)), keys.channel, origin])
          )
        ),
        (fiber) =>
          Effect.sync(() => {
            publishing.add(fiber)
            fiber.addObserver(() => {
              publishing.delete(fiber)
            })
          })
      )

    const circuitBreaker = settings.shareCircuitBreaker
      ? yield* redisBreakers.make({ prefix: settings.prefix, commands, roundTrip, listen, local: local.circuitBreaker })
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
      coolDown: (origin, millis) =>
        Effect.andThen(local.coolDown(origin, millis), Effect.asVoid(publishCoolDown(origin, millis))),
      coolDownLeft: local.coolDownLeft
    } satisfies Service
  })
