/**
 * An EchoPlay-like track search: a service that depends on `ResilientHttpClient`, decodes a
 * Spotify-like `/v1/search` answer with `Schema`, and retries like the seed client (3 attempts,
 * 500 ms then 1000 ms).
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { HttpFailure } from "effect-http-resilience"
import { ResilientHttpClient, RetryPolicy } from "effect-http-resilience"

/**
 * @since 0.1.0
 * @category schemas
 */
export const Track = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  artists: Schema.Array(Schema.Struct({ name: Schema.String })),
  album: Schema.Struct({ name: Schema.String }),
  duration_ms: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export type Track = typeof Track.Type

const SearchResponse = Schema.Struct({
  tracks: Schema.Struct({ items: Schema.Array(Track), total: Schema.Number })
})

/**
 * The seed client's retry behaviour: at most 3 attempts, waits of 500 ms then 1000 ms.
 */
const echoPlayPolicy: RetryPolicy.RetryPolicy = RetryPolicy.make({
  maxAttempts: 3,
  backoff: RetryPolicy.linear("500 millis"),
  jitter: "none"
})

/**
 * A blank query, refused before any request is sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class BlankQuery extends Data.TaggedError("BlankQuery")<{}> {
  override get message(): string {
    return "a track search needs a non-blank query"
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** Base URL of the search API, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
}

/**
 * @since 0.1.0
 * @category tags
 */
export class TrackSearch extends Context.Tag("@effect-http-resilience/examples/TrackSearch")<
  TrackSearch,
  {
    readonly search: (query: string) => Effect.Effect<ReadonlyArray<Track>, HttpFailure.HttpFailure | BlankQuery>
  }
>() {}

/**
 */
const make = (config: Config) =>
  Effect.map(ResilientHttpClient.ResilientHttpClient, (http) => {
    const endpoint = new URL("/v1/search", config.baseUrl)
    return TrackSearch.of({
      search: (query) => {
        const q = query.trim()
        if (q === "") return Effect.fail(new BlankQuery())
        return http
          .getJson(endpoint, SearchResponse, { urlParams: { q, type: "track" } })
          .pipe(Effect.map((response) => response.tracks.items))
      }
    })
  })

/**
 * The service over the `ResilientHttpClient` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<TrackSearch, never, ResilientHttpClient.ResilientHttpClient> =>
  Layer.effect(TrackSearch, make(config))

/**
 * The service with its own resilient client using {@link echoPlayPolicy}, over any `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEchoPlay = (
  config: Config
): Layer.Layer<TrackSearch, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient> =>
  layer(config).pipe(Layer.provide(ResilientHttpClient.layer(echoPlayPolicy)))
