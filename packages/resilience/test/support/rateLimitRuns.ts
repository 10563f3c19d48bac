// @generated from templates/test/support/rateLimitRuns.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import { NodeHttpClient } from "@effect/platform-node"
import { Effect } from "effect"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import type * as RetryPolicy from "../../src/RetryPolicy.js"

/** A call's outcome: its status, or its failure's (a status, a connection error's reason, a tag). */
const outcomeOf = (failure: HttpFailure.HttpFailure): string =>
  HttpFailure.isConnectionError(failure)
    ? failure.reason
    : failure._tag === "TransientStatus"
      ? String(failure.status)
      : failure._tag

/** A call's outcome and the 429s it met on the way, its retries' and its last attempt's. */
export interface CallOutcome {
  readonly outcome: string
  readonly met429: number
}

/**
 * `calls` GETs of `url`, `inFlight` at a time, each its own call, through a store of its own (so
 * that runs side by side share nothing): each call's outcome, and the 429s it met on the way.
 */
export const runCalls = (url: string, calls: number, inFlight: number, options: RetryPolicy.Options) =>
  Effect.gen(function* () {
    const client = yield* ResilientHttpClient.make(options)
    const call = Effect.gen(function* () {
      let met429 = 0
      const outcome = yield* Effect.scoped(Effect.map(client.get(url), (response) => String(response.status))).pipe(
        Effect.catchAll((failure: HttpFailure.HttpFailure) => Effect.succeed(outcomeOf(failure))),
        ResilientHttpClient.observeDecisions((decision) =>
          Effect.sync(() => {
            if (decision._tag === "Retry" && decision.failure._tag === "TransientStatus") met429++
          })
        )
      )
      return { outcome, met429: outcome === "429" ? met429 + 1 : met429 }
    })
    return yield* Effect.forEach(Array.from({ length: calls }), () => call, { concurrency: inFlight })
  }).pipe(Effect.provide(NodeHttpClient.layerUndici), Effect.provide(ResilienceStore.layerMemory()))

/** How many calls ended so. */
export const count = (outcomes: ReadonlyArray<CallOutcome>, outcome: string): number =>
  outcomes.filter((o) => o.outcome === outcome).length
