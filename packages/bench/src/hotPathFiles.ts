/**
 * `pnpm bench:hot-path`: which of the library's source files (core included) a plain call runs
 * code in, by V8's precise coverage (call counts) over one call after warm-up calls, so that
 * module loading is not counted: the typed client's `get`, then `withResilience` applied per call.
 * Issue #33 holds a plain call to at most 12 files on each line.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import { ResilientHttpClient } from "effect-http-resilience"
import { Session } from "node:inspector/promises"

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
  const call = () =>
    Effect.runPromise(Effect.scoped(Effect.flatMap(service.get("http://example.test/x"), (response) => response.json)))
  const perCall = () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(
          steady.pipe(ResilientHttpClient.withResilience({})).get("http://example.test/x"),
          (response) => response.json
        )
      )
    )
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true })
  for (const [name, run] of [
    ["typed client (service.get)", call],
    ["withResilience per call", perCall]
  ] as const) {
    for (let i = 0; i < 20; i++) await run()
    await session.post("Profiler.takePreciseCoverage")
    await run()
    const { result } = await session.post("Profiler.takePreciseCoverage")
    const files = result
      .filter((script) => /packages\/(resilience[^/]*|core)\/src\//.test(script.url))
      .map((script) => ({
        file: script.url.replace(/.*packages\//, ""),
        functions: script.functions
          .filter((f) => (f.ranges[0]?.count ?? 0) > 0 && f.functionName !== "__name")
          .map((f) => f.functionName || "(anonymous)")
      }))
      .filter((entry) => entry.functions.length > 0)
    console.log(`${name}: ${files.length} files`)
    for (const entry of files) console.log(`  ${entry.file}: ${[...new Set(entry.functions)].slice(0, 12).join(", ")}`)
  }
}
main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
