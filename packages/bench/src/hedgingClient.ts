/**
 * The client of a hedging client process (Effect 3): this library's `ResilientHttpClient.make`
 * with the configuration's policy (`hedgingPolicyFor`), built once over the same
 * `NodeHttpClient.layerUndici` as the other sections' Effect 3 clients, each call's body read to
 * its end. Each call runs under `ResilientHttpClient.observeDecisions`, which hands the bench the
 * delay of every hedge the library sends: the only figure read from the library (the requests
 * are counted by the server). The Effect 4 line's is `makeHedgingClient` in
 * `packages/bench-effect4/src/clients.ts`.
 */
import { type HedgingClient, hedgeDelayRecorder, hedgingPolicyFor } from "./benchClient.js"
import { effectClient } from "./clients.js"
import type { HedgingMode } from "./protocol.js"

export const makeHedgingClient = async (mode: HedgingMode): Promise<HedgingClient> => {
  const [Duration, Effect, ManagedRuntime, HttpClient, NodeHttpClient, { ResilientHttpClient }, { policyOptions }] =
    await Promise.all([
      import("effect/Duration"),
      import("effect/Effect"),
      import("effect/ManagedRuntime"),
      import("@effect/platform/HttpClient"),
      import("@effect/platform-node/NodeHttpClient"),
      import("effect-http-resilience"),
      import("./policyOptions.js")
    ])
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const transport = await runtime.runPromise(HttpClient.HttpClient)
  const resilient = await runtime.runPromise(
    Effect.provideService(
      ResilientHttpClient.make(policyOptions(hedgingPolicyFor(mode))),
      HttpClient.HttpClient,
      transport
    )
  )
  const delays = hedgeDelayRecorder()
  const observed = ResilientHttpClient.observeDecisions((decision) =>
    decision._tag === "Hedge" ? Effect.sync(() => delays.record(Duration.toMillis(decision.delay))) : Effect.void
  )
  return {
    client: effectClient(Effect, runtime, (url) =>
      observed(Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json)))
    ),
    takeHedgeDelays: delays.take
  }
}
