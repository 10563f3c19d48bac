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
// redisBreakers). A subscription Redis refuses or drops is an episode as a failed command is: the
// process would not hear the fleet, and the store says so, and subscribes afresh with each probe.
// An episode in which Redis refused work ends only once each kind of work it refused goes through
// (`proofs`), whatever the command: a Redis that answers PING and refuses a PUBLISH is not back.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Metric from "effect/Metric"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import * as fleetShares from "./fleetShares.js"
import * as redisBreakers from "./redisBreakers.js"
import * as rateLimitMemory from "./rateLimit.js"
import * as redisRateLimit from "./redisRateLimit.js"
import { makeMemory } from "./resilienceStore.js"
import * as retryBudgetService from "./retryBudgetService.js"
import * as line from "./line.js"
import * as storeTimeout from "./storeTimeout.js"

type Service = ResilienceStore.ResilienceStore.Service

/**
 * What the store needs of a Redis client: each line adapts its own (node-redis on Effect 3,
 * Effect 4's `Redis` service).
 *
 * @internal
 */
export interface RedisCommands {
  /**
   * One command and its reply; fails with whatever the client fails with (a command it never sent
   * for want of a connection as a `SharedStore.NotConnected`, with the connection's last error).
   */
  readonly send: (command: string, args: ReadonlyArray<string>) => Effect.Effect<unknown, unknown>
  /**
   * Subscribes to a channel for the scope's life; fails when Redis refuses the subscription
   * (`NOPERM`) or cannot be reached. Succeeds with the delivery: an effect that hands each message
   * to `onMessage`, and ends (or fails) once the subscription may have missed messages (its
   * connection dropped, or it ended), so that the store subscribes afresh.
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
const isAnswered = (reply: Reply<unknown>): boolean => reply._tag === "Answered"

const ping: SharedStore.StoreRequest = { command: "PING" }
const running = (script: string): SharedStore.StoreRequest => ({ command: "EVALSHA", script })

/**
 * Work Redis refused, to be tried again by each probe until it goes through: its name, and the
 * work (a harmless run of the same commands, when the work itself has ended). @internal
 */
export interface Proof {
  readonly name: string
  readonly again: Effect.Effect<unknown, unknown>
}

/** A subscription of the store's, which the probe and the end of an episode ask to subscribe afresh. */
interface Listener {
  readonly channel: string
  /** Requests to subscribe afresh, each answered with whether the subscription then holds. */
  readonly requests: Queue.Queue<Deferred.Deferred<boolean>>
  /** Whether a probe made it subscribe afresh in this episode: its end need not ask it again. */
  fresh: boolean
}

/** Whether the Redis store is degraded: 1 while Redis does not answer, or refuses its commands. @internal */
const degradedGauge = Metric.gauge("http.client.resilience.store.degraded", {
  description:
    "1 while the shared store (Redis) does not answer or refuses its commands and calls go on with this process's state, else 0."
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
type RejectedKind =
  | "cool_down_entry"
  | "cool_down_message"
  | "budget_bucket"
  | "breaker_message"
  // The rate limit's (see redisRateLimit): a bucket, a block's message or entry.
  | "rate_limit_bucket"
  | "rate_limit_block"

const setDegraded = (value: number) => Metric.update(degradedGauge, value)

const rejected = (kind: RejectedKind, count = 1): Effect.Effect<void> =>
  line.update(rejectedValues, count, line.attributesOf({ kind }))

/** One Redis store's state, for its scope's life, shared by the functions below. */
interface Store {
  readonly commands: RedisCommands
  readonly settings: Settings
  /** This process's own state: every answer a call waits for but a retry's comes from it. */
  readonly local: Service
  readonly keys: ReturnType<typeof SharedStore.keysFor>
  readonly health: SharedStore.Health
  readonly pending: SharedStore.PendingDeposits
  readonly scope: Scope.Scope
  /** Units of each budget key with deposits since the last flush, for the flush. */
  readonly unitsByKey: Map<string, Units>
  readonly shas: Map<string, string>
  /**
   * Origins whose cool-down started here may not have reached Redis (the write failed or timed
   * out): written again once the store answers, while they last; `true` for one Redis refused,
   * written again (for 1 ms once it has ended) until Redis takes it.
   */
  readonly unwritten: Map<string, boolean>
  /** What Redis refused in this episode, by name: each probe tries it again, until it goes through. */
  readonly proofs: Map<string, Effect.Effect<boolean>>
  /** Each subscription, asked to subscribe afresh when an episode ends. */
  readonly listeners: Array<Listener>
  /** Probes that found the connection lost, with no reason known, in this episode. */
  lostProbes: number
  /** One shared budget per budget of the memory store, which keeps at most 256 settings. */
  readonly budgets: WeakMap<RetryBudget.RetryBudget.Service, RetryBudget.RetryBudget.Service>
  /** Cool-downs being published, in flight until written. */
  readonly publishing: Set<Fiber.Fiber<unknown>>
}

// Deposits a failed round trip did not deliver, for the next flush.
const putBack = (store: Store, key: string, deposits: number, units: Units): void => {
  if (deposits === 0) return
  store.pending.restore(key, deposits)
  store.unitsByKey.set(key, units)
}

const loadScript = (store: Store, script: string): Effect.Effect<string, unknown> =>
  Effect.mapBoth(store.commands.send("SCRIPT", ["LOAD", script]), {
    onFailure: (cause) => new SharedStore.RequestFailure({ command: "SCRIPT LOAD", script }, cause),
    onSuccess: (sha) => {
      const loaded = String(sha)
      store.shas.set(script, loaded)
      return loaded
    }
  })

// Scripts run by EVALSHA; loaded on first use, and again after Redis lost them (a restart,
// SCRIPT FLUSH, a failover), whatever the client wrapped the NOSCRIPT reply in.
// `sent` hears each EVALSHA as it goes out: until then, the script has surely not run.
const evalScript = (
  store: Store,
  script: string,
  key: string,
  args: ReadonlyArray<string>,
  sent: () => void = () => {}
): Effect.Effect<unknown, unknown> => {
  const run = (loaded: string) =>
    Effect.suspend(() => {
      sent()
      return store.commands.send("EVALSHA", [loaded, "1", key, ...args])
    })
  const load = Effect.flatMap(loadScript(store, script), run)
  const sha = store.shas.get(script)
  const attempt =
    sha === undefined
      ? load
      : Effect.catch(run(sha), (error) =>
          SharedStore.errorReplyCode(error) === "NOSCRIPT" ? load : Effect.fail(error)
        )
  // Named, so that a warning says which script Redis failed, and where.
  return Effect.mapError(attempt, (cause) =>
    cause instanceof SharedStore.RequestFailure ? cause : new SharedStore.RequestFailure(running(script), cause)
  )
}

// One warning per episode, saying why: the request, the kind of failure and what the error said.
// A connection that dropped says nothing yet: the next failure says why, the second probe in a row
// (`probing`) that finds it still lost says so (a Redis that is shutting down drops a connection
// it has just taken), or the next answer ends the episode in silence (SharedStore.Health).
// `withinMillis`: how long the request had.
const degrade = (
  store: Store,
  request: SharedStore.StoreRequest,
  failure: unknown,
  options: { readonly refused: boolean; readonly probing?: boolean; readonly withinMillis?: number }
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { health, settings } = store
    const quietly =
      SharedStore.failureKind(failure) === "lost" && !(options.probing === true && ++store.lostProbes >= 2)
    return health.failed(options.refused, quietly) === undefined
      ? Effect.void
      : Effect.andThen(
          setDegraded(1),
          Effect.logWarning(
            `ResilienceStore on Redis is degraded (${SharedStore.describeFailure(failure, request, options.withinMillis ?? settings.timeoutMillis)}): calls go on with this process's state, and ${
              health.needsWork
                ? `what Redis refused is tried again in ${settings.syncIntervalMillis} ms, then twice as long after each refusal (at most ${Math.max(settings.syncIntervalMillis, SharedStore.maxProbeIntervalMillis)} ms)`
                : `Redis is tried again every ${settings.syncIntervalMillis} ms`
            }`
          )
        )
  })

// Whether an answer ends the episode: not while work Redis refused has not gone through.
const settled = (store: Store): boolean => !store.health.needsWork && store.proofs.size === 0

// Asks a subscription to subscribe afresh, without waiting for it.
const askAfresh = (listener: Listener): Effect.Effect<void> =>
  Effect.flatMap(Deferred.make<boolean>(), (request) => Queue.offer(listener.requests, request))

// Back: sharing resumes, the subscriptions start afresh (each then reads the cool-downs in
// force, those published while it was cut off among them), but those a probe just made, and the
// cool-downs Redis may not have taken are written again. An episode that was never said (a
// connection that came straight back) ends without a word.
const resume = (store: Store): Effect.Effect<void> =>
  Effect.suspend(() => {
    const ended = store.health.answered()
    if (ended === undefined) return Effect.void
    store.proofs.clear()
    store.lostProbes = 0
    const stale = store.listeners.filter((listener) => !listener.fresh)
    for (const listener of store.listeners) listener.fresh = false
    return Effect.all(
      [
        ended === "resumed"
          ? Effect.andThen(setDegraded(0), Effect.logInfo("ResilienceStore on Redis answers again: sharing resumed"))
          : Effect.void,
        Effect.forEach(stale, askAfresh, { discard: true }),
        Effect.forkIn(Effect.asVoid(rewrite(store, true)), store.scope)
      ],
      { discard: true }
    )
  })

// A round trip bounded by the timeout. No answer in time is told apart from a failure: a
// command that timed out may still run (a paused Redis runs it when it resumes). An answer
// ends an episode in which Redis did not answer; one in which it refused work ends only when
// that work goes through (`probe`): a Redis that answers PING and refuses the store's scripts
// (OOM, a key of the wrong type) is not back. `refusals: false`: the round trip is a PING,
// whose error reply (Redis loading, or wanting a password) says nothing of the work. A wrong
// password is no refusal of the work either: the connection is refused, whatever it carries.
const exchange = <A>(
  store: Store,
  request: SharedStore.StoreRequest,
  work: Effect.Effect<A, unknown>,
  options: { readonly resumes?: boolean; readonly refusals?: boolean; readonly probing?: boolean } = {}
): Effect.Effect<Reply<A>> => {
  const onAnswer = (value: A) =>
    Effect.as(options.resumes === false || !settled(store) ? Effect.void : resume(store), answered(value))
  const onFailure = (failure: unknown): Effect.Effect<Reply<A>> => {
    const refused =
      failure !== undefined && options.refusals !== false && SharedStore.failureKind(failure) === "refused"
    const probing = options.probing === true
    return Effect.as(
      degrade(store, request, failure, { refused, probing }),
      failure === undefined ? timedOut : { _tag: "Failed", refused }
    )
  }
  return Effect.matchEffect(storeTimeout.within(work, store.settings.timeoutMillis), {
    onSuccess: onAnswer,
    onFailure
  })
}

// The answer, or `undefined` when Redis failed or was too slow. Work Redis refused is tried again
// by each probe as `proof` says, until it goes through.
const roundTrip = <A>(
  store: Store,
  request: SharedStore.StoreRequest,
  work: Effect.Effect<A, unknown>,
  proof?: Proof
): Effect.Effect<{ readonly value: A } | undefined> =>
  Effect.map(exchange(store, request, work), (reply) => {
    if (reply._tag === "Failed" && reply.refused && proof !== undefined) {
      store.proofs.set(proof.name, Effect.map(exchange(store, request, proof.again, { resumes: false }), isAnswered))
    }
    return reply._tag === "Answered" ? reply : undefined
  })

// Sends deposits with the budget script. They go back to the batch when Redis surely did not
// count them (the command failed, or no answer came before the script was even sent); once
// sent without an answer in time they may have been counted (a paused Redis runs it when it
// resumes), and the fleet must never count them twice: dropped, which can only make its
// budget smaller. Buckets the script dropped as no process's are counted.
const sendDeposits = (
  store: Store,
  key: string,
  deposits: number,
  units: Units,
  retry: boolean,
  resumes = true
): Effect.Effect<Reply<ReturnType<typeof SharedStore.readBudgetAnswer>>> =>
  Effect.suspend(() => {
    let sent = false
    const script = evalScript(store, SharedStore.budgetScript, key, budgetArgs(deposits, units, retry), () => {
      sent = true
    })
    return Effect.flatMap(exchange(store, running(SharedStore.budgetScript), script, { resumes }), (reply) => {
      if (reply._tag === "Answered") {
        const answer = SharedStore.readBudgetAnswer(reply.value)
        const counted =
          answer !== undefined && answer.rejected > 0 ? rejected("budget_bucket", answer.rejected) : Effect.void
        return Effect.as(counted, answered(answer))
      }
      return Effect.sync(() => {
        if (reply._tag === "Failed" || !sent) putBack(store, key, deposits, units)
        if (reply._tag === "Failed" && reply.refused) {
          store.proofs.set(`budget ${key}`, Effect.map(sendDeposits(store, key, 0, units, false, false), isAnswered))
        }
        return reply
      })
    })
  })

const budgetArgs = (deposits: number, units: Units, retry: boolean): ReadonlyArray<string> => [
  String(deposits),
  String(units.windowSeconds),
  String(units.withdrawal),
  String(units.reserve),
  retry ? "1" : "0",
  String(units.mostPerBucket),
  String(units.leastPerBucket)
]

// A cool-down another process published, checked as a stored one is.
const applyCoolDownMessage = (store: Store, message: string): Effect.Effect<void> => {
  const coolDown = SharedStore.readCoolDownMessage(message)
  if (coolDown === undefined) return rejected("cool_down_message")
  return Effect.andThen(
    coolDown.millis > CoolDown.maxMillis ? rejected("cool_down_message") : Effect.void,
    store.local.coolDown(coolDown.origin, coolDown.millis)
  )
}

// Cool-downs in force when this process (re)joins: published before it listened. One read
// of the prefix's sorted set, on Redis's clock; no SCAN, so nothing is found by pattern and
// a cluster answers it from the prefix's one slot. An entry no process could have written
// (unreadable, or past a day) is counted; one past a day is cut to a day, as a local 429's.
const readCoolDowns = (store: Store): Effect.Effect<void, unknown> =>
  Effect.flatMap(evalScript(store, SharedStore.readCoolDownsScript, store.keys.coolDowns, []), (answer) => {
    const coolDowns = SharedStore.readCoolDownsAnswer(answer)
    const unreadable = (Array.isArray(answer) ? Math.ceil(answer.length / 2) : 1) - coolDowns.length
    return Effect.andThen(
      unreadable > 0 ? rejected("cool_down_entry", unreadable) : Effect.void,
      Effect.forEach(
        coolDowns,
        ({ origin, millis }) =>
          Effect.andThen(
            millis > CoolDown.maxMillis ? rejected("cool_down_entry") : Effect.void,
            store.local.coolDown(origin, millis)
          ),
        { discard: true }
      )
    )
  })

// Writes and publishes this process's cool-down; one Redis may not have taken is kept, to
// be written again once the store answers (the script lengthens, never shortens, so writing
// one twice does no harm). `again`: written before, so published even if it did not grow (the
// first write may have stopped before its PUBLISH).
const writeCoolDown = (
  store: Store,
  origin: string,
  millis: number,
  options: { readonly resumes?: boolean; readonly again?: boolean } = {}
): Effect.Effect<Reply<unknown>> =>
  Effect.tap(
    exchange(
      store,
      running(SharedStore.coolDownScript),
      evalScript(store, SharedStore.coolDownScript, store.keys.coolDowns, [
        String(Math.ceil(millis)),
        store.keys.channel,
        origin,
        options.again === true ? "1" : "0"
      ]),
      { resumes: options.resumes !== false }
    ),
    (reply) =>
      Effect.sync(() => {
        if (reply._tag === "Answered" || (store.unwritten.size >= CoolDown.maxOrigins && !store.unwritten.has(origin)))
          return
        store.unwritten.set(origin, store.unwritten.get(origin) === true || (reply._tag === "Failed" && reply.refused))
      })
  )

// The cool-downs kept unwritten, those still in force, written again. One Redis refused that has
// ended since is written for 1 ms, which holds no call back: the write proves that Redis takes
// the script again, as an episode of refusals needs.
const rewrite = (store: Store, resumes: boolean): Effect.Effect<Array<Reply<unknown>>> =>
  Effect.suspend(() => {
    const entries = [...store.unwritten]
    store.unwritten.clear()
    return Effect.flatMap(
      Effect.forEach(entries, ([origin, refused]) =>
        Effect.map(store.local.coolDownLeft(origin), (left) => [origin, left, refused] as const)
      ),
      (lefts) =>
        Effect.forEach(
          lefts.filter(([, left, refused]) => left > 0 || refused),
          ([origin, left]) => writeCoolDown(store, origin, Math.max(left, 1), { resumes, again: true })
        )
    )
  })

/** One shared budget's state: its store, its units, its keys and this process's share. */
interface SharedBudget {
  readonly store: Store
  readonly units: Units
  readonly settingsKey: string
  /** Each origin's key built once (bounded): a call's deposit builds no string. */
  readonly keyByOrigin: Map<string, string>
  /** This process's share: what decides when the fleet does not answer in time. */
  readonly shares: fleetShares.FleetShares
}

const budgetKeyOf = (budget: SharedBudget, origin: string): string => {
  let key = budget.keyByOrigin.get(origin)
  if (key === undefined) {
    if (budget.keyByOrigin.size >= 1024) budget.keyByOrigin.clear()
    key = budget.store.keys.budget(budget.settingsKey, origin)
    budget.keyByOrigin.set(origin, key)
  }
  return key
}

const deposit = (budget: SharedBudget, origin: string): void => {
  const key = budgetKeyOf(budget, origin)
  if (budget.store.pending.add(key, budget.units.deposit)) budget.store.unitsByKey.set(key, budget.units)
}

const tryAlone = (budget: SharedBudget, origin: string, kind: RetryBudget.FailureKind): Effect.Effect<boolean> =>
  Effect.flatMap(budget.shares.tryRetry(origin, kind), (allowed) =>
    allowed ? Effect.succeed(true) : Effect.as(retryBudgetService.countRefusal(origin), false)
  )

// The fleet's answer for `origin`, this process's deposits since the last flush sent with it.
const askFleet = (budget: SharedBudget, origin: string, retry: boolean) =>
  Effect.suspend(() => {
    const key = budgetKeyOf(budget, origin)
    const deposits = budget.store.pending.take(key)
    return Effect.map(sendDeposits(budget.store, key, deposits, budget.units, retry), (reply) =>
      reply._tag === "Answered" ? reply.value : undefined
    )
  })

// Whether the store is degraded is read when the effect runs, not when it is made: an effect
// kept and run again follows the store.
const tryRetryShared = (budget: SharedBudget, origin: string, kind: RetryBudget.FailureKind): Effect.Effect<boolean> =>
  Effect.suspend(() =>
    budget.store.health.degraded
      ? tryAlone(budget, origin, kind)
      : Effect.flatMap(askFleet(budget, origin, true), (fleet) => {
          if (fleet === undefined) return tryAlone(budget, origin, kind)
          return Effect.as(
            Effect.andThen(
              budget.shares.heard(origin, fleet, true),
              fleet.allowed ? Effect.void : retryBudgetService.countRefusal(origin)
            ),
            fleet.allowed
          )
        })
  )

const balanceShared = (budget: SharedBudget, origin: string): Effect.Effect<number> =>
  Effect.suspend(() =>
    budget.store.health.degraded
      ? budget.shares.balance(origin)
      : Effect.flatMap(askFleet(budget, origin, false), (fleet) => {
          if (fleet === undefined) return budget.shares.balance(origin)
          return Effect.as(
            budget.shares.heard(origin, fleet, false),
            Math.max(0, Math.trunc(fleet.balance / budget.units.withdrawal))
          )
        })
  )

const sharedBudget = (
  store: Store,
  settings: RetryBudget.Settings,
  own: RetryBudget.RetryBudget.Service
): RetryBudget.RetryBudget.Service => {
  const core = retryBudgetService.toCoreSettings(settings)
  // Only Finagle's budget is a ratio of requests that a fleet can add up; the others stay
  // per process.
  if (core._tag !== "Finagle") return own
  const budget: SharedBudget = {
    store,
    units: SharedStore.finagleUnits(core),
    settingsKey: SharedStore.settingsKey(JSON.stringify(core)),
    keyByOrigin: new Map(),
    shares: fleetShares.make(core)
  }
  const shared: RetryBudget.RetryBudget.Service = {
    settings: own.settings,
    onRequest: (origin) =>
      Effect.andThen(
        budget.shares.onRequest(origin),
        Effect.sync(() => deposit(budget, origin))
      ),
    onFailure: own.onFailure,
    onSuccess: own.onSuccess,
    tryRetry: (origin, kind) => tryRetryShared(budget, origin, kind),
    balance: (origin) => balanceShared(budget, origin)
  }
  return shared
}

// The deposits since the last flush, each key with its units.
const takeBatch = (store: Store): Array<readonly [string, number, Units]> => {
  const batch = store.pending.drain()
  // Units of the keys in this batch only: the table holds no more keys than one interval's.
  const unitsOf = new Map(store.unitsByKey)
  store.unitsByKey.clear()
  return batch.flatMap(([key, deposits]) => {
    const units = unitsOf.get(key)
    return units === undefined ? [] : [[key, deposits, units] as const]
  })
}

// Deposits reach Redis in batches; with none to send, a PING, so that a store that sends
// nothing still learns that Redis went away (and its subscriptions with it).
const flush = (store: Store): Effect.Effect<void> =>
  Effect.suspend(() => {
    const batch = takeBatch(store)
    if (batch.length === 0)
      return Effect.asVoid(exchange(store, ping, store.commands.send("PING", []), { refusals: false }))
    return Effect.forEach(batch, ([key, deposits, units]) => sendDeposits(store, key, deposits, units, false), {
      discard: true
    })
  })

// While degraded: is Redis back? It is when a PING answers, unless it refused work in this
// episode, or a subscription is lost: then that work (the deposits since, what Redis refused, the
// cool-downs it did not take, the subscriptions afresh) must go through too, or the store would
// take a Redis that answers PING and refuses the rest (OOM, a key of the wrong type, an ACL
// without PUBLISH) as back, and flap.
const probe = (store: Store): Effect.Effect<void> =>
  Effect.gen(function* () {
    const pong = yield* exchange(store, ping, store.commands.send("PING", []), {
      resumes: false,
      refusals: false,
      probing: true
    })
    if (pong._tag !== "Answered") return
    if (settled(store)) return yield* resume(store)
    const deposits = yield* Effect.forEach(takeBatch(store), ([key, deposits, units]) =>
      Effect.map(sendDeposits(store, key, deposits, units, false, false), isAnswered)
    )
    const proven = yield* Effect.forEach([...store.proofs], ([name, proof]) =>
      Effect.tap(proof, (held) =>
        Effect.sync(() => {
          if (held) store.proofs.delete(name)
        })
      )
    )
    const rewritten = (yield* rewrite(store, false)).map(isAnswered)
    if ([...deposits, ...proven, ...rewritten].every(Boolean) && store.proofs.size === 0) return yield* resume(store)
    store.health.workFailedAgain()
  })

// Every `syncInterval`: a flush, or while degraded a probe, spaced out after each refusal.
const syncForever = (store: Store): Effect.Effect<never> => {
  const { health, settings } = store
  return Effect.forever(
    Effect.andThen(
      Effect.suspend(() => (health.degraded ? probe(store) : flush(store))),
      Effect.suspend(() =>
        Effect.sleep(
          Duration.millis(
            health.degraded ? health.probeDelayMillis(settings.syncIntervalMillis) : settings.syncIntervalMillis
          )
        )
      )
    )
  )
}

// Answers the requests to subscribe afresh that wait, with whether the subscription holds.
const answerRequests = (listener: Listener, waiting: ReadonlyArray<Deferred.Deferred<boolean>>, held: boolean) =>
  Effect.flatMap(Queue.clear(listener.requests), (queued) =>
    Effect.forEach([...waiting, ...queued], (request) => Deferred.succeed(request, held), { discard: true })
  )

// A subscription asked afresh by a probe, and whether it then holds; a subscription that does not
// answer within twice its bound counts as not holding.
const resubscribe = (store: Store, listener: Listener): Effect.Effect<boolean> =>
  Effect.flatMap(Deferred.make<boolean>(), (request) =>
    Effect.andThen(
      Queue.offer(listener.requests, request),
      Effect.map(
        Effect.raceFirst(
          Deferred.await(request),
          Effect.as(Effect.sleep(Duration.millis(2 * SharedStore.readyWithinMillis(store.settings))), false)
        ),
        (held) => {
          if (held) listener.fresh = true
          return held
        }
      )
    )
  )

// How one subscription ended: asked to subscribe afresh, or deaf (refused, lost, never caught up).
type Turn =
  | { readonly _tag: "Asked"; readonly request: Deferred.Deferred<boolean> }
  | { readonly _tag: "Deaf"; readonly failure: unknown; readonly held: boolean }

// One subscription: subscribed and caught up (`then`) within `readyWithin`, then delivering until
// its delivery ends or a request to subscribe afresh comes.
const subscribeOnce = (
  store: Store,
  listener: Listener,
  onMessage: (message: string) => Effect.Effect<void>,
  then: Effect.Effect<void, unknown>,
  waiting: ReadonlyArray<Deferred.Deferred<boolean>>,
  ready: Deferred.Deferred<void>
): Effect.Effect<Turn> =>
  Effect.scoped(
    Effect.gen(function* () {
      const subscribing = Effect.flatMap(store.commands.subscribe(listener.channel, onMessage), (delivery) =>
        Effect.as(then, delivery)
      )
      const subscribed = yield* Effect.result(
        storeTimeout.within(subscribing, SharedStore.readyWithinMillis(store.settings))
      )
      yield* answerRequests(listener, waiting, Result.isSuccess(subscribed))
      yield* Deferred.succeed(ready, undefined)
      if (Result.isFailure(subscribed)) return { _tag: "Deaf", failure: subscribed.failure, held: false } satisfies Turn
      const delivery = subscribed.success
      return yield* Effect.raceFirst(
        Effect.map(
          Effect.result(delivery),
          (ended): Turn => ({
            _tag: "Deaf",
            failure: Result.isFailure(ended) ? ended.failure : new Error("the subscription ended"),
            held: true
          })
        ),
        Effect.map(Queue.take(listener.requests), (request): Turn => ({ _tag: "Asked", request }))
      )
    })
  )

// A subscription that failed or was lost: an episode, as a failed command is (the process does
// not hear the fleet), and a subscription for each probe to make afresh until one holds. One that
// `held` and dropped may wait for the next failure to say why; one that could not be made says so.
const deaf = (store: Store, listener: Listener, failure: unknown, held: boolean): Effect.Effect<void> =>
  Effect.suspend(() => {
    const request: SharedStore.StoreRequest = { command: `SUBSCRIBE ${listener.channel}` }
    store.proofs.set(request.command, resubscribe(store, listener))
    return degrade(store, request, failure, {
      refused: SharedStore.failureKind(failure) === "refused",
      probing: !held,
      withinMillis: SharedStore.readyWithinMillis(store.settings)
    })
  })

// Listens on a channel for the scope's life, running `then` after each subscription: subscribes
// afresh whenever asked (a probe, the end of an episode), and, once the subscription failed or
// was lost, when a probe asks. The store is ready once the first subscription held or failed, or
// after `readyWithinMillis`.
const listen = (
  store: Store,
  channel: string,
  onMessage: (message: string) => Effect.Effect<void>,
  then: Effect.Effect<void, unknown> = Effect.void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const listener: Listener = { channel, requests: yield* Queue.unbounded<Deferred.Deferred<boolean>>(), fresh: false }
    store.listeners.push(listener)
    const ready = yield* Deferred.make<void>()
    let waiting: ReadonlyArray<Deferred.Deferred<boolean>> = []
    const turn = Effect.flatMap(
      Effect.suspend(() => subscribeOnce(store, listener, onMessage, then, waiting, ready)),
      (ended): Effect.Effect<void> => {
        if (ended._tag === "Asked") {
          waiting = [ended.request]
          return Effect.void
        }
        return Effect.andThen(
          deaf(store, listener, ended.failure, ended.held),
          Effect.map(Queue.take(listener.requests), (request) => {
            waiting = [request]
          })
        )
      }
    )
    yield* Effect.forkScoped(Effect.forever(turn))
    yield* Effect.ignore(
      Effect.timeout(Deferred.await(ready), Duration.millis(SharedStore.readyWithinMillis(store.settings)))
    )
  })

// Other processes' cool-downs, applied to this process's memory, and those in force (read
// again after each subscription: what was published while it was down, a read that must go
// through for the subscription to hold); and the budget's script loaded, so that a retry's first question to the fleet is one round trip within its
// timeout, not two.
const listenForCoolDowns = (store: Store): Effect.Effect<void, never, Scope.Scope> =>
  listen(
    store,
    store.keys.channel,
    (message) => applyCoolDownMessage(store, message),
    Effect.andThen(readCoolDowns(store), Effect.ignore(loadScript(store, SharedStore.budgetScript)))
  )

// Publish this process's cool-downs (and rate-limit blocks) in the background: the call that met
// the 429 waits on its own memory, never on Redis.
const inBackground = (store: Store, publish: Effect.Effect<unknown>): Effect.Effect<void> =>
  Effect.flatMap(Effect.forkDetach(publish), (fiber) =>
    Effect.sync(() => {
      store.publishing.add(fiber)
      fiber.addObserver(() => {
        store.publishing.delete(fiber)
      })
    })
  )

const publishCoolDown = (store: Store, origin: string, millis: number): Effect.Effect<void> =>
  inBackground(store, writeCoolDown(store, origin, millis))

// A store that closes (a program that ends right after a 429) waits for the cool-downs in
// flight, at most `timeout`, so that its last cool-downs still reach the fleet.
const awaitPublishing = (store: Store): Effect.Effect<void> =>
  Effect.andThen(
    Effect.ignore(Effect.timeout(Fiber.awaitAll([...store.publishing]), Duration.millis(store.settings.timeoutMillis))),
    Fiber.interruptAll([...store.publishing])
  )

const retryBudgetOf = (store: Store, settings: RetryBudget.Settings): RetryBudget.RetryBudget.Service => {
  const own = store.local.retryBudget(settings)
  let budget = store.budgets.get(own)
  if (budget === undefined) {
    budget = sharedBudget(store, settings, own)
    store.budgets.set(own, budget)
  }
  return budget
}

/**
 * A Redis store over these commands, for the scope's life: its subscription and its flushes
 * end with the scope.
 *
 * @internal
 */
export const make = (commands: RedisCommands, settings: Settings): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function* () {
    const store: Store = {
      commands,
      settings,
      local: makeMemory(),
      keys: SharedStore.keysFor(settings.prefix),
      health: new SharedStore.Health(),
      pending: new SharedStore.PendingDeposits(),
      scope: yield* Effect.scope,
      unitsByKey: new Map(),
      shas: new Map(),
      unwritten: new Map(),
      proofs: new Map(),
      listeners: [],
      lostProbes: 0,
      budgets: new WeakMap(),
      publishing: new Set()
    }
    yield* Effect.forkScoped(syncForever(store))
    yield* listenForCoolDowns(store)
    yield* Effect.addFinalizer(() => awaitPublishing(store))
    const shareCircuitBreaker = settings.shareCircuitBreaker
      ? yield* redisBreakers.make({
          prefix: settings.prefix,
          commands,
          roundTrip: (request, work, proof) => roundTrip(store, request, work, proof),
          listen: (channel, onMessage) => listen(store, channel, onMessage),
          rejected: () => rejected("breaker_message")
        })
      : undefined
    const rateLimit = yield* redisRateLimit.make({
      prefix: settings.prefix,
      degraded: () => store.health.degraded,
      evalScript: (script, key, args) => evalScript(store, script, key, args),
      roundTrip: (request, work, proof) => roundTrip(store, request, work, proof),
      listen: (channel, onMessage, then) => listen(store, channel, onMessage, then),
      rejected,
      local: rateLimitMemory.makeMemory(),
      inBackground: (publish) => inBackground(store, publish)
    })
    return {
      retryBudget: (budgetSettings) => retryBudgetOf(store, budgetSettings),
      // A day at most, here and for the fleet, as the memory store keeps it.
      coolDown: (origin, millis) =>
        Effect.andThen(
          store.local.coolDown(origin, millis),
          publishCoolDown(store, origin, Math.min(millis, CoolDown.maxMillis))
        ),
      coolDownLeft: store.local.coolDownLeft,
      // What stages keep is this process's (attempts in flight, unshared breakers): never on Redis.
      keep: store.local.keep,
      rateLimit,
      shareCircuitBreaker
    } satisfies Service
  })
