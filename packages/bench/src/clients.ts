/**
 * The HTTP clients under comparison, each behind one interface: run `count` GETs with at most
 * `concurrency` in flight, read every body to its end, and count what succeeded.
 *
 * Promise libraries run in a pool of `concurrency` loops; Effect clients are built once and run
 * the batch with `Effect.forEach(..., { concurrency })`, as an Effect program would. Each client
 * process imports only its own library.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Effect from "effect/Effect"
import type * as ManagedRuntime from "effect/ManagedRuntime"
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
}

export interface BatchOutcome {
  readonly ok: number
  readonly failed: number
}

export interface BenchClient {
  readonly runBatch: (batch: Batch) => Promise<BatchOutcome>
  readonly close: () => Promise<void>
}

// A failed call is counted, not thrown: the retry benchmarks expect every call against a lasting
// 503 to fail.
const promisePool =
  (call: (url: string) => Promise<void>) =>
  async (batch: Batch): Promise<BatchOutcome> => {
    const { concurrency, count, latencies, urlFor } = batch
    let next = 0
    let ok = 0
    let failed = 0
    const lane = async (): Promise<void> => {
      while (next < count) {
        const index = next++
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
  call: (url: string) => Effect.Effect<unknown, E>
): BenchClient => ({
  runBatch: async ({ concurrency, count, latencies, urlFor }) => {
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
    await runtime.runPromise(Effect.forEach(indices(count), one, { concurrency, discard: true }))
    return { ok, failed }
  },
  close: () => runtime.dispose()
})

const makeEffectClient = async (id: LibraryId): Promise<BenchClient> => {
  const [Effect, ManagedRuntime, HttpClient, NodeHttpClient] = await Promise.all([
    import("effect/Effect"),
    import("effect/ManagedRuntime"),
    import("@effect/platform/HttpClient"),
    import("@effect/platform-node/NodeHttpClient")
  ])
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const client = await runtime.runPromise(HttpClient.HttpClient)
  switch (id) {
    case "effect-retry-transient": {
      const retrying = client.pipe(HttpClient.filterStatusOk, HttpClient.retryTransient({ times: 2 }))
      return effectClient(Effect, runtime, (url) => Effect.flatMap(retrying.get(url), (response) => response.json))
    }
    case "effect-http-resilience": {
      const { ResilientHttpClient } = await import("effect-http-resilience")
      const resilient = await runtime.runPromise(ResilientHttpClient.make())
      return effectClient(Effect, runtime, (url) =>
        Effect.scoped(Effect.flatMap(resilient.get(url), (response) => response.json))
      )
    }
    default:
      return effectClient(Effect, runtime, (url) => Effect.flatMap(client.get(url), (response) => response.json))
  }
}

/**
 * Builds the client of `id` for this process. In `"retry"` mode, the libraries that would not
 * retry at once on `Retry-After: 0` are told to (got waits 1 s, `RetryAgent` 500 ms otherwise),
 * so that a retry's cost is measured rather than a timer; every client makes 3 attempts in all.
 */
export const makeClient = async (id: LibraryId, mode: ClientMode): Promise<BenchClient> => {
  switch (id) {
    case "undici": {
      const { Agent, request } = await import("undici")
      const agent = new Agent()
      return { runBatch: promisePool(undiciCall(request, agent)), close: () => agent.close() }
    }
    case "undici-retry-agent": {
      const { Agent, RetryAgent, request } = await import("undici")
      const retryAgent = new RetryAgent(new Agent(), mode === "retry" ? { maxRetries: 2, minTimeout: 0 } : {})
      return { runBatch: promisePool(undiciCall(request, retryAgent)), close: () => retryAgent.close() }
    }
    case "fetch":
      return { runBatch: promisePool(fetchCall), close: () => Promise.resolve() }
    case "got": {
      const { default: got } = await import("got")
      const client =
        mode === "retry"
          ? got.extend({ retry: { limit: 2, calculateDelay: ({ computedValue }) => (computedValue === 0 ? 0 : 1) } })
          : got
      return {
        runBatch: promisePool(async (url) => {
          await client(url).json()
        }),
        close: () => Promise.resolve()
      }
    }
    case "ky": {
      const { default: ky } = await import("ky")
      const client = ky.create({})
      return {
        runBatch: promisePool(async (url) => {
          await client.get(url).json()
        }),
        close: () => Promise.resolve()
      }
    }
    case "effect":
    case "effect-retry-transient":
    case "effect-http-resilience":
      return makeEffectClient(id)
  }
}
