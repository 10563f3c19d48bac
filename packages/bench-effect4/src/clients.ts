/**
 * The Effect 4 clients of the bench, built as `packages/bench/src/clients.ts` builds the Effect 3
 * ones: over `@effect/platform-node` 4's undici transport, run with `Effect.forEach(..., {
 * concurrency })` on a `ManagedRuntime`, every body read to its end. Each process imports only
 * what its client needs (this library only in its own process).
 */
import { NodeHttpClient, NodeRedis } from "@effect/platform-node"
import { Duration, Effect, Layer, ManagedRuntime } from "effect"
import { HttpClient } from "effect/http"
import { CircuitBreaker } from "effect/persistence"
import {
  attemptCounter,
  batchRecorder,
  type BenchClient,
  closedLoopRecorder,
  type HedgingClient,
  hedgeDelayRecorder,
  hedgingPolicyFor,
  indices,
  isOverloadMode,
  limitsPolicyFor,
  policyFor
} from "@effect-http-resilience/bench/benchClient"
import type { ClientMode, HedgingMode, LimitsRun, LimitsRunResult } from "@effect-http-resilience/bench/protocol"
import type { Effect4LibraryId } from "./protocol.js"

const effectClient = <E, R, ER>(
  runtime: ManagedRuntime.ManagedRuntime<R, ER>,
  call: (url: string) => Effect.Effect<unknown, E, R>,
  attempts?: () => number
): BenchClient => ({
  attempts,
  runBatch: async (batch) => {
    const record = batchRecorder(batch)
    const { waitBefore } = record
    const one = (index: number): Effect.Effect<void, never, R> =>
      Effect.suspend(() => {
        const started = performance.now()
        return Effect.match(call(batch.urlFor(index)), {
          onFailure: () => record.done(index, started, false),
          onSuccess: () => record.done(index, started, true)
        })
      })
    const paced =
      waitBefore === undefined
        ? one
        : (index: number): Effect.Effect<void, never, R> =>
            Effect.suspend(() => {
              const wait = waitBefore(index)
              return wait > 0 ? Effect.andThen(Effect.sleep(wait), one(index)) : one(index)
            })
    await runtime.runPromise(
      Effect.forEach(indices(batch.count), paced, { concurrency: batch.concurrency, discard: true })
    )
    return record.outcome()
  },
  close: () => runtime.dispose()
})

/**
 * Effect 4's breaker has no defaults: the nearest to this library's default one (Polly's: 10%
 * failures of at least 100 samples, then 5 s open) is `rate` over the last 100 calls. In
 * `"retry"` mode, whose benchmarks make every call fail at least once, a breaker that never
 * opens, as this library runs with a budget that never runs dry there: its bookkeeping is paid,
 * every retry made.
 */
const breakerFor = (mode: ClientMode) =>
  CircuitBreaker.layer({
    tripPolicy:
      mode === "retry"
        ? CircuitBreaker.consecutive(Number.MAX_SAFE_INTEGER)
        : CircuitBreaker.rate({ threshold: 0.1, size: 100 }),
    openDuration: "5 seconds"
  }).pipe(Layer.provide(CircuitBreaker.layerStoreMemory()))

const retryTransient = <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
  client.pipe(HttpClient.filterStatusOk, HttpClient.retryTransient({ times: 2 }))

const readJson =
  <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
  (url: string) =>
    Effect.flatMap(client.get(url), (response) => response.json)

/**
 * This library's client in the `happy-redis` mode: as in `happy` (its defaults, built once over
 * the same transport), its calls run with `layerRedis` (`effect-http-resilience-effect4/redis`) in context, on
 * `NodeRedis.layer` at `redisUrl`; the store and its Redis client live as long as the client.
 */
const makeRedisStoreClient = async (redisUrl: string, mode: ClientMode): Promise<BenchClient> => {
  const [{ ResilientHttpClient }, { layerRedis }, { policyOptions }] = await Promise.all([
    import("effect-http-resilience-effect4"),
    import("effect-http-resilience-effect4/redis"),
    import("./policyOptions.js")
  ])
  const spec = policyFor(mode)
  const store = layerRedis({ prefix: "bench" }).pipe(Layer.provide(NodeRedis.layer({ url: redisUrl })))
  const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, store))
  const resilient = await runtime.runPromise(
    Effect.flatMap(Effect.service(HttpClient.HttpClient), (transport) =>
      Effect.provideService(
        spec === undefined ? ResilientHttpClient.make() : ResilientHttpClient.make(policyOptions(spec)),
        HttpClient.HttpClient,
        transport
      )
    )
  )
  return effectClient(runtime, (url) => Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json)))
}

/**
 * Builds the Effect 4 client `id` in `mode`. As on the Effect 3 line, `retryTransient` makes 3
 * attempts in all and retries at once on `Retry-After: 0`; in the `overload-*` modes every
 * attempt is counted where the transport sends it, under the retries. `happy-control` builds a
 * second client as `happy` does; `happy-redis` (and `rate-limited-redis`, under the bench's `rateLimit`)
 * is this library's alone, on the Redis at `redisUrl`.
 */
export const makeClient = async (id: Effect4LibraryId, mode: ClientMode, redisUrl?: string): Promise<BenchClient> => {
  if (mode === "happy-redis" || mode === "rate-limited-redis") {
    if (id !== "effect4-http-resilience") throw new Error(`${id} has no ${mode} mode: it keeps no shared state`)
    if (redisUrl === undefined) throw new Error(`the ${mode} mode needs the client process started with a Redis URL`)
    return makeRedisStoreClient(redisUrl, mode)
  }
  const counter = isOverloadMode(mode) ? attemptCounter() : undefined
  const counted = (transport: HttpClient.HttpClient) =>
    counter === undefined
      ? transport
      : HttpClient.transformResponse(transport, (send) => Effect.andThen(Effect.sync(counter.tick), send))
  if (id === "effect4-retry-transient-breaker") {
    const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, breakerFor(mode)))
    const [transport, breaker] = await runtime.runPromise(
      Effect.all([Effect.service(HttpClient.HttpClient), Effect.service(CircuitBreaker.CircuitBreaker)])
    )
    const guarded = retryTransient(counted(transport)).pipe(HttpClient.withCircuitBreaker({ breaker }))
    return effectClient(runtime, readJson(guarded), counter?.read)
  }
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const client = counted(await runtime.runPromise(Effect.service(HttpClient.HttpClient)))
  switch (id) {
    case "effect4":
      return effectClient(runtime, readJson(client))
    case "effect4-retry-transient":
      return effectClient(runtime, readJson(retryTransient(client)), counter?.read)
    case "effect4-http-resilience": {
      const [{ ResilientHttpClient }, { policyOptions }] = await Promise.all([
        import("effect-http-resilience-effect4"),
        import("./policyOptions.js")
      ])
      const spec = policyFor(mode)
      const policy = spec === undefined ? undefined : policyOptions(spec)
      if (mode === "overload-per-call") {
        // The README's pattern: the `HttpClient` in context, made resilient inside each call's effect.
        const perCall = Effect.service(HttpClient.HttpClient).pipe(
          Effect.map(ResilientHttpClient.withResilience(policy)),
          Effect.provideService(HttpClient.HttpClient, client)
        )
        return effectClient(
          runtime,
          (url) =>
            Effect.scoped(
              Effect.flatMap(perCall, (resilient) => Effect.flatMap(resilient.get(url), (response) => response.json))
            ),
          counter?.read
        )
      }
      const make = policy === undefined ? ResilientHttpClient.make() : ResilientHttpClient.make(policy)
      const resilient = await runtime.runPromise(Effect.provideService(make, HttpClient.HttpClient, client))
      return effectClient(
        runtime,
        (url) => Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json)),
        counter?.read
      )
    }
  }
}

/**
 * The client of a hedging client process, as the Effect 3 line's (`packages/bench/src/hedgingClient.ts`):
 * this library's `ResilientHttpClient.make` with the configuration's policy, built once over
 * `layerUndici`, each call's body read to its end, each call observed for the delay of every
 * hedge the library sends.
 */
export const makeHedgingClient = async (mode: HedgingMode): Promise<HedgingClient> => {
  const [{ ResilientHttpClient }, { policyOptions }] = await Promise.all([
    import("effect-http-resilience-effect4"),
    import("./policyOptions.js")
  ])
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const transport = await runtime.runPromise(Effect.service(HttpClient.HttpClient))
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
    client: effectClient(runtime, (url) =>
      observed(Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json)))
    ),
    takeHedgeDelays: delays.take
  }
}

/**
 * The closed loop of a limits client process, as the Effect 3 line's
 * (`packages/bench/src/limitsClient.ts`): per run, this library's `ResilientHttpClient.make` with
 * the row's policy over a fresh `layerUndici` pool and a fresh memory store, each call's body
 * read to its end; a caller refused unsent by the concurrency limit pauses before its next call.
 */
export const runLimitsLoop = async (run: LimitsRun): Promise<LimitsRunResult> => {
  const [{ HttpFailure, ResilienceStore, ResilientHttpClient }, { policyOptions }] = await Promise.all([
    import("effect-http-resilience-effect4"),
    import("./policyOptions.js")
  ])
  const isRefused = (error: unknown): boolean =>
    HttpFailure.isConnectionError(error) && error.reason === "ConcurrencyLimited"
  const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, ResilienceStore.layerMemory()))
  try {
    const client = await runtime.runPromise(
      Effect.flatMap(Effect.service(HttpClient.HttpClient), (transport) =>
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
