// @generated from templates/test/readme/exactWaits.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The testing guide's example, verbatim, so that CI runs it: docs/testing.md, "Exact waits on TestClock" >
// "Effect 4". readme.test.ts checks that it stays the same as the guide's block.
import { expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { ResilientHttpClient, Testing } from "effect-http-resilience-effect4"

// The code under test: written against HttpClient, made resilient by a layer.
const getItems = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  const response = yield* client.get("https://api.example.com/items")
  return yield* response.text
})

it.effect("waits as long as Retry-After asks, then succeeds", () =>
  Effect.gen(function* () {
    const scripted = yield* Testing.scriptedHttpClient([
      { status: 503, headers: { "retry-after": "2" } },
      { status: 200, body: "ok" }
    ])
    const fiber = yield* getItems.pipe(
      Effect.provide(ResilientHttpClient.layerHttpClient({ maxAttempts: 3 })),
      Effect.provide(scripted.layer),
      Effect.forkChild
    )
    yield* TestClock.adjust("2 seconds")
    expect(yield* Fiber.join(fiber)).toBe("ok")
    const requests = yield* scripted.requests
    expect(requests.map((request) => request.sentAtMillis)).toEqual([0, 2000]) // 2 attempts, the second at 2 s
  })
)
