// @generated from templates/src/ResilienceStore.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Where overload state lives: per origin, the retry budget, the circuit breaker and the
 * `Retry-After` cool-down. Every call reads the store from its context; unless a layer provides
 * another, that is the default in-memory store, so a client built once per program and one
 * built inside every call share the same budget, breaker and cool-down for an origin.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redis from "effect/persistence/Redis"
import type * as CircuitBreaker from "./CircuitBreaker.js"
import * as redisLayer from "./internal/redisLayer.js"
import * as internal from "./internal/resilienceStore.js"
import type * as RetryBudget from "./RetryBudget.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * The store service. It never appears in a client's requirements: a call without one in its
 * context uses the default, one in-memory store per `Clock`: in production the process's one
 * clock, so one store per process; under `TestClock` each test has a store of its own.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilienceStore } from "effect-http-resilience-effect4"
 *
 * // What is left of an origin's cool-down, in the store calls use.
 * const left = Effect.flatMap(ResilienceStore.ResilienceStore, (store) =>
 *   store.coolDownLeft("https://api.example.com:443")
 * )
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export const ResilienceStore: Context.Reference<ResilienceStore.Service> = Context.Reference<ResilienceStore.Service>(
  "effect-http-resilience-effect4/ResilienceStore",
  { defaultValue: () => internal.processDefault }
)

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace ResilienceStore {
  /**
   * What a store keeps, as operations a round trip could serve: a shared store (one on Redis,
   * say) implements the same.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import type { ResilienceStore } from "effect-http-resilience-effect4"
   *
   * // A store that shares nothing: every call sees an origin as new.
   * declare const budgetOf: ResilienceStore.ResilienceStore.Service["retryBudget"]
   * declare const breakerOf: ResilienceStore.ResilienceStore.Service["circuitBreaker"]
   * const forgetful: ResilienceStore.ResilienceStore.Service = {
   *   retryBudget: budgetOf,
   *   circuitBreaker: breakerOf,
   *   coolDown: () => Effect.void,
   *   coolDownLeft: () => Effect.succeed(0)
   * }
   * ```
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The retry budget with these settings: one per settings, shared by every client of the store. */
    readonly retryBudget: (settings: RetryBudget.Settings) => RetryBudget.RetryBudget.Service
    /** The circuit breaker with these options (and this `onStateChange`): one per options. */
    readonly circuitBreaker: (options: CircuitBreaker.Options) => Effect.Effect<CircuitBreaker.CircuitBreaker.Service>
    /** Starts, or lengthens, the origin's cool-down: `millis` from now. */
    readonly coolDown: (origin: string, millis: number) => Effect.Effect<void>
    /** Milliseconds left of the origin's cool-down; 0 when there is none. */
    readonly coolDownLeft: (origin: string) => Effect.Effect<number>
  }
}

/**
 * A new, empty in-memory store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilienceStore } from "effect-http-resilience-effect4"
 *
 * declare const program: Effect.Effect<void>
 * const store = ResilienceStore.makeMemory()
 * const withOwnStore = Effect.provideService(program, ResilienceStore.ResilienceStore, store)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: () => ResilienceStore.Service = internal.makeMemory

/**
 * An isolated in-memory store for what runs under the layer: a test, a tenant. Calls outside it
 * keep using the default store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilienceStore, ResilientHttpClient } from "effect-http-resilience-effect4"
 *
 * declare const program: Effect.Effect<void, never, ResilientHttpClient.ResilientHttpClient>
 *
 * const isolated = program.pipe(
 *   Effect.provide(ResilientHttpClient.layer()),
 *   Effect.provide(ResilienceStore.layerMemory())
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (): Layer.Layer<never> => Layer.sync(ResilienceStore, makeMemory)

/**
 * Options of {@link layerRedis}.
 *
 * @example
 * ```ts
 * import type { ResilienceStore } from "effect-http-resilience-effect4"
 *
 * const options: ResilienceStore.RedisOptions = { prefix: "orders-api", timeout: "50 millis" }
 * ```
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
   * is degraded. From 10 ms to 60 s. [1 second]
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
 * cluster client from a client of one node.
 *
 * @example
 * ```ts
 * import { createCluster } from "redis"
 * import type { ResilienceStore } from "effect-http-resilience-effect4"
 *
 * const cluster: ResilienceStore.RedisClusterClient = createCluster({
 *   rootNodes: [{ url: "redis://10.0.0.1:6379" }, { url: "redis://10.0.0.2:6379" }]
 * })
 * ```
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
}

/**
 * The store on a Redis Cluster: {@link layerRedis} given a node-redis cluster client
 * (`cluster`, from `createCluster()`, connected by you) shares the same state and needs no
 * `Redis` service. Every command of the store goes to the master of the prefix's hash slot, so
 * no command meets `CROSSSLOT` or `MOVED`; the cool-downs and breaker openings are told through
 * the cluster's pub/sub.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { createCluster } from "redis"
 * import { ResilienceStore, ResilientHttpClient } from "effect-http-resilience-effect4"
 *
 * declare const program: Effect.Effect<void, never, ResilientHttpClient.ResilientHttpClient>
 * // Connected (`await cluster.connect()`) and closed by the program.
 * declare const cluster: ReturnType<typeof createCluster>
 *
 * const fleet = program.pipe(
 *   Effect.provide(ResilientHttpClient.layer()),
 *   Effect.provide(ResilienceStore.layerRedis({ prefix: "orders-api", cluster }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export function layerRedis(
  options: RedisOptions & { readonly cluster: RedisClusterClient }
): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy>
/**
 * A store on Redis that a fleet of processes shares, local first:
 *
 * - **Cool-downs**: a `429` with `Retry-After` in one process pauses the origin in every process
 *   for the time asked (within each call's cap). Written once to Redis and published; each
 *   process applies it to its own memory, so a call never waits on Redis for it.
 * - **Retry budget** (Finagle's, the default): its ratio counts the fleet's requests and retries,
 *   and its floor is lent once per fleet. Deposits are counted locally and flushed every
 *   `syncInterval`; a retry asks Redis once (at most `timeout`). A call that goes well makes no
 *   round trip. The token bucket and the AWS quota stay per process.
 * - **Circuit breaker**: per process. With `shareCircuitBreaker: true`, a breaker that opens in
 *   one process opens the same breaker for that origin in every process, for that break; each
 *   still probes and closes on its own.
 *
 * When Redis is down, slow, flushed, restarted or refusing writes, calls go on with this
 * process's state: a retry waits at most `timeout` on Redis, then none at all until Redis answers
 * again (tried every `syncInterval`; while it answers but refuses the store's work, `OOM` say, less
 * and less often, up to 30 s). A warning is logged once per episode and the gauge
 * `http.client.resilience.store.degraded` reads 1; sharing resumes, with one info line, when Redis
 * answers, and the store then reads the cool-downs it missed and writes those Redis did not take.
 * What the store reads from Redis is held to what this process could have decided (a cool-down to
 * a day, a budget's counts to what its settings could hold); what it drops or cuts is counted in
 * `http.client.resilience.store.rejected_values`. A bad option fails the layer with an
 * `InvalidRetryPolicy` naming it.
 *
 * On a Redis Cluster, give `cluster` (a node-redis `createCluster()` client, connected by you):
 * a prefix's keys share one hash slot, so every command goes to one master and none meets
 * `CROSSSLOT` or `MOVED`. The repository's guide docs/overload.md says how keys are named and
 * what a cluster costs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { NodeRedis } from "@effect/platform-node"
 * import { ResilienceStore, ResilientHttpClient } from "effect-http-resilience-effect4"
 *
 * declare const program: Effect.Effect<void, never, ResilientHttpClient.ResilientHttpClient>
 *
 * const fleet = program.pipe(
 *   Effect.provide(ResilientHttpClient.layer()),
 *   Effect.provide(ResilienceStore.layerRedis({ prefix: "orders-api" })),
 *   Effect.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379" }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export function layerRedis(options?: RedisOptions): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy, Redis.Redis>
export function layerRedis(options?: RedisOptions): Layer.Layer<never, RetryPolicy.InvalidRetryPolicy, Redis.Redis> {
  // With `cluster`, the store never asks for the `Redis` service (redisLayer).
  return Layer.effect(ResilienceStore, redisLayer.make(options))
}
