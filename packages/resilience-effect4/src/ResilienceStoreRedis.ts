// @generated from templates/src/ResilienceStoreRedis.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The store on Redis, for a fleet of processes that share what they learn of an origin: its own
 * entry point, so that a program without Redis never loads it. {@link layerRedis} provides the
 * `ResilienceStore` that every call of the program reads.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { NodeRedis } from "@effect/platform-node"
 * import { ResilientHttpClient } from "effect-http-resilience-effect4"
 * import { layerRedis } from "effect-http-resilience-effect4/redis"
 *
 * declare const program: Effect.Effect<void, never, ResilientHttpClient.ResilientHttpClient>
 *
 * const fleet = program.pipe(
 *   Effect.provide(ResilientHttpClient.layer()),
 *   Effect.provide(layerRedis({ prefix: "orders-api" })),
 *   Effect.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import type * as Redis from "effect/persistence/Redis"
import * as redisLayer from "./internal/redisLayer.js"
import * as ResilienceStore from "./ResilienceStore.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * Options of {@link layerRedis}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisOptions {
  /**
   * A Redis Cluster: a node-redis cluster client (`createCluster()` of `redis` 5 or later).
   * In place of the `Redis` service. Yours: the store neither connects nor closes it. Every
   * command of the store goes to the master of the prefix's hash slot (all of a prefix's keys
   * share one, its hash tag `{prefix}`), and it subscribes through the cluster's own pub/sub
   * connection. A client of one node on a cluster node is refused when the layer starts.
   */
  readonly cluster?: RedisClusterClient | undefined
  /**
   * Namespaces the keys and the channels, so that several services or tests share one Redis:
   * each name starts with `{prefix}:`, so no prefix sees another's, whatever their characters.
   * 1 to 100 characters, without whitespace or `}`. [`"http-resilience"`]
   */
  readonly prefix?: string | undefined
  /**
   * The longest a retry waits on Redis for the fleet's budget; past it the retry is decided with
   * this process's state and the store is degraded until Redis answers again. From 1 ms to 10 s.
   * [100 ms]
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * How often deposits counted locally reach Redis, and how often Redis is tried while the store
   * is degraded (while Redis answers but refuses the store's commands, twice as long after each
   * refusal, up to 30 s). From 10 ms to 60 s. [1 second]
   */
  readonly syncInterval?: Duration.Input | undefined
  /**
   * Whether a circuit breaker that opens in one process opens the same breaker (same origin, same
   * settings) in every process on the prefix. Off, each process's breaker knows only its own
   * calls. On, each process still keeps its own breaker (its window, its trip policy, its
   * probes): an opening decided here (from closed or half-open) is published in the background,
   * and the others open theirs for that break, failing calls there fast with `CircuitOpen`, then
   * probe on their own. A close is never shared, nor an opening learned from another process.
   * Only breakers the store makes from options are shared (not a service passed as the policy's
   * `circuitBreaker`), and a process learns only the openings published while it listens. Off,
   * nothing about breakers is published or subscribed. The repository's guide docs/overload.md
   * weighs it. [false]
   */
  readonly shareCircuitBreaker?: boolean | undefined
}

/**
 * What the store uses of a node-redis cluster client: `createCluster()` of `redis` 5 or later is
 * one. Commands are sent with the prefix's hash tag as their routing key; `masters` tells a
 * cluster client from a client of one node; a `node-error` makes the store subscribe afresh.
 *
 * @since 0.1.0
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
 * The store on a Redis Cluster: {@link layerRedis} given a node-redis cluster client
 * (`cluster`, from `createCluster()`, connected by you) shares the same state and needs no
 * `Redis` service. Every command of the store goes to the master of the prefix's hash slot, so
 * no command meets `CROSSSLOT` or `MOVED`; the cool-downs and breaker openings are told through
 * the cluster's pub/sub.
 *
 * @since 0.1.0
 * @category layers
 */
export function layerRedis(
  options: RedisOptions & { readonly cluster: RedisClusterClient }
): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy>
/**
 * A store on Redis that a fleet of processes shares, local first: a `429`'s cool-down pauses its
 * origin in every process, Finagle's retry budget counts the fleet's requests and retries (the
 * token bucket and the AWS quota stay per process), and the circuit breaker stays per process
 * unless `shareCircuitBreaker` is on. A call that goes well makes no round trip; a retry waits at
 * most `timeout` on Redis. When Redis is down, slow or refusing writes, calls go on with this
 * process's state, a warning is logged once and the gauge `http.client.resilience.store.degraded`
 * reads 1 until Redis answers again. A bad option fails the layer with an `InvalidRetryPolicy`
 * naming it. On a Redis Cluster, give `cluster`. The repository's guide docs/overload.md says what
 * is shared, how keys are named and what the store survives.
 *
 * @since 0.1.0
 * @category layers
 */
export function layerRedis(options?: RedisOptions): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy, Redis.Redis>
export function layerRedis(options?: RedisOptions): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy, Redis.Redis> {
  // With `cluster`, the store never asks for the `Redis` service (redisLayer).
  return Layer.effect(ResilienceStore.ResilienceStore, redisLayer.make(options))
}
