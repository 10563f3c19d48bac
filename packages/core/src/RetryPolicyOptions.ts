/**
 * The options of a retry policy, checked as both libraries check them, over each library's own
 * duration type: the same names, defaults, ranges and messages on either line. The retry budget
 * is the libraries' to check (it accepts a service too). Each opt-in stage (hedging, the
 * concurrency limit, the rate limit and its headers, the circuit breaker, the body idle timeout) is a value its own
 * module builds and checks: here only its brand is, so that this check carries none of their code.
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
import * as RetryAfter from "./RetryAfter.js"
import type * as RetrySchedule from "./RetrySchedule.js"
import * as Settings from "./Settings.js"

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
 * The key that marks an opt-in stage's value, and names its feature.
 *
 * @since 0.3.0
 * @category type ids
 */
export const StageTypeId = "~effect-http-resilience/Stage" as const

/**
 * The opt-in stages, each the name of its option.
 *
 * @since 0.3.0
 * @category models
 */
export type Feature =
  | "hedging"
  | "concurrencyLimit"
  | "rateLimit"
  | "rateLimitHeaders"
  | "circuitBreaker"
  | "coalesce"
  | "bodyIdleTimeout"

/**
 * An opt-in stage's value, as its module builds it (checked there): the brand and its feature.
 *
 * @since 0.3.0
 * @category models
 */
export interface Stage<F extends Feature = Feature> {
  readonly [StageTypeId]: F
}

// Whether a value is a stage of `feature`, built by its module's constructor.
const isStage = <F extends Feature>(u: unknown, feature: F): u is Stage<F> =>
  typeof u === "object" && u !== null && StageTypeId in u && u[StageTypeId] === feature

/**
 * Every option but the budget, resolved to its value or default.
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
  readonly retryHints: RetryAfter.HintNames
  /** The caller's predicate over connection failures, as given (each library types it); `undefined`: the default. */
  readonly isTransientConnectionError: ((failure: never) => boolean) | undefined
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: D
  readonly attemptTimeout: D
  readonly totalTimeout: D
  readonly maxBodyBytes: number
  readonly urlCredentials: UrlCredentialsMode
  /** Hedged copies of each attempt; `undefined`: off. */
  readonly hedging: Stage<"hedging"> | undefined
  /** A per-origin concurrency limit, fixed or adaptive; `undefined`: off. */
  readonly concurrencyLimit: Stage<"concurrencyLimit"> | undefined
  /** The client's rate limit; `undefined`: off. */
  readonly rateLimit: Stage<"rateLimit"> | undefined
  /** Rate-limit headers read from every response; `undefined`: off. */
  readonly rateLimitHeaders: Stage<"rateLimitHeaders"> | undefined
  /** A circuit breaker per origin; `undefined`: off. */
  readonly circuitBreaker: Stage<"circuitBreaker"> | undefined
  /** Identical GETs and HEADs in flight sharing one call; `undefined`: off. */
  readonly coalesce: Stage<"coalesce"> | undefined
  /** How long a body being read may go without a byte; `undefined`: no limit of its own. */
  readonly bodyIdleTimeout: Stage<"bodyIdleTimeout"> | undefined
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
  "retryHints",
  "isTransientConnectionError",
  "retryNonIdempotent",
  "maxElapsed",
  "attemptTimeout",
  "totalTimeout",
  "maxBodyBytes",
  "urlCredentials",
  "hedging",
  "concurrencyLimit",
  "rateLimit",
  "rateLimitHeaders",
  "retryBudget",
  "circuitBreaker",
  "coalesce",
  "bodyIdleTimeout"
]

// 529: Anthropic's (and others') "overloaded", a 503 by another number.
const defaultTransientStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 529])

/**
 * The default transient statuses: 408, 429, 500, 502, 503, 504, 529.
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientStatus = (status: number): boolean => defaultTransientStatuses.has(status)

/**
 * The default transient connection failures: an attempt sent that got no response, its reason
 * `"Transport"` (the connection failed) or `"Timeout"`.
 *
 * @since 0.3.0
 * @category defaults
 */
export const isDefaultTransientConnectionError = (failure: { readonly reason: string }): boolean =>
  failure.reason === "Transport" || failure.reason === "Timeout"

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

const maxAttemptsOf = (input: unknown): Settings.Checked<number> =>
  notANumber("maxAttempts", input) ??
  (typeof input === "number" && Number.isSafeInteger(input) && input >= 1
    ? Settings.valid(input)
    : Settings.invalid("maxAttempts", "must be a whole number of at least 1 (it counts the first attempt)", input))

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

// The most header names each retry hint reads: each is looked up on every failed response.
const maxHintNames = 4

// RFC 9110 5.6.2 token characters.
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

const hintNamesOf = (
  option: string,
  input: unknown,
  fallback: ReadonlyArray<string>
): Settings.Checked<ReadonlyArray<string>> => {
  if (input === undefined) return Settings.valid(fallback)
  const reason = `must be a list of at most ${maxHintNames} header names (letters, digits and !#$%&'*+-.^_\`|~); [] reads none`
  if (!Array.isArray(input) || input.length > maxHintNames) return Settings.invalid(option, reason, input)
  const names: Array<string> = []
  for (const [index, name] of input.entries()) {
    if (typeof name !== "string" || !headerName.test(name)) return Settings.invalid(`${option}[${index}]`, reason, name)
    names.push(name.toLowerCase())
  }
  return Settings.valid(names)
}

// `retryHints`: which headers carry a vendor's retry hints; each list left out keeps its default.
const retryHintsOf = (input: unknown): Settings.Checked<RetryAfter.HintNames> =>
  input === undefined
    ? Settings.valid(RetryAfter.defaultHintNames)
    : Settings.andThen(
        Settings.optionsRecord("retryHints", input, ["retryAfterMillis", "shouldRetry"]),
        (given): Settings.Checked<RetryAfter.HintNames> =>
          Settings.all({
            retryAfterMillis: hintNamesOf(
              "retryHints.retryAfterMillis",
              given.retryAfterMillis,
              RetryAfter.defaultHintNames.retryAfterMillis
            ),
            shouldRetry: hintNamesOf(
              "retryHints.shouldRetry",
              given.shouldRetry,
              RetryAfter.defaultHintNames.shouldRetry
            )
          })
      )
// Kept as given: a library types it over its own `ConnectionError`.
const connectionPredicateOf = (input: unknown): Settings.Checked<((failure: never) => boolean) | undefined> =>
  input === undefined || typeof input === "function"
    ? Settings.valid(input === undefined ? undefined : (failure: never): boolean => input(failure) === true)
    : Settings.invalid("isTransientConnectionError", "must be a function from a ConnectionError to boolean", input)

// The opt-in stages: each a value built by its module (`Hedging.after`, ...), or left out (off).
const stageBuilders: Readonly<Record<Feature, string>> = {
  hedging: "Hedging.after or Hedging.percentile",
  concurrencyLimit: "ConcurrencyLimit.fixed or ConcurrencyLimit.adaptive",
  rateLimit: "RateLimit.make",
  rateLimitHeaders: "RateLimit.fromHeaders",
  circuitBreaker: "CircuitBreaker.perOrigin",
  coalesce: "Coalesce.identical",
  bodyIdleTimeout: "BodyIdleTimeout.make"
}

const stageOf = <F extends Feature>(feature: F, input: unknown): Settings.Checked<Stage<F> | undefined> =>
  input === undefined || isStage(input, feature)
    ? Settings.valid(input)
    : Settings.invalid(feature, `must be built with ${stageBuilders[feature]}; leave it out for none`, input)

const stagesOf = (options: Readonly<Record<string, unknown>>) => ({
  hedging: stageOf("hedging", options.hedging),
  concurrencyLimit: stageOf("concurrencyLimit", options.concurrencyLimit),
  rateLimit: stageOf("rateLimit", options.rateLimit),
  rateLimitHeaders: stageOf("rateLimitHeaders", options.rateLimitHeaders),
  circuitBreaker: stageOf("circuitBreaker", options.circuitBreaker),
  coalesce: stageOf("coalesce", options.coalesce),
  bodyIdleTimeout: stageOf("bodyIdleTimeout", options.bodyIdleTimeout)
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
  const codec = hooks.duration
  const inputs = hooks.defaultInputs
  const retryNonIdempotent = given("retryNonIdempotent", defaults.retryNonIdempotent)
  const maxBodyBytes = given("maxBodyBytes", defaults.maxBodyBytes)
  return Settings.all({
    maxAttempts: maxAttemptsOf(given("maxAttempts", defaults.maxAttempts)),
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
    retryHints: retryHintsOf(options.retryHints),
    isTransientConnectionError: connectionPredicateOf(options.isTransientConnectionError),
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
    ...stagesOf(options)
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
    | "retryHints"
    | "isTransientConnectionError"
    | "retryNonIdempotent"
    | "retryAfterScope"
    | "attemptTimeout"
    | "totalTimeout"
    | "maxBodyBytes"
    | "urlCredentials"
    | "hedging"
    | "concurrencyLimit"
    | "rateLimit"
    | "rateLimitHeaders"
    | "circuitBreaker"
    | "bodyIdleTimeout"
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
