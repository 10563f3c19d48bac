/**
 * The HTTP clients under comparison, each behind one interface: run `count` GETs with at most
 * `concurrency` in flight (optionally paced: call `i` started no earlier than `startAt(i)`),
 * read every body to its end, and count what succeeded; in the `overload-*` modes, count every
 * attempt too.
 *
 * Promise libraries run in a pool of `concurrency` loops; Effect clients are built once and run
 * the batch with `Effect.forEach(..., { concurrency })`, as an Effect program would. Each client
 * process imports only its own library.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Effect from "effect/Effect"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type { RetryPolicy } from "effect-http-resilience"
import type * as Undici from "undici"
import type { ClientMode, LibraryId } from "./protocol.js"

export interface Library {
  readonly id: LibraryId
  readonly label: string
  /** Whether the client retries at all (and so takes part in the retry benchmarks). */
  readonly retries: boolean
  /** What the client is, for the report. */
  readonly description: string
}

export const libraries: ReadonlyArray<Library> = [
  { id: "undici", label: "undici.request", retries: false, description: "raw `undici.request` on its own `Agent`" },
  { id: "fetch", label: "fetch", retries: false, description: "Node's global `fetch`" },
  {
    id: "effect",
    label: "Effect HttpClient",
    retries: false,
    description: "bare `@effect/platform` `HttpClient` over `NodeHttpClient.layerUndici`"
  },
  {
    id: "effect-retry-transient",
    label: "Effect + retryTransient",
    retries: true,
    description: "the same with `HttpClient.filterStatusOk` and `HttpClient.retryTransient({ times: 2 })`"
  },
  {
    id: "effect-http-resilience",
    label: "effect-http-resilience",
    retries: true,
    description: "`ResilientHttpClient.make()` (default policy) over the same `layerUndici`"
  },
  { id: "got", label: "got", retries: true, description: "got with its default retry (2 retries)" },
  { id: "ky", label: "ky", retries: true, description: "ky with its default retry (2 retries), over `fetch`" },
  {
    id: "undici-retry-agent",
    label: "undici RetryAgent",
    retries: true,
    description: "`undici.request` through `new RetryAgent(new Agent())`"
  }
]

export const libraryById = (id: LibraryId): Library => {
  const library = libraries.find((candidate) => candidate.id === id)
  if (library === undefined) throw new Error(`unknown library ${id}`)
  return library
}

export interface Batch {
  readonly urlFor: (index: number) => string
  readonly count: number
  readonly concurrency: number
  /** When present, the latency of call `i` in milliseconds is written at index `i`. */
  readonly latencies: Float64Array | undefined
  /** When present, call `i` starts no earlier than this many milliseconds after the batch. */
  readonly startAt?: ((index: number) => number) | undefined
}

export interface BatchOutcome {
  readonly ok: number
  readonly failed: number
}

export interface BenchClient {
  readonly runBatch: (batch: Batch) => Promise<BatchOutcome>
  readonly close: () => Promise<void>
  /** Attempts made so far (every request the library tried to send), when the mode counts them. */
  readonly attempts?: (() => number) | undefined
}

/** Whether a mode is one of the overload benchmarks', whose clients count their attempts. */
export const isOverloadMode = (mode: ClientMode): boolean => mode.startsWith("overload-")

/** A counter of attempts, ticked by the transport (or a hook) under the library's retries. */
const attemptCounter = () => {
  let attempts = 0
  return {
    tick: (): void => {
      attempts++
    },
    read: (): number => attempts
  }
}

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

// A failed call is counted, not thrown: the retry benchmarks expect every call against a lasting
// 503 to fail.
const promisePool =
  (call: (url: string) => Promise<void>) =>
  async (batch: Batch): Promise<BatchOutcome> => {
    const { concurrency, count, latencies, startAt, urlFor } = batch
    const batchStarted = performance.now()
    let next = 0
    let ok = 0
    let failed = 0
    const lane = async (): Promise<void> => {
      while (next < count) {
        const index = next++
        if (startAt !== undefined) {
          const wait = batchStarted + startAt(index) - performance.now()
          if (wait > 0) await sleep(wait)
        }
        const started = performance.now()
        try {
          await call(urlFor(index))
          ok++
        } catch {
          failed++
        }
        if (latencies !== undefined) latencies[index] = performance.now() - started
      }
    }
    const lanes: Array<Promise<void>> = []
    for (let opened = 0; opened < Math.min(concurrency, count); opened++) lanes.push(lane())
    await Promise.all(lanes)
    return { ok, failed }
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

const indexCache = new Map<number, ReadonlyArray<number>>()
const indices = (count: number): ReadonlyArray<number> => {
  let cached = indexCache.get(count)
  if (cached === undefined) {
    cached = Array.from({ length: count }, (_, index) => index)
    indexCache.set(count, cached)
  }
  return cached
}

const effectClient = <E>(
  Effect: typeof import("effect/Effect"),
  runtime: ManagedRuntime.ManagedRuntime<HttpClient.HttpClient, never>,
  call: (url: string) => Effect.Effect<unknown, E>,
  attempts?: () => number
): BenchClient => ({
  attempts,
  runBatch: async ({ concurrency, count, latencies, startAt, urlFor }) => {
    let ok = 0
    let failed = 0
    const one = (index: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const started = performance.now()
        return Effect.match(call(urlFor(index)), {
          onFailure: () => {
            failed++
            if (latencies !== undefined) latencies[index] = performance.now() - started
          },
          onSuccess: () => {
            ok++
            if (latencies !== undefined) latencies[index] = performance.now() - started
          }
        })
      })
    const batchStarted = performance.now()
    const paced =
      startAt === undefined
        ? one
        : (index: number): Effect.Effect<void> =>
            Effect.suspend(() => {
              const wait = batchStarted + startAt(index) - performance.now()
              return wait > 0 ? Effect.zipRight(Effect.sleep(wait), one(index)) : one(index)
            })
    await runtime.runPromise(Effect.forEach(indices(count), paced, { concurrency, discard: true }))
    return { ok, failed }
  },
  close: () => runtime.dispose()
})

/**
 * This library's policy in a mode: its defaults (made as a program would, with no options) on
 * the happy path and in the overload mode of that name; without the budget, or with the default
 * circuit breaker as well (Polly's sampling defaults), in the other overload modes. In `"retry"`
 * mode, whose benchmarks make every call fail at least once, a budget that never runs dry
 * (Finagle's, ratio 1000): every retry is made and still pays the budget's bookkeeping.
 */
const policyFor = (mode: ClientMode): RetryPolicy.Options | undefined => {
  switch (mode) {
    case "happy":
      return undefined
    case "retry":
      return { retryBudget: { ratio: 1000 } }
    case "overload-default":
      return {}
    case "overload-no-budget":
      return { retryBudget: "none" }
    case "overload-breaker":
      return { circuitBreaker: {} }
  }
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
      const { ResilientHttpClient } = await import("effect-http-resilience")
      const policy = policyFor(mode)
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
 * their attempts.
 */
export const makeClient = async (id: LibraryId, mode: ClientMode): Promise<BenchClient> => {
  const retryAtOnce = mode !== "happy"
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
  }
}
