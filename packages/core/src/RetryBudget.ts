/**
 * Retry budgets for one origin, as plain state machines: no Effect, time passed in as
 * `nowMillis` (a monotonic clock's milliseconds, so that a stepped wall clock changes no
 * decision), nothing random. Both libraries' `RetryBudget` services wrap them.
 *
 * The protocol a caller follows, once per call:
 *
 * - `onRequest(now)` when the call starts (its first attempt only, as Finagle's `RetryFilter`
 *   deposits once per request, not per retry);
 * - `onFailure(now, kind)` for every attempt that failed in a way that says the origin is
 *   struggling (a transient status, a timeout, a connection failure), whether or not a retry
 *   follows: gRPC counts every such failure;
 * - `tryRetry(now, kind)` before each retry: `true` spends what the retry costs, `false` refuses
 *   it and leaves the budget untouched;
 * - `onSuccess(now, retriedAfter)` when an attempt succeeds; `retriedAfter` is the kind of failure
 *   the successful attempt retried, `undefined` when it was the first attempt (the AWS quota
 *   refunds a retry's cost, a first attempt's success adds 1).
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "@effect-http-resilience/core"
 *
 * const kind: RetryBudget.FailureKind = "timeout"
 * ```
 *
 * @since 0.1.0
 */
import { idleTimeToLiveMillis } from "./Origin.js"
import * as Settings from "./Settings.js"

/**
 * What a failed attempt was, as far as a budget cares.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureKind = "transient-status" | "timeout" | "connection"

/**
 * A bad setting: which one (relative name), why, and the value given.
 *
 * @since 0.1.0
 * @category models
 */
export type InvalidSetting = Settings.InvalidSetting

/**
 * The budget of one origin, following the protocol of this module.
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryBudgetState {
  readonly onRequest: (nowMillis: number) => void
  readonly onSuccess: (nowMillis: number, retriedAfter: FailureKind | undefined) => void
  readonly onFailure: (nowMillis: number, kind: FailureKind) => void
  /** Withdraws what a retry costs; `false` (refused) leaves the budget untouched. */
  readonly tryRetry: (nowMillis: number, kind: FailureKind) => boolean
  /** Finagle: retries allowed now; token bucket: tokens; AWS: capacity; none: infinity. */
  readonly balance: (nowMillis: number) => number
  /** Whether the state is indistinguishable from a fresh one, so it may be dropped. */
  readonly isPristine: (nowMillis: number) => boolean
}

/**
 * Finagle's `RetryBudget(ttl, minRetriesPerSec, percentCanRetry)`: deposits from requests expire after `ttlMillis`; retries may spend `ratio` of them plus a floor.
 *
 * @since 0.1.0
 * @category models
 */
export interface FinagleSettings {
  readonly _tag: "Finagle"
  /** Retries allowed per request deposited, on top of the floor; [0, 1000]. */
  readonly ratio: number
  /** Retries allowed per second of `ttl` whatever the traffic; a whole number. */
  readonly minPerSecond: number
  /** How long a deposit (and a withdrawal) counts; [1 s, 60 s]. */
  readonly ttlMillis: number
}

/**
 * gRPC A6 retry throttling: a failure takes a token, a success adds `tokenRatio`, no retry at or below half.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenBucketSettings {
  readonly _tag: "TokenBucket"
  /** Tokens at the start and at most; a whole number in (0, 1000]. */
  readonly maxTokens: number
  /** Tokens a success adds back; at least 0.001 (A6 ignores decimal places beyond 3). */
  readonly tokenRatio: number
}

/**
 * The AWS SDKs' standard retry quota: a retry costs `retryCost` (`timeoutRetryCost` after a timeout), a success refunds it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AwsQuotaSettings {
  readonly _tag: "AwsQuota"
  readonly capacity: number
  readonly retryCost: number
  readonly timeoutRetryCost: number
  readonly noRetryIncrement: number
}

/**
 * No budget: every retry the policy wants is allowed.
 *
 * @since 0.1.0
 * @category models
 */
export interface NoBudgetSettings {
  readonly _tag: "None"
}

/**
 * Any budget's settings.
 *
 * @since 0.1.0
 * @category models
 */
export type RetryBudgetSettings = FinagleSettings | TokenBucketSettings | AwsQuotaSettings | NoBudgetSettings

/**
 * Finagle's defaults as the SRE book advises: ratio 0.1, a floor of 10 retries a second, ttl 10 seconds.
 *
 * @since 0.1.0
 * @category defaults
 */
export const finagleDefaults: FinagleSettings = { _tag: "Finagle", ratio: 0.1, minPerSecond: 10, ttlMillis: 10_000 }
/**
 * gRPC A6's example: 10 tokens, ratio 0.1.
 *
 * @since 0.1.0
 * @category defaults
 */
export const tokenBucketDefaults: TokenBucketSettings = { _tag: "TokenBucket", maxTokens: 10, tokenRatio: 0.1 }
/**
 * The AWS SDKs' standard quota: 500 tokens, 5 a retry, 10 after a timeout, 1 back per first-attempt success.
 *
 * @since 0.1.0
 * @category defaults
 */
export const awsQuotaDefaults: AwsQuotaSettings = {
  _tag: "AwsQuota",
  capacity: 500,
  retryCost: 5,
  timeoutRetryCost: 10,
  noRetryIncrement: 1
}

// ---------------------------------------------------------------------------------------------
// Validation (numbers only; durations are decoded by the caller into `ttlMillis`).

const isWhole = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max

const isNumberIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max

/**
 * The first bad setting, or `undefined`. Option names are relative ("ratio", not "retryBudget.ratio"); durations are checked in milliseconds.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkSettings = (settings: RetryBudgetSettings): InvalidSetting | undefined => {
  switch (settings._tag) {
    case "None":
      return undefined
    case "Finagle": {
      // Below 0.0001 a retry would cost more than 10^7 scaled tokens and the reserve would
      // outgrow exact integer arithmetic.
      if (!isNumberIn(settings.ratio, 0, 1000) || (settings.ratio > 0 && settings.ratio < 0.0001)) {
        return { option: "ratio", reason: "must be 0 or a number from 0.0001 to 1000", value: settings.ratio }
      }
      if (!isWhole(settings.minPerSecond, 0, 1_000_000)) {
        return {
          option: "minPerSecond",
          reason: "must be a whole number from 0 to 1000000",
          value: settings.minPerSecond
        }
      }
      if (!isNumberIn(settings.ttlMillis, 1000, 60_000)) {
        return { option: "ttl", reason: "must be from 1 second to 60 seconds", value: settings.ttlMillis }
      }
      return undefined
    }
    case "TokenBucket": {
      if (!isWhole(settings.maxTokens, 1, 1000)) {
        return { option: "maxTokens", reason: "must be a whole number from 1 to 1000", value: settings.maxTokens }
      }
      if (!isNumberIn(settings.tokenRatio, 0.001, Number.MAX_SAFE_INTEGER / 1000)) {
        return { option: "tokenRatio", reason: "must be a number of at least 0.001", value: settings.tokenRatio }
      }
      return undefined
    }
    case "AwsQuota": {
      const whole: ReadonlyArray<readonly [keyof AwsQuotaSettings & string, number]> = [
        ["capacity", 1],
        ["retryCost", 1],
        ["timeoutRetryCost", 1],
        ["noRetryIncrement", 0]
      ]
      for (const [option, min] of whole) {
        const value = settings[option]
        if (!isWhole(value, min, 1_000_000_000)) {
          return { option, reason: `must be a whole number from ${min} to 1000000000`, value }
        }
      }
      return undefined
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Finagle: TokenRetryBudget over TokenBucket.newLeakyBucket over WindowedAdder (twitter/util).

/**
 * twitter/util's `WindowedAdder`: a sum over the last `range` of time, kept in `slices` slices.
 * The current slice is `writer`; `slices - 1` older ones sit in a ring. A slice closes at the
 * first access at least one slice-width after the previous close, and slices skipped without
 * any access are zeroed, so a value counts for roughly `range` (at least `range - range/slices`).
 *
 * @since 0.1.0
 * @category internals
 */
export class WindowedAdder {
  private readonly window: number
  private readonly ring: Array<number>
  private writer = 0
  private index = 0
  private lastClose: number

  constructor(rangeMillis: number, slices: number, nowMillis: number) {
    this.window = Math.trunc(rangeMillis / slices)
    this.ring = new Array<number>(slices - 1).fill(0)
    this.lastClose = nowMillis
  }

  add(nowMillis: number, amount: number): void {
    if (nowMillis - this.lastClose >= this.window) this.closeSlice(nowMillis)
    this.writer += amount
  }

  sum(nowMillis: number): number {
    if (nowMillis - this.lastClose >= this.window) this.closeSlice(nowMillis)
    let total = this.writer
    for (const slice of this.ring) total += slice
    return total
  }

  isEmpty(nowMillis: number): boolean {
    if (nowMillis - this.lastClose >= this.window) this.closeSlice(nowMillis)
    return this.writer === 0 && this.ring.every((slice) => slice === 0)
  }

  private closeSlice(nowMillis: number): void {
    const size = this.ring.length
    this.ring[this.index] = this.writer
    this.writer = 0
    this.index = (this.index + 1) % size
    const skipped = Math.min(Math.trunc((nowMillis - this.lastClose) / this.window) - 1, size)
    for (let i = 0; i < skipped; i++) this.ring[(this.index + i) % size] = 0
    if (skipped > 0) this.index = (this.index + skipped) % size
    this.lastClose = nowMillis
  }
}

// The budgets are methods, not arrow fields: a table holds up to 10,000 of them, and an arrow
// field is a closure (and, under some transpilers, a property table) per budget.

/** Finagle scales tokens by 1000 so that a ratio above 1 needs no floating point. */
const finagleScale = 1000

/**
 * What a request deposits and a retry withdraws, in Finagle's units (scaled by 1000), as one
 * process's budget and the fleet's script count them.
 *
 * @since 0.2.0
 * @category budgets
 */
export const finaglePrices = (
  settings: FinagleSettings
): { readonly deposit: number; readonly withdrawal: number } => ({
  deposit: settings.ratio === 0 ? 0 : finagleScale,
  withdrawal: settings.ratio === 0 ? 1 : Math.trunc(finagleScale / settings.ratio)
})

class FinagleBudget implements RetryBudgetState {
  private readonly adder: WindowedAdder
  private readonly deposit: number
  private readonly withdrawal: number
  private readonly reserve: number

  constructor(settings: FinagleSettings, nowMillis: number) {
    const prices = finaglePrices(settings)
    this.deposit = prices.deposit
    this.withdrawal = prices.withdrawal
    // The floor: minPerSecond retries for every whole second of ttl, at a retry's price. It is
    // never spent for good: a withdrawal from it is a negative entry that expires after ttl.
    this.reserve = settings.minPerSecond * Math.trunc(settings.ttlMillis / 1000) * this.withdrawal
    this.adder = new WindowedAdder(settings.ttlMillis, 10, nowMillis)
  }

  onRequest(nowMillis: number): void {
    this.adder.add(nowMillis, this.deposit)
  }
  onSuccess(): void {}
  onFailure(): void {}

  tryRetry(nowMillis: number): boolean {
    const allowed = this.adder.sum(nowMillis) + this.reserve >= this.withdrawal
    if (allowed) this.adder.add(nowMillis, -this.withdrawal)
    return allowed
  }

  // Finagle's balance is count / withdrawal, which goes negative when deposits expire before
  // the withdrawals they paid for; a negative number of retries reads as none.
  balance(nowMillis: number): number {
    return Math.max(0, Math.trunc((this.adder.sum(nowMillis) + this.reserve) / this.withdrawal))
  }

  isPristine(nowMillis: number): boolean {
    return this.adder.isEmpty(nowMillis)
  }
}

// ---------------------------------------------------------------------------------------------
// gRPC A6: kept in thousandths of a token, as grpc-java does, so that a ratio of 0.1 adds
// exactly 100 and no floating-point drift creeps into the threshold comparison.

class TokenBucketBudget implements RetryBudgetState {
  private readonly max: number
  private readonly threshold: number
  private readonly refill: number
  private tokens: number

  constructor(settings: TokenBucketSettings) {
    this.max = settings.maxTokens * 1000
    this.threshold = this.max / 2
    // A6: "decimal places beyond 3 are ignored"; the epsilon keeps 1.005 * 1000 from reading as 1004.
    this.refill = Math.floor(settings.tokenRatio * 1000 + 1e-6)
    this.tokens = this.max
  }

  onRequest(): void {}
  onSuccess(): void {
    this.tokens = Math.min(this.max, this.tokens + this.refill)
  }
  onFailure(): void {
    this.tokens = Math.max(0, this.tokens - 1000)
  }
  tryRetry(): boolean {
    return this.tokens > this.threshold
  }
  balance(): number {
    return this.tokens / 1000
  }
  isPristine(): boolean {
    return this.tokens === this.max
  }
}

// ---------------------------------------------------------------------------------------------
// AWS standard retry quota (aws-sdk-js v3 `getDefaultRetryQuota`).

class AwsQuotaBudget implements RetryBudgetState {
  private capacity: number

  constructor(private readonly settings: AwsQuotaSettings) {
    this.capacity = settings.capacity
  }

  private cost(kind: FailureKind): number {
    return kind === "timeout" ? this.settings.timeoutRetryCost : this.settings.retryCost
  }

  onRequest(): void {}
  onFailure(): void {}
  onSuccess(_nowMillis: number, retriedAfter: FailureKind | undefined): void {
    const refund = retriedAfter === undefined ? this.settings.noRetryIncrement : this.cost(retriedAfter)
    this.capacity = Math.min(this.settings.capacity, this.capacity + refund)
  }
  tryRetry(_nowMillis: number, kind: FailureKind): boolean {
    const cost = this.cost(kind)
    if (cost > this.capacity) return false
    this.capacity -= cost
    return true
  }
  balance(): number {
    return this.capacity
  }
  isPristine(): boolean {
    return this.capacity === this.settings.capacity
  }
}

const unlimited: RetryBudgetState = {
  onRequest: () => {},
  onSuccess: () => {},
  onFailure: () => {},
  tryRetry: () => true,
  balance: () => Number.POSITIVE_INFINITY,
  isPristine: () => true
}

/**
 * A fresh budget for one origin. The settings must have passed {@link checkSettings}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeRetryBudgetState = (settings: RetryBudgetSettings, nowMillis: number): RetryBudgetState => {
  switch (settings._tag) {
    case "Finagle":
      return new FinagleBudget(settings, nowMillis)
    case "TokenBucket":
      return new TokenBucketBudget(settings)
    case "AwsQuota":
      return new AwsQuotaBudget(settings)
    case "None":
      return unlimited
  }
}

/**
 * Whether an origin's budget may be forgotten: it is indistinguishable from a fresh one (a
 * Finagle budget once its `ttl` has passed without calls), or it has gone unused for
 * `idleMillis` (`Origin.idleTimeToLiveMillis`, one hour, by default). A token bucket or an
 * AWS quota drained by failures and then left alone for that long starts over full, as a budget
 * for an origin never seen would. Times are a monotonic clock's milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export const isIdle = (
  state: RetryBudgetState,
  nowMillis: number,
  lastUsedMillis: number,
  idleMillis: number = idleTimeToLiveMillis
): boolean => nowMillis - lastUsedMillis >= idleMillis || state.isPristine(nowMillis)

/**
 * One process's side of a Finagle budget that a fleet shares through a store (Redis), for one
 * origin: the process's own budget, and the last word the fleet said. The fleet's answer
 * decides a retry when it comes in time; without it (the store slow, down, or this process too
 * busy to hear it), `tryRetry` decides here, and must not lend again what the fleet has lent:
 *
 * - every retry the fleet allows is paid from this process's budget too (`paidByFleet`), so a
 *   process that decides alone spends at most what it would have spent without the fleet, less
 *   what it spent through it: a shared budget never costs more than separate ones;
 * - while the fleet's last word (`heard`, the balance in Finagle's units that an answer gave) is
 *   younger than the budget's `ttl`, no retry goes unless that word, less what this process
 *   spent since and plus what it deposited, still pays for one.
 *
 * Balances are in the units one process's Finagle budget keeps, as the store's script does: 1000
 * per request, `1000 / ratio` per retry.
 *
 * @since 0.2.0
 * @category models
 */
export interface FleetShare extends RetryBudgetState {
  /** What the fleet has left, as an answer of the store said it (in time or late). */
  readonly heard: (balance: number, nowMillis: number) => void
  /** The fleet allowed a retry: this process's budget pays it too, if it can. */
  readonly paidByFleet: (nowMillis: number) => void
}

/**
 * A fleet member's share of a Finagle budget for one origin (see {@link FleetShare}). The
 * settings must have passed {@link checkSettings}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeFleetShare = (settings: FinagleSettings, nowMillis: number): FleetShare => {
  const own = new FinagleBudget(settings, nowMillis)
  const { deposit, withdrawal } = finaglePrices(settings)
  // The fleet's last word, counted down and up by this process since; stale after ttl.
  let word: number | undefined
  let heardAtMillis = 0
  const freshWord = (nowMillis: number): number | undefined =>
    word !== undefined && nowMillis - heardAtMillis < settings.ttlMillis ? word : undefined
  return {
    onRequest: (nowMillis) => {
      own.onRequest(nowMillis)
      if (word !== undefined) word += deposit
    },
    onSuccess: own.onSuccess,
    onFailure: own.onFailure,
    tryRetry: (nowMillis) => {
      const fleet = freshWord(nowMillis)
      if (fleet !== undefined && fleet < withdrawal) return false
      if (!own.tryRetry(nowMillis)) return false
      if (fleet !== undefined) word = fleet - withdrawal
      return true
    },
    balance: (nowMillis) => {
      const fleet = freshWord(nowMillis)
      const mine = own.balance(nowMillis)
      return fleet === undefined ? mine : Math.min(mine, Math.max(0, Math.trunc(fleet / withdrawal)))
    },
    isPristine: (nowMillis) => own.isPristine(nowMillis) && freshWord(nowMillis) === undefined,
    heard: (balance, nowMillis) => {
      word = balance
      heardAtMillis = nowMillis
    },
    paidByFleet: (nowMillis) => {
      own.tryRetry(nowMillis)
    }
  }
}

/**
 * What a failed attempt tells a budget: the kind of trouble, or `undefined` for failures that
 * say nothing about the origin's health (a permanent status, a body that did not decode, a
 * request that could not be sent, an unrecoverable transport failure).
 *
 * @since 0.1.0
 * @category models
 */
export const failureKindOf = (failure: {
  readonly _tag: string
  readonly reason?: string | undefined
}): FailureKind | undefined => {
  switch (failure._tag) {
    case "TransientStatus":
      return "transient-status"
    case "ConnectionError":
      return failure.reason === "Timeout" ? "timeout" : failure.reason === "Transport" ? "connection" : undefined
    default:
      return undefined
  }
}

const prefix = "retryBudget"

/**
 * A budget strategy as the libraries' constructors build it (`RetryBudget.finagle(options)`,
 * `tokenBucket`, `awsQuota`, `none`), its options as given.
 */
type StrategyInput =
  | { readonly _tag: "Finagle" | "TokenBucket" | "AwsQuota"; readonly options: unknown }
  | { readonly _tag: "None" }

const finagleOf = <D>(codec: Settings.DurationCodec<D>, input: unknown): Settings.Checked<FinagleSettings> =>
  Settings.andThen(Settings.optionsRecord(prefix, input, ["ratio", "minPerSecond", "ttl"]), (given) =>
    Settings.andThen(
      given.ttl === undefined
        ? Settings.valid(finagleDefaults.ttlMillis)
        : Settings.durationMillis(codec, `${prefix}.ttl`, given.ttl),
      (ttlMillis) => {
        const settings: FinagleSettings = {
          _tag: "Finagle",
          ratio: Settings.numberOr(given.ratio, finagleDefaults.ratio),
          minPerSecond: Settings.numberOr(given.minPerSecond, finagleDefaults.minPerSecond),
          ttlMillis
        }
        return Settings.fromCheck(prefix, settings, checkSettings(settings), given)
      }
    )
  )

const tokenBucketOf = (input: unknown): Settings.Checked<TokenBucketSettings> =>
  Settings.andThen(Settings.optionsRecord(prefix, input, ["maxTokens", "tokenRatio"]), (given) => {
    const settings: TokenBucketSettings = {
      _tag: "TokenBucket",
      maxTokens: Settings.numberOr(given.maxTokens, tokenBucketDefaults.maxTokens),
      tokenRatio: Settings.numberOr(given.tokenRatio, tokenBucketDefaults.tokenRatio)
    }
    return Settings.fromCheck(prefix, settings, checkSettings(settings), given)
  })

const awsQuotaOf = (input: unknown): Settings.Checked<AwsQuotaSettings> =>
  Settings.andThen(
    Settings.optionsRecord(prefix, input, ["capacity", "retryCost", "timeoutRetryCost", "noRetryIncrement"]),
    (given) => {
      const settings: AwsQuotaSettings = {
        _tag: "AwsQuota",
        capacity: Settings.numberOr(given.capacity, awsQuotaDefaults.capacity),
        retryCost: Settings.numberOr(given.retryCost, awsQuotaDefaults.retryCost),
        timeoutRetryCost: Settings.numberOr(given.timeoutRetryCost, awsQuotaDefaults.timeoutRetryCost),
        noRetryIncrement: Settings.numberOr(given.noRetryIncrement, awsQuotaDefaults.noRetryIncrement)
      }
      return Settings.fromCheck(prefix, settings, checkSettings(settings), given)
    }
  )

const isStrategy = (input: unknown): input is StrategyInput =>
  typeof input === "object" && input !== null && "_tag" in input

/**
 * Resolves what a user gives as a retry budget: `"none"`, a strategy, or Finagle's options
 * record (the default strategy; `undefined` is its defaults). Bad options are named in full
 * (`"retryBudget.ratio"`), with the value as given.
 *
 * @since 0.1.0
 * @category validation
 */
export const resolveInput = <D>(
  input: unknown,
  codec: Settings.DurationCodec<D>
): Settings.Checked<RetryBudgetSettings> => {
  if (input === "none") return Settings.valid({ _tag: "None" })
  if (!isStrategy(input)) return finagleOf(codec, input)
  switch (input._tag) {
    case "Finagle":
      return "options" in input ? finagleOf(codec, input.options) : finagleOf(codec, undefined)
    case "TokenBucket":
      return tokenBucketOf("options" in input ? input.options : undefined)
    case "AwsQuota":
      return awsQuotaOf("options" in input ? input.options : undefined)
    case "None":
      return Settings.valid({ _tag: "None" })
    default:
      return Settings.invalid(prefix, "must be RetryBudget.finagle, tokenBucket, awsQuota or none", input)
  }
}
