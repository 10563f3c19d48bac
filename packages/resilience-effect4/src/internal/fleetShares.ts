// @generated from templates/src/internal/fleetShares.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// This process's share of a Finagle budget that the fleet shares on Redis, per origin (core
// `RetryBudget.FleetShare`): what the fleet's answers teach it, and what decides a retry when the
// fleet's answer does not come in time. It pays for every retry the fleet allowed this process
// and heeds the fleet's last word, so that a process deciding alone never lends again a floor the
// fleet has lent: a shared budget never costs more than separate ones.
import { OriginTable } from "@effect-http-resilience/core/Origin"
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import * as Effect from "effect/Effect"
import type * as RetryBudget from "../RetryBudget.js"
import { monotonicMillis } from "./retryBudgetService.js"

/** @internal */
export interface FleetShares {
  /** The origin's share, at `nowMillis` ({@link monotonicMillis}). */
  readonly shareOf: (origin: string, nowMillis: number) => RetryBudgetCore.FleetShare
  /** A call's request, deposited in this process's share. */
  readonly onRequest: (origin: string) => Effect.Effect<void>
  /** The fleet's answer to a retry or a balance asked: heard, and a retry it allowed paid. */
  readonly heard: (
    origin: string,
    answer: { readonly allowed: boolean; readonly balance: number },
    retry: boolean
  ) => Effect.Effect<void>
  /** A retry without the fleet's answer: this process's share decides. */
  readonly tryRetry: (origin: string, kind: RetryBudget.FailureKind) => Effect.Effect<boolean>
  /** Retries this process's share allows now. */
  readonly balance: (origin: string) => Effect.Effect<number>
}

/** @internal */
export const make = (settings: RetryBudgetCore.FinagleSettings): FleetShares => {
  const shares = new OriginTable<RetryBudgetCore.FleetShare>(
    (_, nowMillis) => RetryBudgetCore.makeFleetShare(settings, nowMillis),
    (share, nowMillis, lastUsedMillis) => RetryBudgetCore.isIdle(share, nowMillis, lastUsedMillis)
  )
  // One synchronous step from reading the clock to updating the share, as the memory budget's.
  const withShare = <A>(origin: string, f: (share: RetryBudgetCore.FleetShare, nowMillis: number) => A) =>
    Effect.clockWith((clock) =>
      Effect.sync(() => {
        const nowMillis = monotonicMillis(clock)
        return f(shares.get(origin, nowMillis), nowMillis)
      })
    )
  return {
    shareOf: (origin, nowMillis) => shares.get(origin, nowMillis),
    onRequest: (origin) => withShare(origin, (share, nowMillis) => share.onRequest(nowMillis)),
    heard: (origin, answer, retry) =>
      withShare(origin, (share, nowMillis) => {
        share.heard(answer.balance, nowMillis)
        if (retry && answer.allowed) share.paidByFleet(nowMillis)
      }),
    tryRetry: (origin, kind) => withShare(origin, (share, nowMillis) => share.tryRetry(nowMillis, kind)),
    balance: (origin) => withShare(origin, (share, nowMillis) => share.balance(nowMillis))
  }
}
