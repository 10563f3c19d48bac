// @generated from templates/src/internal/resilienceStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import * as concurrencyLimit from "./concurrencyLimit.js"
import * as rateLimit from "./rateLimit.js"
import { remember } from "./settingsTable.js"
import * as retryBudgetService from "./retryBudgetService.js"

type Service = ResilienceStore.ResilienceStore.Service

// A callback's identity is part of a breaker's settings: two clients with different observers
// do not share a breaker, so neither misses its own state changes.
const callbackIds = new WeakMap<object, number>()
let nextCallbackId = 0
const callbackId = (callback: object | undefined): number => {
  if (callback === undefined) return 0
  let id = callbackIds.get(callback)
  if (id === undefined) {
    id = ++nextCallbackId
    callbackIds.set(callback, id)
  }
  return id
}

// Options reach the store validated (by the policy); an invalid one keys by what it is.
const breakerKey = (options: CircuitBreaker.Options): string => {
  const validated = circuitBreakerService.validate(options)
  const settings = validated._tag === "Success" ? validated.success : options
  return `${callbackId(options.onStateChange)} ${JSON.stringify(settings)}`
}

const budgetKey = (settings: RetryBudget.Settings): string => JSON.stringify(settings)

/** @internal */
export const makeMemory = (): Service => {
  const budgets = new Map<string, RetryBudget.RetryBudget.Service>()
  const breakers = new Map<string, CircuitBreaker.CircuitBreaker.Service>()
  const coolDowns = new CoolDown.CoolDownTable()
  const concurrencyLimits = new Map<string, ResilienceStore.ResilienceStore.ConcurrencyLimits>()
  return {
    retryBudget: (settings) => remember(budgets, budgetKey(settings), () => retryBudgetService.makeService(settings)),
    circuitBreaker: (options) =>
      Effect.suspend(() => {
        const key = breakerKey(options)
        const existing = breakers.get(key)
        if (existing !== undefined) return Effect.succeed(existing)
        // The policy validated the options: making the breaker cannot fail.
        return Effect.map(Effect.orDie(circuitBreakerService.make(options)), (made) =>
          remember(breakers, key, () => made)
        )
      }),
    coolDown: (origin, millis) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => coolDowns.start(origin, millis, retryBudgetService.monotonicMillis(clock)))
      ),
    coolDownLeft: (origin) =>
      Effect.clockWith((clock) => Effect.sync(() => coolDowns.left(origin, retryBudgetService.monotonicMillis(clock)))),
    concurrencyLimit: (settings) =>
      remember(concurrencyLimits, JSON.stringify(settings), () => concurrencyLimit.makeLimits(settings)),
    ...rateLimit.makeMemory()
  }
}

// The default store is one per Clock: in production the process's one clock, so one store per
// process; under TestClock each test has a clock, so a store, of its own. A store's times are
// its clock's: state kept on one clock means nothing on another.
const byClock = new WeakMap<Clock.Clock, Service>()

const memoryFor = (clock: Clock.Clock): Service => {
  let store = byClock.get(clock)
  if (store === undefined) {
    store = makeMemory()
    byClock.set(clock, store)
  }
  return store
}

const routedConcurrencyLimits = new Map<string, ResilienceStore.ResilienceStore.ConcurrencyLimits>()

const routedBudgets = new Map<string, RetryBudget.RetryBudget.Service>()

// The default's budget for these settings, answering from the store of the caller's clock.
const routedBudget = (settings: RetryBudget.Settings): RetryBudget.RetryBudget.Service =>
  remember(routedBudgets, budgetKey(settings), () => {
    const on = <A>(f: (budget: RetryBudget.RetryBudget.Service) => Effect.Effect<A>): Effect.Effect<A> =>
      Effect.clockWith((clock) => f(memoryFor(clock).retryBudget(settings)))
    return {
      settings,
      onRequest: (origin) => on((b) => b.onRequest(origin)),
      onFailure: (origin, kind) => on((b) => b.onFailure(origin, kind)),
      onSuccess: (origin, retriedAfter) => on((b) => b.onSuccess(origin, retriedAfter)),
      tryRetry: (origin, kind) => on((b) => b.tryRetry(origin, kind)),
      balance: (origin) => on((b) => b.balance(origin))
    }
  })

/**
 * The store a call gets when its context has none: the memory store of the call's clock.
 *
 * @internal
 */
export const processDefault: Service = {
  retryBudget: routedBudget,
  circuitBreaker: (options) => Effect.clockWith((clock) => memoryFor(clock).circuitBreaker(options)),
  coolDown: (origin, millis) => Effect.clockWith((clock) => memoryFor(clock).coolDown(origin, millis)),
  coolDownLeft: (origin) => Effect.clockWith((clock) => memoryFor(clock).coolDownLeft(origin)),
  // The attempt loop asks the store of the call's clock (`concrete`); this is for anyone else.
  concurrencyLimit: (settings) =>
    remember(routedConcurrencyLimits, JSON.stringify(settings), () => concurrencyLimit.makeLimits(settings)),
  rateLimitTake: (key, limit, maxWaitMillis, counted) =>
    Effect.clockWith((clock) => memoryFor(clock).rateLimitTake(key, limit, maxWaitMillis, counted)),
  rateLimitRefund: (key, limit) => Effect.clockWith((clock) => memoryFor(clock).rateLimitRefund(key, limit)),
  rateLimitBlock: (key, millis) => Effect.clockWith((clock) => memoryFor(clock).rateLimitBlock(key, millis)),
  rateLimitEnded: (key, budget, ending) =>
    Effect.clockWith((clock) => memoryFor(clock).rateLimitEnded(key, budget, ending))
}

/**
 * The store that answers for `store` under `clock`: the default routes to its clock's.
 *
 * @internal
 */
export const concrete = (store: Service, clock: Clock.Clock): Service =>
  store === processDefault ? memoryFor(clock) : store
