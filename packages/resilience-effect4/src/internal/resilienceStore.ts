// @generated from templates/src/internal/resilienceStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import { remember } from "./settingsTable.js"
import * as retryBudgetService from "./retryBudgetService.js"

type Service = ResilienceStore.ResilienceStore.Service

const budgetKey = (settings: RetryBudget.Settings): string => JSON.stringify(settings)

/** @internal */
export const makeMemory = (): Service => {
  const budgets = new Map<string, RetryBudget.RetryBudget.Service>()
  const coolDowns = new CoolDown.CoolDownTable()
  const kept = new Map<string, unknown>()
  return {
    retryBudget: (settings) => remember(budgets, budgetKey(settings), () => retryBudgetService.makeService(settings)),
    coolDown: (origin, millis) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => coolDowns.start(origin, millis, retryBudgetService.monotonicMillis(clock)))
      ),
    coolDownLeft: (origin) =>
      Effect.clockWith((clock) => Effect.sync(() => coolDowns.left(origin, retryBudgetService.monotonicMillis(clock)))),
    keep: keepIn(kept)
  }
}

// A table of what stages keep. Its values' types are erased: each key is made by one stage only,
// whose `make` gives the type that stage reads back.
const keepIn =
  (table: Map<string, unknown>) =>
  <S>(key: string, make: () => S): S => {
    const known = table.get(key) as S | undefined
    if (known !== undefined) return known
    const made = make()
    remember(table, key, () => made)
    return made
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

// What the default keeps for those who ask it outside a call (a call asks its clock's store).
const routedKept = new Map<string, unknown>()

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
  coolDown: (origin, millis) => Effect.clockWith((clock) => memoryFor(clock).coolDown(origin, millis)),
  coolDownLeft: (origin) => Effect.clockWith((clock) => memoryFor(clock).coolDownLeft(origin)),
  // The attempt loop asks the store of the call's clock (`concrete`); this is for anyone else.
  keep: keepIn(routedKept)
}

/**
 * The store that answers for `store` under `clock`: the default routes to its clock's.
 *
 * @internal
 */
export const concrete = (store: Service, clock: Clock.Clock): Service =>
  store === processDefault ? memoryFor(clock) : store
