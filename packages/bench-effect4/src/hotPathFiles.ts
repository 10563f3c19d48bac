/**
 * `pnpm bench:hot-path`, Effect 4: the library's files a plain call runs code in (the bench's
 * `hotPath.ts`), for the typed client's `get` and for `withResilience` applied per call.
 */
import { Effect } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { ResilientHttpClient } from "effect-http-resilience-effect4"
import { printFilesRun } from "@effect-http-resilience/bench/hotPath"

const url = "http://example.test/x"
const okBody = JSON.stringify({ ok: true })
const steady = HttpClient.make((request) =>
  Effect.sync(() =>
    HttpClientResponse.fromWeb(
      request,
      new Response(okBody, { status: 200, headers: { "content-type": "application/json", "content-length": "11" } })
    )
  )
)

const main = async () => {
  const service = await Effect.runPromise(
    Effect.provideService(ResilientHttpClient.make({}), HttpClient.HttpClient, steady)
  )
  await printFilesRun([
    [
      "typed client (service.get)",
      () => Effect.runPromise(Effect.scoped(Effect.flatMap(service.get(url), (r) => r.json)))
    ],
    [
      "withResilience per call",
      () =>
        Effect.runPromise(
          Effect.scoped(Effect.flatMap(steady.pipe(ResilientHttpClient.withResilience({})).get(url), (r) => r.json))
        )
    ]
  ])
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
