/**
 * The options of a retry policy, checked as both libraries check them, over each library's own
 * duration type: the same names, defaults, ranges and messages on either line. The retry budget
 * and circuit breaker options are the libraries' to check (they accept services too).
 *
 * @example
 * ```ts
 * import type { RetryPolicyOptions } from "@effect-http-resilience/core"
 *
 * const mode: RetryPolicyOptions.RetryAfterMode = "respect"
 * ```
 *
 * @since 0.1.0
 */
import * as ConcurrencyLimit from "./ConcurrencyLimit.js"
import * as Hedging from "./Hedging.js"
import * as RateLimitHeaders from "./RateLimitHeaders.js"
import type * as RetrySchedule from "./RetrySchedule.js"
import * as Settings from "./Settings.js"
import * as TokenBucket from "./TokenBucket.js"

/**
 * Whether a server's `Retry-After` replaces the backoff.
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterMode = "respect" | "ignore"

/**
 * What to do when a server asks for a wait longer than `maxDelay`.
 *
 * @since 0.1.0
 * @category models
 */
export type OverCapMode = "wait-max-delay" | "give-up"

/**
 * Who a `429`'s `Retry-After` holds back: every call to its origin that shares the store
 * (`"origin"`), or only the call that received it (`"call"`).
 *
 * @since 0.2.0
 * @category models
 */
export type RetryAfterScope = "origin" | "call"

/**
 * What a request whose URL carries credentials (`http://user:password@host/`) becomes:
 * `"basic-auth"`, an `Authorization: Basic` header (unless it has an `Authorization` header
 * already) and the URL without them; `"refuse"`, not sent.
 *
 * @since 0.2.0
 * @category models
 */
export type UrlCredentialsMode = "basic-auth" | "refuse"

/**
 * A validated backoff, its base in the library's duration type.
 *
 * @since 0.1.0
 * @category models
 */
export type Backoff<D> =
  | { readonly _tag: "Linear"; readonly base: D }
  | { readonly _tag: "Constant"; readonly base: D }
  | { readonly _tag: "Exponential"; readonly base: D; readonly factor: number }

/**
 * Every option but the budget and the breaker, resolved to its value or default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolved<D> {
  readonly maxAttempts: number
  readonly backoff: Backoff<D>
  readonly maxDelay: D
  readonly jitter: RetrySchedule.Jitter
  readonly retryAfter: RetryAfterMode
  readonly whenRetryAfterExceedsMaxDelay: OverCapMode
  readonly retryAfterScope: RetryAfterScope
  readonly isTransientStatus: (status: number) => boolean
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: D
  readonly attemptTimeout: D
  readonly totalTimeout: D
  readonly maxBodyBytes: number
  readonly urlCredentials: UrlCredentialsMode
  /** Hedged copies of each attempt; `undefined`: off. */
  readonly hedging: Hedging.Resolved | undefined
  /** A per-origin concurrency limit, fixed or adaptive; `undefined`: off. */
  readonly concurrency: ConcurrencyLimit.Resolved | undefined
  /** The client's rate limit; `undefined`: off. */
  readonly rateLimit: TokenBucket.Resolved | undefined
  /** Rate-limit headers read from every response; `undefined`: off. */
  readonly rateLimitHeaders: RateLimitHeaders.Resolved | undefined
}

/**
 * The option names, in the order they are checked.
 */
const optionNames: ReadonlyArray<string> = [
  "maxAttempts",
  "backoff",
  "maxDelay",
  "jitter",
  "retryAfter",
  "whenRetryAfterExceedsMaxDelay",
  "retryAfterScope",
  "isTransientStatus",
  "retryNonIdempotent",
  "maxElapsed",
  "attemptTimeout",
  "totalTimeout",
  "maxBodyBytes",
  "urlCredentials",
  "hedging",
  "concurrency",
  "rateLimit",
  "rateLimitHeaders",
  "retryBudget",
  "circuitBreaker"
]

const defaultTransientStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504])

/**
 * The default transient statuses: 408, 429, 500, 502, 503, 504.
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientStatus = (status: number): boolean => defaultTransientStatuses.has(status)

/**
 * The defaults of both libraries, durations in milliseconds.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaults = {
  maxAttempts: 3,
  backoff: { _tag: "Exponential", baseMillis: 500, factor: 2 },
  maxDelayMillis: 30_000,
  jitter: "equal",
  retryAfter: "respect",
  whenRetryAfterExceedsMaxDelay: "wait-max-delay",
  retryAfterScope: "origin",
  retryNonIdempotent: false,
  maxElapsedMillis: Number.POSITIVE_INFINITY,
  attemptTimeoutMillis: 10_000,
  totalTimeoutMillis: 30_000,
  maxBodyBytes: 16 * 1024 * 1024,
  urlCredentials: "basic-auth"
} as const

/**
 * What a library brings to the check: how to read its durations, the defaults as its own
 * values (what an option left out stands for), and what a throwing `isTransientStatus` throws
 * instead of what it threw (the library's defect, naming the option and the status).
 *
 * @since 0.1.0
 * @category models
 */
export interface Hooks<D> {
  readonly duration: Settings.DurationCodec<D>
  readonly defaultInputs: {
    readonly backoff: unknown
    readonly maxDelay: unknown
    readonly maxElapsed: unknown
    readonly attemptTimeout: unknown
    readonly totalTimeout: unknown
  }
  readonly predicateThrew: (status: number, cause: unknown) => unknown
}

const jitterModes: ReadonlyArray<RetrySchedule.Jitter> = ["none", "full", "equal", "decorrelated"]
const finiteDuration: Settings.DurationConstraints = { allowInfinite: false, allowZero: true }
const maxDelayConstraints: Settings.DurationConstraints = {
  allowInfinite: false,
  allowZero: false,
  whyNotZero:
    "a zero cap would cut every wait, Retry-After included, to none; to retry without waiting, use backoff: RetryPolicy.constant(0)"
}
const limitConstraints: Settings.DurationConstraints = { allowInfinite: true, allowZero: false }

const notANumber = (option: string, input: unknown): Settings.Checked<never> | undefined =>
  Number.isNaN(input) ? Settings.invalid(option, "is not a number", input) : undefined

const hasField = <K extends string>(input: unknown, key: K): input is { readonly [P in K]: unknown } =>
  typeof input === "object" && input !== null && key in input

const backoffOf = <D>(codec: Settings.DurationCodec<D>, input: unknown): Settings.Checked<Backoff<D>> => {
  const built = "must be built with RetryPolicy.linear, exponential or constant"
  if (!hasField(input, "_tag") || !hasField(input, "base")) return Settings.invalid("backoff", built, input)
  const tag = input._tag
  if (tag !== "Linear" && tag !== "Constant" && tag !== "Exponential") return Settings.invalid("backoff", built, input)
  return Settings.andThen(
    Settings.duration(codec, "backoff.base", input.base, finiteDuration),
    (base): Settings.Checked<Backoff<D>> => {
      if (tag !== "Exponential") return Settings.valid({ _tag: tag, base })
      const factor = hasField(input, "factor") ? input.factor : undefined
      const factorNaN = notANumber("backoff.factor", factor)
      if (factorNaN !== undefined) return factorNaN
      if (typeof factor !== "number" || !Number.isFinite(factor) || factor < 1) {
        return Settings.invalid("backoff.factor", "must be a finite number of at least 1", factor)
      }
      return Settings.valid({ _tag: "Exponential", base, factor })
    }
  )
}

// A predicate that throws is a bug in the caller's code: a defect, as Effect treats a throwing
// callback. It is wrapped so the defect names the option and the status, the throw as cause.
const predicateOf = (
  input: unknown,
  predicateThrew: (status: number, cause: unknown) => unknown
): Settings.Checked<(status: number) => boolean> =>
  typeof input === "function"
    ? Settings.valid((status: number) => {
        try {
          return input(status) === true
        } catch (cause) {
          throw predicateThrew(status, cause)
        }
      })
    : Settings.invalid("isTransientStatus", "must be a function from status code to boolean", input)

// The limits on outgoing load (issue #34), each off by default.
// The options that are off unless given: hedging and the limits on outgoing load.
const optionalFeaturesOf = <D>(options: Readonly<Record<string, unknown>>, codec: Settings.DurationCodec<D>) => ({
  hedging: Hedging.check(options.hedging, codec),
  concurrency: ConcurrencyLimit.check(options.concurrency),
  rateLimit: TokenBucket.check(options.rateLimit, codec),
  rateLimitHeaders: RateLimitHeaders.check(options.rateLimitHeaders)
})

/**
 * Checks a retry policy's options record: a plain object (not null, not an array, a `Map` or a
 * class instance), only known option names, no `null` value (only `undefined` or leaving an
 * option out means its default), then every option in `optionNames` order. The first bad
 * option wins.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = <D>(options: unknown, hooks: Hooks<D>): Settings.Checked<Resolved<D>> => {
  if (options === undefined) options = {}
  if (options === null) return Settings.invalid("options", "must not be null: omit them for the defaults", options)
  if (!Settings.isPlainObject(options)) {
    return Settings.invalid("options", "must be a plain object such as { maxAttempts: 5 }", options)
  }
  for (const [key, value] of Object.entries(options)) {
    if (!optionNames.includes(key)) return Settings.invalid(key, "is not a retry policy option", value)
    // Only undefined (or leaving the option out) means the default: a null is likely a bug.
    if (value === null) return Settings.invalid(key, "must not be null: omit the option for its default", value)
  }
  const given = (name: string, fallback: unknown): unknown => options[name] ?? fallback
  const maxAttempts = given("maxAttempts", defaults.maxAttempts)
  const maxAttemptsNaN = notANumber("maxAttempts", maxAttempts)
  if (maxAttemptsNaN !== undefined) return maxAttemptsNaN
  if (typeof maxAttempts !== "number" || !Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    return Settings.invalid(
      "maxAttempts",
      "must be a whole number of at least 1 (it counts the first attempt)",
      maxAttempts
    )
  }
  const codec = hooks.duration
  const inputs = hooks.defaultInputs
  const retryNonIdempotent = given("retryNonIdempotent", defaults.retryNonIdempotent)
  const maxBodyBytes = given("maxBodyBytes", defaults.maxBodyBytes)
  return Settings.all({
    maxAttempts: Settings.valid(maxAttempts),
    backoff: backoffOf(codec, given("backoff", inputs.backoff)),
    maxDelay: Settings.duration(codec, "maxDelay", given("maxDelay", inputs.maxDelay), maxDelayConstraints),
    jitter: Settings.choice<RetrySchedule.Jitter>("jitter", jitterModes, given("jitter", defaults.jitter)),
    retryAfter: Settings.choice<RetryAfterMode>(
      "retryAfter",
      ["respect", "ignore"],
      given("retryAfter", defaults.retryAfter)
    ),
    whenRetryAfterExceedsMaxDelay: Settings.choice<OverCapMode>(
      "whenRetryAfterExceedsMaxDelay",
      ["wait-max-delay", "give-up"],
      given("whenRetryAfterExceedsMaxDelay", defaults.whenRetryAfterExceedsMaxDelay)
    ),
    retryAfterScope: Settings.choice<RetryAfterScope>(
      "retryAfterScope",
      ["origin", "call"],
      given("retryAfterScope", defaults.retryAfterScope)
    ),
    isTransientStatus: predicateOf(given("isTransientStatus", isDefaultTransientStatus), hooks.predicateThrew),
    retryNonIdempotent:
      typeof retryNonIdempotent === "boolean"
        ? Settings.valid(retryNonIdempotent)
        : Settings.invalid("retryNonIdempotent", "must be true or false", retryNonIdempotent),
    maxElapsed: Settings.duration(codec, "maxElapsed", given("maxElapsed", inputs.maxElapsed), {
      allowInfinite: true,
      allowZero: true
    }),
    attemptTimeout: Settings.duration(
      codec,
      "attemptTimeout",
      given("attemptTimeout", inputs.attemptTimeout),
      limitConstraints
    ),
    totalTimeout: Settings.duration(
      codec,
      "totalTimeout",
      given("totalTimeout", inputs.totalTimeout),
      limitConstraints
    ),
    maxBodyBytes:
      typeof maxBodyBytes === "number" && Number.isSafeInteger(maxBodyBytes) && maxBodyBytes >= 1
        ? Settings.valid(maxBodyBytes)
        : Settings.invalid("maxBodyBytes", "must be a whole number of bytes, at least 1", maxBodyBytes),
    urlCredentials: Settings.choice<UrlCredentialsMode>(
      "urlCredentials",
      ["basic-auth", "refuse"],
      given("urlCredentials", defaults.urlCredentials)
    ),
    ...optionalFeaturesOf(options, codec)
  })
}

/**
 * The schedule's view of resolved options, in milliseconds.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSchedulePolicy = <D>(
  resolved: Omit<
    Resolved<D>,
    | "isTransientStatus"
    | "retryNonIdempotent"
    | "retryAfterScope"
    | "attemptTimeout"
    | "totalTimeout"
    | "maxBodyBytes"
    | "urlCredentials"
    | "hedging"
    | "concurrency"
    | "rateLimit"
    | "rateLimitHeaders"
  >,
  toMillis: (duration: D) => number
): RetrySchedule.Policy => ({
  maxAttempts: resolved.maxAttempts,
  backoff: {
    _tag: resolved.backoff._tag,
    baseMillis: toMillis(resolved.backoff.base),
    factor: resolved.backoff._tag === "Exponential" ? resolved.backoff.factor : 1
  },
  maxDelayMillis: toMillis(resolved.maxDelay),
  maxElapsedMillis: toMillis(resolved.maxElapsed),
  jitter: resolved.jitter,
  respectRetryAfter: resolved.retryAfter === "respect",
  giveUpOverCap: resolved.whenRetryAfterExceedsMaxDelay === "give-up"
})
