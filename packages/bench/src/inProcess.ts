/**
 * `pnpm bench:profile`: CPU time and JS heap allocated per call of each Effect client over
 * in-memory transports (no sockets, no second process), what the client itself costs without
 * the network's noise. The Effect 3 line here, then the Effect 4 line in a child process under
 * Node 22 (`packages/bench-effect4/src/inProcess.ts`); each is compared with its own bare
 * client and `retryTransient`, in interleaved rounds (`profile.ts`). With `--cpu-prof-dir` it
 * shows where each row's time goes.
 *
 * usage: pnpm bench:profile [--quick] [--calls=N] [--rounds=N] [--outage-calls=N] [--ablations] [--effect3-only]
 *   [--cpu-prof-dir=<dir>] (one more batch of each row under the sampling profiler, a .cpuprofile each)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { ResilientHttpClient } from "effect-http-resilience"
import { policyFor } from "./benchClient.js"
import { policyOptions } from "./policyOptions.js"
import { node22Binary } from "./processes.js"
import { type Batch, type LineProfile, parseProfileArgs, profileArgs, runProfile } from "./profile.js"

type Request = Parameters<typeof HttpClientResponse.fromWeb>[0]

const okBody = JSON.stringify({ ok: true })
const ok = (request: Request) =>
  HttpClientResponse.fromWeb(
    request,
    new Response(okBody, { status: 200, headers: { "content-type": "application/json", "content-length": "11" } })
  )
const unavailable = (request: Request) =>
  HttpClientResponse.fromWeb(
    request,
    new Response('{"error":"down"}', { status: 503, headers: { "retry-after": "0", "content-length": "16" } })
  )

const steady = HttpClient.make((request) => Effect.sync(() => ok(request)))

// Every other request is a 503 with `Retry-After: 0`: run one at a time, each call fails once, then succeeds.
const flaky = () => {
  let requests = 0
  return HttpClient.make((request) => Effect.sync(() => (++requests % 2 === 1 ? unavailable(request) : ok(request))))
}

const retryTransient = (client: HttpClient.HttpClient) =>
  client.pipe(HttpClient.filterStatusOk, HttpClient.retryTransient({ times: 2 }))

type Policy = Parameters<typeof ResilientHttpClient.make>[0]
// The defaults as a plain record, as a program passes its options; in the retried rows a budget
// that never runs dry, as in `pnpm bench` (every call there retries).
const happyPolicy: Policy = {}
const retryPolicy: Policy = policyOptions(policyFor("retry") ?? {})

/** Runs the calls with `context`'s services; a failure is recorded, not thrown. */
const batchWith =
  <E, R>(context: Context.Context<R>, call: () => Effect.Effect<unknown, E, R>): Batch =>
  async (calls, concurrency) => {
    let firstFailure: string | undefined
    const recorded = Effect.tapErrorCause(Effect.suspend(call), (cause) =>
      Effect.sync(() => {
        firstFailure ??= Cause.pretty(cause)
      })
    )
    await Effect.runPromise(
      Effect.forEach(Array.from({ length: calls }), () => Effect.ignore(recorded), { discard: true, concurrency }).pipe(
        Effect.provide(context)
      )
    )
    return { firstFailure }
  }

/** Runs the calls with `transport` as the `HttpClient` in context. */
const batchOf = <E>(
  transport: HttpClient.HttpClient,
  call: () => Effect.Effect<unknown, E, HttpClient.HttpClient>
): Batch => batchWith(Context.make(HttpClient.HttpClient, transport), call)

const readJson =
  <E>(client: HttpClient.HttpClient.With<E>, url: string) =>
  () =>
    Effect.flatMap(client.get(url), (response) => response.json)
const readJsonScoped =
  <E>(client: HttpClient.HttpClient.With<E>, url: string) =>
  () =>
    Effect.scoped(Effect.flatMap(client.get(url), (response) => response.json))

// Built once, as a layer does, and looked up as a service by each call.
const once =
  (transport: HttpClient.HttpClient, policy: Policy) =>
  async (url: string): Promise<Batch> => {
    const service = await Effect.runPromise(
      Effect.provideService(ResilientHttpClient.make(policy), HttpClient.HttpClient, transport)
    )
    // Provided once for the batch, as a program provides the layer once; each call looks it up.
    return batchWith(
      Context.make(HttpClient.HttpClient, transport).pipe(
        Context.add(ResilientHttpClient.ResilientHttpClient, service)
      ),
      () =>
        Effect.scoped(
          Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
            Effect.flatMap(client.get(url), (response) => response.json)
          )
        )
    )
  }

// The README's pattern: the `HttpClient` in context, made resilient inside the effect of each call.
const perCall =
  (transport: HttpClient.HttpClient, policy: Policy) =>
  async (url: string): Promise<Batch> =>
    batchOf(transport, () =>
      Effect.scoped(
        Effect.flatMap(HttpClient.HttpClient, (http) =>
          Effect.flatMap(http.pipe(ResilientHttpClient.withResilience(policy)).get(url), (response) => response.json)
        )
      )
    )

/** The requests a total outage receives from `calls` calls made with `call`. */
const outage = async (
  call: (
    url: string
  ) => Effect.Effect<unknown, unknown, HttpClient.HttpClient | ResilientHttpClient.ResilientHttpClient>,
  url: string,
  calls: number
): Promise<number> => {
  let requests = 0
  const down = HttpClient.make((request) =>
    Effect.sync(() => {
      requests++
      return unavailable(request)
    })
  )
  const shared = await Effect.runPromise(Effect.provideService(ResilientHttpClient.make(), HttpClient.HttpClient, down))
  await Effect.runPromise(
    Effect.forEach(Array.from({ length: calls }), () => Effect.exit(call(url)), {
      discard: true,
      concurrency: 64
    }).pipe(
      Effect.provideService(HttpClient.HttpClient, down),
      Effect.provideService(ResilientHttpClient.ResilientHttpClient, shared)
    )
  )
  return requests
}

const effect3: LineProfile = {
  title: `Effect 3 (Node ${process.version})`,
  happy: {
    bare: async (url) => batchOf(steady, readJson(steady, url)),
    retryTransient: async (url) => batchOf(steady, readJson(retryTransient(steady), url)),
    once: once(steady, happyPolicy),
    perCall: perCall(steady, happyPolicy),
    bareScoped: async (url) => batchOf(steady, readJsonScoped(steady, url)),
    onceNoTimeLimits: once(steady, { attemptTimeout: "infinity", totalTimeout: "infinity" }),
    onceNoBudget: once(steady, { retryBudget: "none" })
  },
  retried: {
    retryTransient: async (url) => batchOf(steady, readJson(retryTransient(flaky()), url)),
    once: (url) => once(flaky(), retryPolicy)(url),
    perCall: (url) => perCall(flaky(), retryPolicy)(url)
  },
  outage: {
    perCall: (url, calls) =>
      outage(
        (url) =>
          Effect.scoped(
            Effect.flatMap(HttpClient.HttpClient, (http) => http.pipe(ResilientHttpClient.withResilience()).get(url))
          ),
        url,
        calls
      ),
    shared: (url, calls) =>
      outage(
        (url) => Effect.scoped(Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.get(url))),
        url,
        calls
      )
  }
}

// Children run the TypeScript sources through tsx, as the bench's client processes do.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
const effect4Entry = fileURLToPath(new URL("../../bench-effect4/src/inProcess.ts", import.meta.url))

/** The Effect 4 line, in a process of its own under Node 22; its tables go to this process's stdout. */
const runEffect4 = async (args: ReadonlyArray<string>): Promise<void> => {
  const { path } = await node22Binary()
  const child = spawn(path, ["--import", tsxLoader, effect4Entry, ...args], { stdio: "inherit" })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject)
    child.once("exit", resolve)
  })
  if (code !== 0) throw new Error(`bench:profile: the Effect 4 line exited with ${code}`)
}

const main = async () => {
  const options = parseProfileArgs(process.argv.slice(2))
  const started = performance.now()
  await runProfile(effect3, options)
  if (!options.effect3Only) await runEffect4(profileArgs(options))
  console.log(`\nbench:profile took ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
