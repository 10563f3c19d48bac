/**
 * CPU per call of each Effect client over in-memory transports (no sockets, no second
 * process): what the client itself costs, without the network's noise, and the ablations that
 * account for it. `pnpm bench:profile` runs it; under `node --cpu-prof` it shows where the time
 * goes. Medians over interleaved rounds; every ratio is to the bare client of the same run.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as V8 from "node:v8"
import * as Effect from "effect/Effect"
import { ResilientHttpClient } from "effect-http-resilience"
import { median } from "./stats.js"

const okBody = JSON.stringify({ ok: true })
const ok = (request: Parameters<typeof HttpClientResponse.fromWeb>[0]) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(okBody, { status: 200, headers: { "content-type": "application/json", "content-length": "11" } })
  )

const steady = HttpClient.make((request) => Effect.sync(() => ok(request)))

// Every other request is a 503 with `Retry-After: 0`: each call fails once, then succeeds.
const flakyTransport = () => {
  let requests = 0
  return HttpClient.make((request) =>
    Effect.sync(() => {
      requests++
      return requests % 2 === 1
        ? HttpClientResponse.fromWeb(
            request,
            new Response('{"error":"down"}', { status: 503, headers: { "retry-after": "0", "content-length": "16" } })
          )
        : ok(request)
    })
  )
}

const url = "http://in-memory.test/ok"
const retryTransient = (client: HttpClient.HttpClient) =>
  client.pipe(HttpClient.filterStatusOk, HttpClient.retryTransient({ times: 2 }))
const noBudget = { retryBudget: "none" } as const

type Call = () => Effect.Effect<unknown, unknown>

const unscoped =
  (client: HttpClient.HttpClient.With<unknown>): Call =>
  () =>
    Effect.flatMap(client.get(url), (response) => response.json)
const scoped =
  (client: HttpClient.HttpClient.With<unknown, import("effect/Scope").Scope>): Call =>
  () =>
    Effect.scoped(Effect.flatMap(client.get(url), (response) => response.json))

const happyPath: Record<string, Call> = {
  "Effect HttpClient (bare)": unscoped(steady),
  "bare, in a Scope": scoped(steady),
  "Effect + retryTransient": unscoped(retryTransient(steady)),
  "effect-http-resilience": scoped(ResilientHttpClient.withResilience(steady)),
  "  without time limits": scoped(
    ResilientHttpClient.withResilience(steady, { attemptTimeout: "infinity", totalTimeout: "infinity" })
  ),
  "  without retry budget": scoped(ResilientHttpClient.withResilience(steady, noBudget))
}

const retries: Record<string, Call> = {
  "retryTransient, plain": unscoped(retryTransient(steady)),
  "retryTransient, one retry": unscoped(retryTransient(flakyTransport())),
  "ours, plain": scoped(ResilientHttpClient.withResilience(steady, noBudget)),
  "ours, one retry": scoped(ResilientHttpClient.withResilience(flakyTransport(), noBudget))
}

interface PerCall {
  readonly cpuMicros: number
  readonly allocatedBytes: number
}

// JS heap bytes allocated in between: what is still there plus what every collection freed.
const allocationCounter = () => {
  const profiler = new V8.GCProfiler()
  const usedAtStart = V8.getHeapStatistics().used_heap_size
  profiler.start()
  return (): number => {
    const profile = profiler.stop()
    let freed = 0
    for (const collection of profile.statistics) {
      freed += collection.beforeGC.heapStatistics.usedHeapSize - collection.afterGC.heapStatistics.usedHeapSize
    }
    return V8.getHeapStatistics().used_heap_size - usedAtStart + freed
  }
}

const perCall = async (call: Call, n: number, concurrency: number): Promise<PerCall> => {
  const stopCounting = allocationCounter()
  const start = process.cpuUsage()
  await Effect.runPromise(Effect.forEach(Array.from({ length: n }), call, { discard: true, concurrency }))
  const used = process.cpuUsage(start)
  return { cpuMicros: (used.user + used.system) / n, allocatedBytes: stopCounting() / n }
}

const measure = async (calls: Record<string, Call>, n: number, rounds: number, concurrency: number) => {
  const names = Object.keys(calls)
  for (const name of names) await perCall(calls[name]!, Math.min(n, 2_000), concurrency)
  const samples = new Map<string, Array<PerCall>>()
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const list = samples.get(name) ?? []
      list.push(await perCall(calls[name]!, n, concurrency))
      samples.set(name, list)
    }
  }
  return new Map(
    names.map((name) => {
      const list = samples.get(name) ?? []
      const figures: PerCall = {
        cpuMicros: median(list.map((sample) => sample.cpuMicros)),
        allocatedBytes: median(list.map((sample) => sample.allocatedBytes))
      }
      return [name, figures] as const
    })
  )
}

const main = async () => {
  const n = Number(process.argv[2] ?? 20_000)
  const rounds = Number(process.argv[3] ?? 7)
  for (const concurrency of [1, 64]) {
    const happy = await measure(happyPath, n, rounds, concurrency)
    const bare = happy.get("Effect HttpClient (bare)")?.cpuMicros ?? 1
    console.log(`Per call, in process, c=${concurrency} (median of ${rounds} rounds of ${n} calls)`)
    for (const [name, { allocatedBytes, cpuMicros }] of happy) {
      const kib = (allocatedBytes / 1024).toFixed(1)
      console.log(
        `  ${name.padEnd(28)} ${cpuMicros.toFixed(1).padStart(7)} µs CPU  ${(bare / cpuMicros).toFixed(2)}x bare  ${kib.padStart(6)} KiB allocated`
      )
    }
  }
  // One call at a time: the transports alternate 503 and 200.
  const retried = await measure(retries, Math.round(n / 2), rounds, 1)
  const cost = (plain: string, once: string, of: keyof PerCall) =>
    (retried.get(once)?.[of] ?? 0) - (retried.get(plain)?.[of] ?? 0)
  const line = (label: string, plain: string, once: string) =>
    `  ${label.padEnd(15)} ${cost(plain, once, "cpuMicros").toFixed(1).padStart(7)} µs CPU  ${(cost(plain, once, "allocatedBytes") / 1024).toFixed(1).padStart(6)} KiB allocated`
  console.log("Per retry, in process")
  console.log(line("retryTransient", "retryTransient, plain", "retryTransient, one retry"))
  console.log(line("ours", "ours, plain", "ours, one retry"))
}

main()
