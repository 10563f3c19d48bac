// @generated from templates/test/e2e/urlCredentials.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Credentials in a URL (issue #32, item 1) reach the server as curl, got and requests send them:
 * `GET http://u:p@host/api/basic-auth/u/p` answers 200 through every transport of this line
 * (undici drops them, fetch refuses them, node:http sends them) and every entry of the library
 * (`withResilience`, `layerHttpClient`, the service's `getJson`), against the chaos server,
 * which checks `Authorization: Basic`. Then the rules, over undici: percent-decoding, a colon
 * in the user name, an `Authorization` header of the caller's own, `urlCredentials: "refuse"`,
 * and credentials a `mapRequest` puts in the URL after the resilient client.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"

let server: StartedChaosServer
beforeAll(async () => {
  server = await startChaosServer()
})
afterAll(async () => {
  await server?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["node:http", NodeHttpClient.layer],
  ["fetch", FetchHttpClient.layer]
]

// http://USERINFO@127.0.0.1:port/api/basic-auth/PATH
const withUserinfo = (userinfo: string, path: string) =>
  `${server.url.replace("http://", `http://${userinfo}@`)}/api/basic-auth/${path}`

const Authenticated = Schema.Struct({ authenticated: Schema.Boolean, user: Schema.String })
const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword, "utf8").toString("base64")}`
const requestsSeen = Effect.promise(() => server.stats().then((stats) => stats.requests.total))

const failureOf = <A, E, R>(call: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(Effect.scoped(call)), (exit) =>
    Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
  )

const statusAndBody = (response: { readonly status: number; readonly json: Effect.Effect<unknown, unknown> }) =>
  Effect.map(Effect.orDie(response.json), (body) => ({ status: response.status, body }))

for (const [name, transport] of transports) {
  describe(`Effect 3 over ${name}: credentials in the URL`, () => {
    it.live("the httpbin case answers 200 through withResilience, layerHttpClient and getJson", () =>
      Effect.gen(function* () {
        const url = withUserinfo("u:p", "u/p")
        const platform = yield* HttpClient.HttpClient
        const combined = yield* Effect.scoped(
          Effect.flatMap(ResilientHttpClient.withResilience(platform).get(url), statusAndBody)
        )
        expect(combined).toEqual({ status: 200, body: { authenticated: true, user: "u" } })

        const platformTyped = yield* Effect.scoped(
          Effect.flatMap(
            Effect.flatMap(HttpClient.HttpClient, (client) => client.get(url)),
            statusAndBody
          )
        ).pipe(Effect.provide(ResilientHttpClient.layerHttpClient().pipe(Layer.provide(transport))))
        expect(platformTyped).toEqual({ status: 200, body: { authenticated: true, user: "u" } })

        const service = yield* ResilientHttpClient.make()
        expect(yield* service.getJson(url, Authenticated)).toEqual({ authenticated: true, user: "u" })
      }).pipe(Effect.provide(transport))
    )
  })
}

describe("Effect 3: credentials in the URL, the rules", () => {
  it.live("user and password are percent-decoded: p%40ss is p@ss, a %3A in the password a colon", () =>
    Effect.gen(function* () {
      const client = yield* ResilientHttpClient.make()
      expect(yield* client.getJson(withUserinfo("u:p%40ss", "u/p%40ss"), Authenticated)).toEqual({
        authenticated: true,
        user: "u"
      })
      expect(yield* client.getJson(withUserinfo("J%C3%BCrgen:a%3Ab", "J%C3%BCrgen/a%3Ab"), Authenticated)).toEqual({
        authenticated: true,
        user: "Jürgen"
      })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("a %3A in the user name is refused unsent: a Basic header cannot carry it", () =>
    Effect.gen(function* () {
      const client = yield* ResilientHttpClient.make()
      const before = yield* requestsSeen
      const failure = yield* failureOf(client.get(withUserinfo("a%3Ab:p", "a%3Ab/p")))
      expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "InvalidRequest", attempt: 1 })
      expect(HttpFailure.isConnectionError(failure) && failure.cause).toEqual(
        new HttpFailure.UrlCredentialsRefused({ problem: "colon-in-user" })
      )
      expect(failure?.message).toContain("holds a colon (%3A)")
      expect(yield* requestsSeen).toBe(before)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("an Authorization header of the caller's own is left alone, and the URL sent has no user info", () =>
    Effect.gen(function* () {
      const client = yield* ResilientHttpClient.make()
      const headers = { authorization: basic("other:secret") }
      const own = yield* Effect.scoped(
        Effect.flatMap(client.get(withUserinfo("u:p", "other/secret"), { headers }), statusAndBody)
      )
      expect(own).toEqual({ status: 200, body: { authenticated: true, user: "other" } })
      // The URL's credentials were not sent: the caller's header was.
      const failure = yield* failureOf(client.get(withUserinfo("u:p", "u/p"), { headers }))
      expect(failure).toMatchObject({ _tag: "PermanentStatus", status: 401 })
      expect(failure?.request.url).toBe(`${server.url}/api/basic-auth/u/p`)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live('urlCredentials: "refuse" fails unsent, with a typed error naming the fix, on every entry', () =>
    Effect.gen(function* () {
      const url = withUserinfo("u:p", "u/p")
      const before = yield* requestsSeen
      const service = yield* ResilientHttpClient.make({ urlCredentials: "refuse" })
      for (const failure of [
        yield* failureOf(service.get(url)),
        yield* failureOf(service.getJson(url, Authenticated))
      ]) {
        expect(failure).toMatchObject({
          _tag: "ConnectionError",
          reason: "InvalidRequest",
          giveUpReason: "not-retryable",
          cause: { _tag: "UrlCredentialsRefused", problem: "refused" }
        })
        expect(failure?.message).toBe(
          `GET ${server.url.replace("http://", "http://REDACTED:REDACTED@")}/api/basic-auth/u/p: not sent: its URL carries credentials, and urlCredentials is "refuse" (send them in an Authorization header, or set urlCredentials: "basic-auth")`
        )
      }
      const platformError = yield* failureOf(Effect.flatMap(HttpClient.HttpClient, (client) => client.get(url))).pipe(
        Effect.provide(
          ResilientHttpClient.layerHttpClient({ urlCredentials: "refuse" }).pipe(
            Layer.provide(NodeHttpClient.layerUndici)
          )
        )
      )
      expect(platformError).toMatchObject({ _tag: "RequestError", reason: "InvalidUrl" })
      expect(HttpClientError.isHttpClientError(platformError) && platformError.message).toContain(
        'urlCredentials is "refuse"'
      )
      expect(yield* requestsSeen).toBe(before)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("credentials a mapRequest puts in the URL after the resilient client", () =>
    Effect.gen(function* () {
      const client = ResilientHttpClient.withResilience(yield* HttpClient.HttpClient).pipe(
        HttpClient.mapRequest(HttpClientRequest.prependUrl(server.url.replace("http://", "http://u:p@")))
      )
      // Effect 3's client has no public way to send another request than the one its transform
      // read: they are refused, saying where to put them instead.
      const failure = yield* failureOf(client.get("/api/basic-auth/u/p"))
      expect(failure).toMatchObject({
        _tag: "ConnectionError",
        reason: "InvalidRequest",
        cause: { problem: "added-after-client" }
      })
      expect(failure?.message).toContain("apply that mapRequest before withResilience")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )
})
