/**
 * The closed loop of a limits client process (Effect 3): per run, this library's
 * `ResilientHttpClient.make` with the row's policy (`limitsPolicyFor`) over a fresh
 * `NodeHttpClient.layerUndici` pool and a fresh memory store (limits and buckets live in the
 * store), each call's body read to its end. The Effect 4 line's is `runLimitsLoop` in
 * `packages/bench-effect4/src/clients.ts`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { HttpFailure, ResilienceStore, ResilientHttpClient } from "effect-http-resilience"
import { closedLoopRecorder, limitsPolicyFor } from "./benchClient.js"
import { policyOptions } from "./policyOptions.js"
import type { LimitsRun, LimitsRunResult } from "./protocol.js"

/** A call the concurrency limit refused unsent (its queue full), told from every other failure. */
const isRefused = (error: unknown): boolean =>
  HttpFailure.isConnectionError(error) && error.reason === "ConcurrencyLimited"

export const runLimitsLoop = async (run: LimitsRun): Promise<LimitsRunResult> => {
  const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, ResilienceStore.layerMemory()))
  try {
    const client = await runtime.runPromise(
      Effect.flatMap(HttpClient.HttpClient, (transport) =>
        Effect.provideService(
          ResilientHttpClient.make(policyOptions(limitsPolicyFor(run.mode))),
          HttpClient.HttpClient,
          transport
        )
      )
    )
    const loop = closedLoopRecorder(run)
    const call = Effect.suspend(() => {
      const started = loop.now()
      return Effect.matchEffect(Effect.scoped(Effect.flatMap(client.get(run.url), (response) => response.json)), {
        // A refused caller thinks before its next call, so that refused callers do not spin the CPU.
        onFailure: (error) =>
          isRefused(error)
            ? Effect.andThen(
                Effect.sync(() => loop.done(started, "refused")),
                Effect.sleep(run.refusedPauseMillis)
              )
            : Effect.sync(() => loop.done(started, "failed")),
        onSuccess: () => Effect.sync(() => loop.done(started, "ok"))
      })
    })
    const caller = Effect.whileLoop({ while: loop.next, body: () => call, step: () => undefined })
    await runtime.runPromise(
      Effect.forEach(Array.from({ length: run.callers }), () => caller, { concurrency: "unbounded", discard: true })
    )
    return loop.result()
  } finally {
    await runtime.dispose()
  }
}
