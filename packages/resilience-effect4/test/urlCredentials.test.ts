// @generated from templates/test/urlCredentials.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * What a request with credentials in its URL is sent as (issue #32, item 1), seen by a scripted
 * transport: the URL without its user info and `Authorization: Basic` of the percent-decoded
 * user and password, or the caller's own header; `urlCredentials` defaults to "basic-auth", and
 * a bad value is an `InvalidRetryPolicy` naming it. Over real sockets:
 * `e2e/urlCredentials.e2e.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword, "utf8").toString("base64")}`

describe("Effect 4 urlCredentials", () => {
  it.effect("the transport gets the URL without user info and Authorization: Basic of the decoded credentials", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([{ status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client)
      yield* Effect.scoped(client.get("http://u:p%40ss@api.test/x?page=2"))
      yield* Effect.scoped(client.get("http://key@api.test/y", { headers: { authorization: "Bearer own" } }))
      const [converted, own] = yield* scripted.requests
      expect([converted?.url, converted?.headers.authorization]).toEqual(["http://api.test/x?page=2", basic("u:p@ss")])
      expect([own?.url, own?.headers.authorization]).toEqual(["http://api.test/y", "Bearer own"])
    })
  )

  it.effect("the platform-typed client and getJson send them the same way", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([{ status: 200, body: "{}" }])
      const platform = yield* Effect.provide(
        HttpClient.HttpClient,
        ResilientHttpClient.layerHttpClient().pipe(Layer.provide(scripted.layer))
      )
      yield* Effect.scoped(platform.get("http://u:p@api.test/a"))
      const service = yield* Effect.provide(ResilientHttpClient.make(), scripted.layer)
      yield* Effect.scoped(service.get("http://u:p@api.test/b"))
      const requests = yield* scripted.requests
      expect(requests.map((request) => [request.url, request.headers.authorization])).toEqual([
        ["http://api.test/a", basic("u:p")],
        ["http://api.test/b", basic("u:p")]
      ])
    })
  )

  it('defaults to "basic-auth"; another value is an InvalidRetryPolicy naming the option', () => {
    expect(RetryPolicy.make().urlCredentials).toBe("basic-auth")
    expect(RetryPolicy.make({ urlCredentials: "refuse" }).urlCredentials).toBe("refuse")
    const untyped: RetryPolicy.Options = JSON.parse('{ "urlCredentials": "drop" }')
    expect(() => RetryPolicy.make(untyped)).toThrow(
      expect.objectContaining({ _tag: "InvalidRetryPolicy", option: "urlCredentials" })
    )
    expect(() => RetryPolicy.make(untyped)).toThrow('must be one of "basic-auth", "refuse"')
  })
})
