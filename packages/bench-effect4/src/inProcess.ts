/**
 * The Effect 4 half of `pnpm bench:profile` (`packages/bench/src/inProcess.ts` starts it under
 * Node 22 after the Effect 3 half, with the same options): the same forms over in-memory Effect 4
 * transports, each compared with Effect 4's bare client and `retryTransient` in the same rounds.
 * Imports Effect 4 only.
 */
import { Cause, Context, Effect } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { ResilientHttpClient } from "effect-http-resilience-effect4"
import { policyFor } from "@effect-http-resilience/bench/benchClient"
import { policyOptions } from "./policyOptions.js"
import { type Batch, type LineProfile, parseProfileArgs, runProfile } from "@effect-http-resilience/bench/profile"

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
// As on the Effect 3 line: the defaults as a plain record; a budget that never runs dry when every call retries.
const happyPolicy: Policy = {}
const retryPolicy: Policy = policyOptions(policyFor("retry") ?? {})

/** Runs the calls with `context`'s services; a failure is recorded, not thrown. */
const batchWith =
  <E, R>(context: Context.Context<R>, call: () => Effect.Effect<unknown, E, R>): Batch =>
  async (calls, concurrency) => {
    let firstFailure: string | undefined
    const recorded = Effect.tapCause(Effect.suspend(call), (cause) =>
      Effect.sync(() => {
        firstFailure ??= Cause.pretty(cause)
      })
    )
    await Effect.runPromise(
      Effect.forEach(Array.from({ length: calls }), () => Effect.ignore(recorded), { discard: true, concurrency }).pipe(
        Effect.provideContext(context)
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
          Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) =>
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
        Effect.flatMap(Effect.service(HttpClient.HttpClient), (http) =>
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

const effect4: LineProfile = {
  title: `Effect 4 (Node ${process.version})`,
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
            Effect.flatMap(Effect.service(HttpClient.HttpClient), (http) =>
              http.pipe(ResilientHttpClient.withResilience()).get(url)
            )
          ),
        url,
        calls
      ),
    shared: (url, calls) =>
      outage(
        (url) =>
          Effect.scoped(
            Effect.flatMap(Effect.service(ResilientHttpClient.ResilientHttpClient), (client) => client.get(url))
          ),
        url,
        calls
      )
  }
}

runProfile(effect4, parseProfileArgs(process.argv.slice(2))).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
