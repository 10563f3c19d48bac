// @generated from templates/test/withinSpan.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A parent span changes nothing (issue #40, item 5): through each entry (`layerHttpClient`,
 * `withResilience`, the service's `execute`, `get` and `getJson`), with and without a parent span, hedged
 * and not, a lasting 503 ends the same way: the platform-typed client hands back the last
 * response, whose body reads; the typed ones fail with its `TransientStatus`; and every response
 * the call discarded is released. Effect 3 fails with a Proxy of an error inside a span, which
 * once hid the held response from the loop (the platform-typed client then failed with a
 * `RequestError`, and no discarded 503 was released).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Option, Schema, TestClock } from "effect"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import * as Hedging from "../src/Hedging.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

type Entry = "layerHttpClient" | "withResilience" | "execute" | "get" | "getJson"

const entries: ReadonlyArray<Entry> = ["layerHttpClient", "withResilience", "execute", "get", "getJson"]

const policyOf = (hedged: boolean): RetryPolicy.Options => ({
  maxAttempts: 2,
  backoff: RetryPolicy.constant("100 millis"),
  jitter: "none",
  retryBudget: "none",
  ...(hedged ? { hedging: Hedging.after("50 millis") } : {})
})

// What a call handed back: the status and body of a response, read in the caller's scope.
const readResponse = <E, ReadError, R>(
  response: Effect.Effect<{ readonly status: number; readonly text: Effect.Effect<string, ReadError> }, E, R>
) => Effect.scoped(Effect.flatMap(response, (answer) => Effect.map(answer.text, (text) => `${answer.status} ${text}`)))

const callOf = (
  entry: Entry,
  transport: HttpClient.HttpClient,
  hedged: boolean,
  url: string
): Effect.Effect<string, unknown> => {
  const policy = policyOf(hedged)
  switch (entry) {
    case "layerHttpClient":
      return Effect.flatMap(
        Effect.provide(
          HttpClient.HttpClient,
          ResilientHttpClient.layerHttpClient(policy).pipe(
            Layer.provide(Layer.succeed(HttpClient.HttpClient, transport))
          )
        ),
        (client) => readResponse(client.get(url))
      )
    case "withResilience":
      return readResponse(ResilientHttpClient.withResilience(transport, policy).get(url))
    case "execute":
    case "get":
    case "getJson":
      return Effect.flatMap(
        Effect.provideService(ResilientHttpClient.make(policy), HttpClient.HttpClient, transport),
        (service) =>
          entry === "getJson"
            ? Effect.map(service.getJson(url, Schema.String), (text) => `200 ${text}`)
            : readResponse(entry === "get" ? service.get(url) : service.execute(HttpClientRequest.get(url)))
      )
  }
}

// One call of a lasting 503 (answered after 100 ms when hedged, so that a hedge goes at 50 ms).
const lasting503 = (entry: Entry, withinSpan: boolean, hedged: boolean) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make([{ status: 503, body: "busy", ...(hedged ? { delayMillis: 100 } : {}) }])
    const url = `http://${entry.toLowerCase()}-${withinSpan ? "span" : "bare"}-${hedged ? "hedged" : "single"}.span.test/items`
    const call = callOf(entry, scripted.client, hedged, url)
    const fiber = yield* Effect.fork(Effect.exit(withinSpan ? Effect.withSpan(call, "caller") : call))
    yield* TestClock.adjust("1 minute")
    const exit = yield* Fiber.join(fiber)
    return { exit, exchanges: scripted.exchanges }
  })

const failureOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  if (Exit.isSuccess(exit)) return `succeeded with ${String(exit.value)}`
  return Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.pretty(exit.cause))
}

describe("Effect 3: a parent span changes nothing", () => {
  for (const entry of entries) {
    for (const hedged of [false, true]) {
      for (const withinSpan of [false, true]) {
        const title = `${entry}, ${hedged ? "hedged" : "not hedged"}, ${withinSpan ? "inside a parent span" : "without a span"}`
        it.effect(`${title}: a lasting 503 ends with the last 503, every response released`, () =>
          Effect.gen(function* () {
            const { exit, exchanges } = yield* lasting503(entry, withinSpan, hedged)
            if (entry === "layerHttpClient") {
              // The platform's meaning: a final 503 is a response, handed back with its body.
              expect(Exit.isSuccess(exit) ? exit.value : failureOf(exit)).toBe("503 busy")
            } else {
              expect(failureOf(exit)).toMatchObject({
                _tag: "TransientStatus",
                status: 503,
                // Hedged copies are numbered as attempts.
                attempt: hedged ? 4 : 2,
                giveUpReason: "attempts-exhausted"
              })
            }
            // Two attempts; hedged, each with its hedge.
            expect(exchanges.map((exchange) => exchange.status)).toEqual(hedged ? [503, 503, 503, 503] : [503, 503])
            expect(exchanges.map(ScriptedHttpClient.isReleased)).toEqual(exchanges.map(() => true))
            // Not hedged, the discarded 503 was released before the retry was sent.
            if (!hedged) expect(exchanges[0]?.releasedBeforeNext).toBe(true)
          })
        )
      }
    }
  }
})
