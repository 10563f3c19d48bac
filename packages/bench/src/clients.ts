/**
 * The HTTP clients under comparison, each behind one interface (`BenchClient`): run `count` GETs
 * with at most `concurrency` in flight (optionally paced: call `i` started no earlier than
 * `startAt(i)`), read every body to its end, and count what succeeded; in the `overload-*`
 * modes, count every attempt too.
 *
 * Promise libraries run in a pool of `concurrency` loops; Effect clients are built once and run
 * the batch with `Effect.forEach(..., { concurrency })`, as an Effect program would. Each client
 * process imports only its own library. The Effect 4 clients are built in Effect 4 client
 * processes (`packages/bench-effect4`, under Node 22), not here.
 */
import type * as Effect from "effect/Effect"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Undici from "undici"
import {
  attemptCounter,
  type Batch,
  batchRecorder,
  type BatchOutcome,
  type BenchClient,
  indices,
  isOverloadMode,
  policyFor
} from "./benchClient.js"
import type { ClientMode, LibraryId } from "./protocol.js"

export interface Library {
  readonly id: LibraryId
  readonly label: string
  /** Whether the client retries at all (and so takes part in the retry benchmarks). */
  readonly retries: boolean
  /** What the client is, for the report. */
  readonly description: string
  /**
   * Whether it is an Effect 4 client: it runs in an Effect 4 client process, under Node 22
   * (Effect 4's undici transport needs 22.19+), and its ratios are to the Effect 4 line's bare
   * client and `retryTransient`, measured in the same run.
   */
  readonly effect4: boolean
}

export const libraries: ReadonlyArray<Library> = [
  {
    id: "undici",
    label: "undici.request",
    retries: false,
    description: "raw `undici.request` on its own `Agent`",
    effect4: false
  },
  { id: "fetch", label: "fetch", retries: false, description: "Node's global `fetch`", effect4: false },
  {
    id: "effect",
    label: "Effect HttpClient",
    retries: false,
    description: "bare `@effect/platform` `HttpClient` over `NodeHttpClient.layerUndici`",
    effect4: false
  },
  {
    id: "effect-retry-transient",
    label: "Effect + retryTransient",
    retries: true,
    description: "the same with `HttpClient.filterStatusOk` and `HttpClient.retryTransient({ times: 2 })`",
    effect4: false
  },
  {
    id: "effect-http-resilience",
    label: "effect-http-resilience",
    retries: true,
    description: "`ResilientHttpClient.make()` (default policy) over the same `layerUndici`",
    effect4: false
  },
  { id: "got", label: "got", retries: true, description: "got with its default retry (2 retries)", effect4: false },
  {
    id: "ky",
    label: "ky",
    retries: true,
    description: "ky with its default retry (2 retries), over `fetch`",
    effect4: false
  },
  {
    id: "undici-retry-agent",
    label: "undici RetryAgent",
    retries: true,
    description: "`undici.request` through `new RetryAgent(new Agent())`",
    effect4: false
  },
  {
    id: "effect4",
    label: "Effect 4 HttpClient",
    retries: false,
    description:
      "bare Effect 4 `effect/http` `HttpClient` over `@effect/platform-node` 4's `NodeHttpClient.layerUndici`",
    effect4: true
  },
  {
    id: "effect4-retry-transient",
    label: "Effect 4 + retryTransient",
    retries: true,
    description: "the same with `HttpClient.filterStatusOk` and `HttpClient.retryTransient({ times: 2 })`",
    effect4: true
  },
  {
    id: "effect4-retry-transient-breaker",
    label: "Effect 4 + retryTransient + withCircuitBreaker",
    retries: true,
    description:
      "the same with `HttpClient.withCircuitBreaker` after `retryTransient`, on `effect/persistence`'s " +
      "`CircuitBreaker` (memory store): `rate({ threshold: 0.1, size: 100 })` and 5 s open, the nearest to " +
      "this library's default breaker; in the retry and memory benchmarks `consecutive(Number.MAX_SAFE_INTEGER)`, " +
      "which never opens",
    effect4: true
  },
  {
    id: "effect4-http-resilience",
    label: "effect-http-resilience-effect4",
    retries: true,
    description:
      "`ResilientHttpClient.make()` of `effect-http-resilience-effect4` (default policy) over the same `layerUndici`",
    effect4: true
  }
]

export const libraryById = (id: LibraryId): Library => {
  const library = libraries.find((candidate) => candidate.id === id)
  if (library === undefined) throw new Error(`unknown library ${id}`)
  return library
}

/** The bare Effect client `id`'s throughput is compared with: that of its own Effect line. */
export const bareEffectOf = (id: LibraryId): LibraryId => (libraryById(id).effect4 ? "effect4" : "effect")

/** The `retryTransient` client `id`'s retry is compared with: that of its own Effect line. */
export const retryTransientOf = (id: LibraryId): LibraryId =>
  libraryById(id).effect4 ? "effect4-retry-transient" : "effect-retry-transient"

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

const promisePool =
  (call: (url: string) => Promise<void>) =>
  async (batch: Batch): Promise<BatchOutcome> => {
    const { concurrency, count, urlFor } = batch
    const record = batchRecorder(batch)
    const { waitBefore } = record
    let next = 0
    const lane = async (): Promise<void> => {
      while (next < count) {
        const index = next++
        const wait = waitBefore?.(index) ?? 0
        if (wait > 0) await sleep(wait)
        const started = performance.now()
        let succeeded = true
        try {
          await call(urlFor(index))
        } catch {
          succeeded = false
        }
        record.done(index, started, succeeded)
      }
    }
    const lanes: Array<Promise<void>> = []
    for (let opened = 0; opened < Math.min(concurrency, count); opened++) lanes.push(lane())
    await Promise.all(lanes)
    return record.outcome()
  }

const isSuccess = (status: number): boolean => status >= 200 && status < 300

// A non-2xx answer is read to its end (so the connection is reused) and is a failure.
const undiciCall =
  (request: typeof Undici.request, dispatcher: Undici.Dispatcher) =>
  async (url: string): Promise<void> => {
    const response = await request(url, { dispatcher })
    if (!isSuccess(response.statusCode)) {
      await response.body.dump()
      throw new Error(`status ${response.statusCode}`)
    }
    await response.body.json()
  }

const fetchCall = async (url: string): Promise<void> => {
  const response = await fetch(url)
  if (!response.ok) {
    await response.arrayBuffer()
    throw new Error(`status ${response.status}`)
  }
  await response.json()
}

export const effectClient = <E, R, ER>(
  Effect: typeof import("effect/Effect"),
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
              return wait > 0 ? Effect.zipRight(Effect.sleep(wait), one(index)) : one(index)
            })
    await runtime.runPromise(
      Effect.forEach(indices(batch.count), paced, { concurrency: batch.concurrency, discard: true })
    )
    return record.outcome()
  },
  close: () => runtime.dispose()
})

/**
 * This library's client in the `happy-redis` mode: as in `happy` (its defaults, built once over
 * the same transport), its calls run with `layerRedis` (`effect-http-resilience/redis`) in context, a store that
 * lives as long as the client, on the Redis at `redisUrl`.
 */
const makeRedisStoreClient = async (redisUrl: string, mode: ClientMode): Promise<BenchClient> => {
  const [
    Effect,
    Layer,
    ManagedRuntime,
    HttpClient,
    NodeHttpClient,
    { ResilientHttpClient },
    { layerRedis },
    { policyOptions }
  ] = await Promise.all([
    import("effect/Effect"),
    import("effect/Layer"),
    import("effect/ManagedRuntime"),
    import("@effect/platform/HttpClient"),
    import("@effect/platform-node/NodeHttpClient"),
    import("effect-http-resilience"),
    import("effect-http-resilience/redis"),
    import("./policyOptions.js")
  ])
  const spec = policyFor(mode)
  const runtime = ManagedRuntime.make(
    Layer.merge(NodeHttpClient.layerUndici, layerRedis({ url: redisUrl, prefix: "bench" }))
  )
  const resilient = await runtime.runPromise(
    Effect.flatMap(HttpClient.HttpClient, (transport) =>
      Effect.provideService(
        spec === undefined ? ResilientHttpClient.make() : ResilientHttpClient.make(policyOptions(spec)),
        HttpClient.HttpClient,
        transport
      )
    )
  )
  return effectClient(Effect, runtime, (url) =>
    Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json))
  )
}

const makeEffectClient = async (id: LibraryId, mode: ClientMode): Promise<BenchClient> => {
  const [Effect, ManagedRuntime, HttpClient, NodeHttpClient] = await Promise.all([
    import("effect/Effect"),
    import("effect/ManagedRuntime"),
    import("@effect/platform/HttpClient"),
    import("@effect/platform-node/NodeHttpClient")
  ])
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const transport = await runtime.runPromise(HttpClient.HttpClient)
  // Counting wraps the transport's sending, under the retries: every attempt, sent or refused, is
  // one. (`tapRequest` would not do: it taps the request's preparation, which a combinator may
  // run once per call and not per attempt, as this library's does.)
  const counter = isOverloadMode(mode) ? attemptCounter() : undefined
  const client =
    counter === undefined
      ? transport
      : HttpClient.transformResponse(transport, (send) => Effect.zipRight(Effect.sync(counter.tick), send))
  switch (id) {
    case "effect-retry-transient": {
      const retrying = client.pipe(HttpClient.filterStatusOk, HttpClient.retryTransient({ times: 2 }))
      return effectClient(
        Effect,
        runtime,
        (url) => Effect.flatMap(retrying.get(url), (response) => response.json),
        counter?.read
      )
    }
    case "effect-http-resilience": {
      const [{ ResilientHttpClient }, { policyOptions }] = await Promise.all([
        import("effect-http-resilience"),
        import("./policyOptions.js")
      ])
      const spec = policyFor(mode)
      const policy = spec === undefined ? undefined : policyOptions(spec)
      if (mode === "overload-per-call") {
        // The README's pattern: the `HttpClient` in context, made resilient inside each call's effect.
        const perCall = HttpClient.HttpClient.pipe(
          Effect.map(ResilientHttpClient.withResilience(policy)),
          Effect.provideService(HttpClient.HttpClient, client)
        )
        return effectClient(
          Effect,
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
        Effect,
        runtime,
        (url) => Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json)),
        counter?.read
      )
    }
    default:
      return effectClient(Effect, runtime, (url) => Effect.flatMap(client.get(url), (response) => response.json))
  }
}

/**
 * Builds the client of `id` for this process. In `"retry"` and the `overload-*` modes, the
 * libraries that would not retry at once on `Retry-After: 0` are told to (got waits 1 s,
 * `RetryAgent` 500 ms otherwise), so that a retry's cost is measured rather than a timer; every
 * client makes 3 attempts in all. In the `overload-*` modes, got, ky and the Effect clients count
 * their attempts. `happy-control` builds a second client as `happy` does; `happy-redis` (and
 * `rate-limited-redis`, its calls under the bench's `rateLimit`) is this
 * library's alone, on the Redis at `redisUrl`.
 */
export const makeClient = async (id: LibraryId, mode: ClientMode, redisUrl?: string): Promise<BenchClient> => {
  if (mode === "happy-redis" || mode === "rate-limited-redis") {
    if (id !== "effect-http-resilience") throw new Error(`${id} has no ${mode} mode: it keeps no shared state`)
    if (redisUrl === undefined) throw new Error(`the ${mode} mode needs the client process started with a Redis URL`)
    return makeRedisStoreClient(redisUrl, mode)
  }
  const retryAtOnce = mode !== "happy" && mode !== "happy-control" && mode !== "rate-limited"
  switch (id) {
    case "undici": {
      const { Agent, request } = await import("undici")
      const agent = new Agent()
      return { runBatch: promisePool(undiciCall(request, agent)), close: () => agent.close() }
    }
    case "undici-retry-agent": {
      const { Agent, RetryAgent, request } = await import("undici")
      const retryAgent = new RetryAgent(new Agent(), retryAtOnce ? { maxRetries: 2, minTimeout: 0 } : {})
      return { runBatch: promisePool(undiciCall(request, retryAgent)), close: () => retryAgent.close() }
    }
    case "fetch":
      return { runBatch: promisePool(fetchCall), close: () => Promise.resolve() }
    case "got": {
      const { default: got } = await import("got")
      const counter = isOverloadMode(mode) ? attemptCounter() : undefined
      const retrying = retryAtOnce
        ? got.extend({ retry: { limit: 2, calculateDelay: ({ computedValue }) => (computedValue === 0 ? 0 : 1) } })
        : got
      // got runs `beforeRequest` before every attempt, its retries included.
      const client = counter === undefined ? retrying : retrying.extend({ hooks: { beforeRequest: [counter.tick] } })
      return {
        runBatch: promisePool(async (url) => {
          await client(url).json()
        }),
        close: () => Promise.resolve(),
        attempts: counter?.read
      }
    }
    case "ky": {
      const { default: ky } = await import("ky")
      const counter = isOverloadMode(mode) ? attemptCounter() : undefined
      const client =
        counter === undefined
          ? ky.create({})
          : ky.create({
              fetch: (input, init) => {
                counter.tick()
                return fetch(input, init)
              }
            })
      return {
        runBatch: promisePool(async (url) => {
          await client.get(url).json()
        }),
        close: () => Promise.resolve(),
        attempts: counter?.read
      }
    }
    case "effect":
    case "effect-retry-transient":
    case "effect-http-resilience":
      return makeEffectClient(id, mode)
    case "effect4":
    case "effect4-retry-transient":
    case "effect4-retry-transient-breaker":
    case "effect4-http-resilience":
      throw new Error(`${id} is built in an Effect 4 client process (packages/bench-effect4), not here`)
  }
}
