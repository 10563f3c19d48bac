// @generated from templates/src/ResilienceStoreRedis.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The store on Redis, for a fleet of processes that share what they learn of an origin: an
 * entry point of its own, which a program without Redis never loads (docs/overload.md).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
 * import { layerRedis } from "effect-http-resilience/redis"
 *
 * declare const program: Effect.Effect<void, never, ResilientHttpClient.ResilientHttpClient>
 *
 * const fleet = program.pipe(
 *   Effect.provide(ResilientHttpClient.layer()),
 *   Effect.provide(layerRedis({ url: "redis://127.0.0.1:6379", prefix: "orders-api" }))
 * )
 * ```
 *
 * @since 0.2.0
 */
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as redisLayer from "./internal/redisLayer.js"
import * as ResilienceStore from "./ResilienceStore.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Options of {@link layerRedis}, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface RedisOptions {
  /**
   * Where Redis is, when the store makes its own client: a `redis://` or `rediss://` URL node-redis
   * can read, or the layer fails naming it (its password never shown). [node-redis's default, `redis://localhost:6379`]
   */
  readonly url?: string | undefined
  /** Your node-redis client, in place of `url`; give it `disableOfflineQueue: true`. [none] */
  readonly client?: RedisClient | undefined
  /** A Redis Cluster: your connected node-redis `createCluster()` client. [none] */
  readonly cluster?: RedisClusterClient | undefined
  /** Namespaces the keys and channels; 1 to 100 characters, no whitespace or `}`. [`"http-resilience"`] */
  readonly prefix?: string | undefined
  /** The longest a retry waits on Redis for the fleet's budget; 1 ms to 10 s. [100 ms] */
  readonly timeout?: Duration.DurationInput | undefined
  /** How often deposits reach Redis, and Redis is tried while degraded; 10 ms to 60 s. [1 second] */
  readonly syncInterval?: Duration.DurationInput | undefined
  /** Whether a breaker's opening opens the same breaker in every process on the prefix. [false] */
  readonly shareCircuitBreaker?: boolean | undefined
}

/**
 * What the store uses of a node-redis client, such as `createClient()` of `redis` 5 or later.
 *
 * @since 0.2.0
 * @category models
 */
export interface RedisClient {
  readonly isOpen: boolean
  connect(): Promise<unknown>
  sendCommand(args: ReadonlyArray<string>): Promise<unknown>
  duplicate(): RedisClient
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>
  destroy(): void
  on(event: "error", listener: (error: Error) => void): unknown
  /** Lets go of the store's listener on your `client` when the store closes. */
  off?(event: "error", listener: (error: Error) => void): unknown
}

/**
 * What the store uses of a node-redis cluster client, such as `createCluster()` of `redis` 5 or later.
 *
 * @since 0.2.0
 * @category models
 */
export interface RedisClusterClient {
  readonly masters: ReadonlyArray<unknown>
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: Array<string>): Promise<unknown>
  subscribe(
    channel: string,
    listener: (message: string | Uint8Array, channel: string | Uint8Array) => unknown
  ): Promise<unknown>
  unsubscribe(
    channel: string,
    listener: (message: string | Uint8Array, channel: string | Uint8Array) => unknown
  ): Promise<unknown>
  on(event: "node-error", listener: (error: unknown) => void): unknown
  off(event: "node-error", listener: (error: unknown) => void): unknown
}

/**
 * A store on Redis that a fleet shares, local first: cool-downs, Finagle's budget and, with
 * `shareCircuitBreaker`, breaker openings; when Redis fails, calls go on with local state.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (
  options?: RedisOptions
): Layer.Layer<ResilienceStore.ResilienceStore, RetryPolicy.InvalidRetryPolicy> =>
  Layer.scoped(ResilienceStore.ResilienceStore, redisLayer.make(options))
