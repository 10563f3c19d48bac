/**
 * Type-level tests: the error and requirement channels of the public API, checked by the
 * package's typecheck (tsc) and run as plain assertions by vitest.
 */
import { HttpClient, type HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Data, Effect, type Layer, Schedule, type Schema, type Scope } from "effect"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"

class Refused extends Data.TaggedError("Refused")<{}> {}
class Auth extends Context.Tag("Auth")<Auth, { readonly token: string }>() {}

const platform: HttpClient.HttpClient = HttpClient.make(() => Effect.die("never called"))
// A client with an error and a requirement of its own.
const withOwnError = platform.pipe(
  HttpClient.mapRequestEffect((request) => Effect.as(Auth, request)),
  HttpClient.filterOrFail(
    () => true,
    () => new Refused()
  )
)
const schedule: Schedule.Schedule<number, HttpFailure.HttpFailure> = Schedule.recurs(1)

describe("types", () => {
  it("withResilience: HttpClientError becomes HttpFailure, Scope is required, other errors and requirements pass", () => {
    expectTypeOf(ResilientHttpClient.withResilience(platform)).toEqualTypeOf<
      HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>
    >()
    expectTypeOf(ResilientHttpClient.withResilience(withOwnError, { maxAttempts: 2 })).toEqualTypeOf<
      HttpClient.HttpClient.With<HttpFailure.HttpFailure | Refused, Auth | Scope.Scope>
    >()
    expectTypeOf(ResilientHttpClient.withResilience(platform, schedule).post).returns.toEqualTypeOf<
      Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    >()
  })

  it("layer and make: only plain options can fail", () => {
    expectTypeOf(ResilientHttpClient.layer({ maxAttempts: 2 })).toEqualTypeOf<
      Layer.Layer<ResilientHttpClient.ResilientHttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
    >()
    expectTypeOf(ResilientHttpClient.layer()).toEqualTypeOf<
      Layer.Layer<ResilientHttpClient.ResilientHttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
    >()
    expectTypeOf(ResilientHttpClient.layer(RetryPolicy.make())).toEqualTypeOf<
      Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient>
    >()
    expectTypeOf(ResilientHttpClient.layer(schedule)).toEqualTypeOf<
      Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient>
    >()
    expectTypeOf(ResilientHttpClient.make(RetryPolicy.make())).toEqualTypeOf<
      Effect.Effect<ResilientHttpClient.ResilientHttpClient.Service, never, HttpClient.HttpClient>
    >()
  })

  it("layerHttpClient: the platform's client in, the platform's client out", () => {
    expectTypeOf(ResilientHttpClient.layerHttpClient({ maxAttempts: 2 })).toEqualTypeOf<
      Layer.Layer<HttpClient.HttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
    >()
    expectTypeOf(ResilientHttpClient.layerHttpClient(schedule)).toEqualTypeOf<
      Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient>
    >()
  })

  it("getJson: HttpFailure, the schema's requirements, and no Scope", () => {
    expectTypeOf<ResilientHttpClient.ResilientHttpClient.Service["getJson"]>().toEqualTypeOf<
      <A, I, R>(
        url: string | URL,
        schema: Schema.Schema<A, I, R>,
        options?: HttpClientRequest.Options.NoBody
      ) => Effect.Effect<A, HttpFailure.HttpFailure, R>
    >()
  })
})
