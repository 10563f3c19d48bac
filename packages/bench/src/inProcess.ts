/**
 * CPU per call of each Effect client over in-memory transports (no sockets, no second
 * process): what the client itself costs, without the network's noise, and the ablations that
 * account for it. `pnpm bench:profile` runs it; under `node --cpu-prof` it shows where the time
 * goes. Medians over interleaved rounds; every ratio is to the bare client of the same run.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
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

const cpuMicrosPerCall = async (call: Call, n: number, concurrency: number): Promise<number> => {
  const start = process.cpuUsage()
  await Effect.runPromise(Effect.forEach(Array.from({ length: n }), call, { discard: true, concurrency }))
  const used = process.cpuUsage(start)
  return (used.user + used.system) / n
}

const measure = async (calls: Record<string, Call>, n: number, rounds: number, concurrency: number) => {
  const names = Object.keys(calls)
  for (const name of names) await cpuMicrosPerCall(calls[name]!, Math.min(n, 2_000), concurrency)
  const samples = new Map<string, Array<number>>()
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const list = samples.get(name) ?? []
      list.push(await cpuMicrosPerCall(calls[name]!, n, concurrency))
      samples.set(name, list)
    }
  }
  return new Map(names.map((name) => [name, median(samples.get(name) ?? [])]))
}

const main = async () => {
  const n = Number(process.argv[2] ?? 20_000)
  const rounds = Number(process.argv[3] ?? 7)
  for (const concurrency of [1, 64]) {
    const happy = await measure(happyPath, n, rounds, concurrency)
    const bare = happy.get("Effect HttpClient (bare)") ?? 1
    console.log(`CPU per call, in process, c=${concurrency} (median of ${rounds} rounds of ${n} calls)`)
    for (const [name, micros] of happy) {
      console.log(`  ${name.padEnd(28)} ${micros.toFixed(1).padStart(7)} µs   ${(bare / micros).toFixed(2)}x bare`)
    }
  }
  // One call at a time: the transports alternate 503 and 200.
  const retried = await measure(retries, Math.round(n / 2), rounds, 1)
  const cost = (plain: string, once: string) => (retried.get(once) ?? 0) - (retried.get(plain) ?? 0)
  const theirs = cost("retryTransient, plain", "retryTransient, one retry")
  const ours = cost("ours, plain", "ours, one retry")
  console.log("CPU per retry, in process")
  console.log(`  retryTransient  ${theirs.toFixed(1).padStart(7)} µs`)
  console.log(`  ours            ${ours.toFixed(1).padStart(7)} µs   ${(ours / theirs).toFixed(2)}x retryTransient`)
}

main()
