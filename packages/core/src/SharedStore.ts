/**
 * What a fleet of processes shares through a store such as Redis, free of any client: the key
 * names, the Lua scripts (times are the server's, so the processes' clocks never meet), the
 * cool-down messages, the breaker openings shared on request, the retry deposits batched between
 * two flushes, and whether the store answers. Each library sends the commands with its own client.
 *
 * Local first: a call that goes well makes no round trip. Deposits (one per call) are counted
 * here and flushed in batches; a retry asks the store, once, whether the fleet's budget allows
 * it; a `Retry-After` cool-down is written once and published to every process.
 *
 * @example
 * ```ts
 * import { SharedStore } from "@effect-http-resilience/core"
 *
 * const keys = SharedStore.keysFor("orders-api")
 * keys.coolDowns // "{orders-api}:cooldowns"
 * keys.budget("1l2k3j", "https://api.example.com:443") // "{orders-api}:budget:1l2k3j:https://api.example.com:443"
 * keys.channel // "{orders-api}:channel:cooldowns"
 * ```
 *
 * @since 0.2.0
 */
import * as CoolDown from "./CoolDown.js"
import { type FinagleSettings, finaglePrices } from "./RetryBudget.js"
import type * as TokenBucket from "./TokenBucket.js"
import { andThen, type Checked, type DurationCodec, durationMillis, invalid, optionsRecord, valid } from "./Settings.js"

/**
 * The keys and channels of one prefix: several services, or tests, share a Redis by prefix.
 * Each name starts with the prefix framed as `{prefix}:`; a prefix holds no `}` (see
 * {@link resolveStoreSettings}), so the first `}` ends it and no prefix's names are another's.
 * The frame is also Redis Cluster's hash tag: every key of a prefix is in one hash slot, so on
 * one master, and a client routes all of the prefix's commands by {@link keysFor}'s `slot`.
 * Nothing is found by pattern: the cool-downs in force are one sorted set, not a `SCAN`.
 *
 * @since 0.2.0
 * @category keys
 */
export const keysFor = (prefix: string) => {
  const frame = `{${prefix}}`
  return {
    /** The hash tag every key shares: what a cluster client routes the prefix's commands by. */
    slot: frame,
    /** The cool-downs in force: a sorted set of origins, scored by when each ends (Redis time, ms). */
    coolDowns: `${frame}:cooldowns`,
    /** Where cool-downs that start or grow are told. */
    channel: `${frame}:channel:cooldowns`,
    /** Where breakers that open say so, when `shareCircuitBreaker` is on. */
    breakerChannel: `${frame}:channel:breakers`,
    budget: (settingsKey: string, origin: string): string => `${frame}:budget:${settingsKey}:${origin}`
  }
}

/**
 * The default prefix.
 */
const defaultPrefix = "http-resilience"

/**
 * A short, stable name for a budget's settings (FNV-1a of their text), so that budgets of
 * different settings never share counts.
 *
 * @since 0.2.0
 * @category keys
 */
export const settingsKey = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(36)
}

/**
 * Starts or lengthens a cool-down and tells every process. KEYS: the prefix's cool-downs (a
 * sorted set, origin by end time on Redis's clock). ARGV: milliseconds, channel, origin.
 * Publishes `millis origin` only when the cool-down grew, and answers the milliseconds now left.
 * Each write drops the cool-downs that have ended, keeps at most {@link CoolDown.maxOrigins}
 * (the one that ends first goes, as in memory), and lets the set expire with its longest.
 *
 * @since 0.2.0
 * @category scripts
 */
export const coolDownScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local millis = tonumber(ARGV[1])
local left = (tonumber(redis.call('ZSCORE', KEYS[1], ARGV[3])) or 0) - now
if left >= millis then return left end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + millis, ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - ${CoolDown.maxOrigins}
if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1) end
if redis.call('PTTL', KEYS[1]) < millis then redis.call('PEXPIRE', KEYS[1], millis) end
redis.call('PUBLISH', ARGV[2], millis .. ' ' .. ARGV[3])
return millis
`

/**
 * The cool-downs in force, for a process that (re)joins: one read of the prefix's sorted set,
 * on Redis's clock. KEYS: the prefix's cool-downs. Answers `origin, millis left, ...`, at most
 * {@link CoolDown.maxOrigins} of them; read it with {@link readCoolDownsAnswer}.
 *
 * @since 0.2.0
 * @category scripts
 */
export const readCoolDownsScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local found = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, ${CoolDown.maxOrigins})
local answer = {}
for i = 1, #found, 2 do
  answer[#answer + 1] = found[i]
  answer[#answer + 1] = tostring(tonumber(found[i + 1]) - now)
end
return answer
`

/**
 * Finagle's budget over the fleet, in the same fixed-point units as one process's: deposits
 * and withdrawals in one-second buckets of a hash, summed over the window. KEYS: the budget
 * key. ARGV: deposits to add, window in seconds, withdrawal, reserve, 1 to ask for a retry, and
 * the most and the least one bucket can hold ({@link finagleUnits}). Answers
 * `{ allowed (0 or 1), balance, rejected }`; buckets past the window are dropped.
 *
 * What it reads is checked before it counts: a bucket whose second is not a whole number, or
 * is in the future, or whose count is not a whole number within the bucket's bounds, could not
 * have come from this script. It is deleted and counted in `rejected`, never summed: a count
 * of 9e15 does not open the fleet's budget, nor -9e15 close it.
 *
 * @since 0.2.0
 * @category scripts
 */
export const budgetScript = `
local time = redis.call('TIME')
local now = tonumber(time[1])
local add = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local withdrawal = tonumber(ARGV[3])
local reserve = tonumber(ARGV[4])
local most = tonumber(ARGV[6])
local least = tonumber(ARGV[7])
local all = redis.call('HGETALL', KEYS[1])
local sum = 0
local rejected = 0
for i = 1, #all, 2 do
  local second = string.match(all[i], '^%d+$') and tonumber(all[i])
  local count = string.match(all[i + 1], '^-?%d+$') and tonumber(all[i + 1])
  if not second or not count or second > now or count > most or count < least then
    redis.call('HDEL', KEYS[1], all[i])
    rejected = rejected + 1
  elseif second <= now - window then
    redis.call('HDEL', KEYS[1], all[i])
  else
    sum = sum + count
  end
end
if add ~= 0 then
  redis.call('HINCRBY', KEYS[1], now, add)
  sum = sum + add
end
local allowed = 0
if ARGV[5] == '1' and sum + reserve >= withdrawal then
  redis.call('HINCRBY', KEYS[1], now, -withdrawal)
  sum = sum - withdrawal
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], (window + 1) * 1000)
return { allowed, sum + reserve, rejected }
`

/**
 * The most calls a second that a fleet's budget counts for one origin (and one budget's
 * settings): a bucket holds at most their deposits. Past it a bucket is not a count the fleet
 * could have made but a bug or a hostile write, and the budget script drops it. Below it, a
 * forged count cannot be told from a busy fleet's; it is gone after the window (at most a
 * minute), as every bucket is.
 */
const maxCallsPerSecond = 1_000_000

/**
 * The fixed-point numbers of a Finagle budget, as the one-process budget keeps them (a deposit
 * of 1000 per request, so a ratio above 1 needs no floating point), its window in seconds, and
 * the bounds of one bucket: at most the deposits of `maxCallsPerSecond` calls, at least
 * the withdrawals that the reserve and a window of such buckets could pay for. A budget of ratio
 * 0 deposits nothing: no bucket of it can be above 0.
 *
 * @since 0.2.0
 * @category budgets
 */
export const finagleUnits = (
  settings: FinagleSettings
): {
  readonly deposit: number
  readonly withdrawal: number
  readonly reserve: number
  readonly windowSeconds: number
  readonly mostPerBucket: number
  readonly leastPerBucket: number
} => {
  const { deposit, withdrawal } = finaglePrices(settings)
  const windowSeconds = Math.max(1, Math.trunc(settings.ttlMillis / 1000))
  const reserve = settings.minPerSecond * windowSeconds * withdrawal
  const mostPerBucket = deposit * maxCallsPerSecond
  return {
    deposit,
    withdrawal,
    reserve,
    windowSeconds,
    mostPerBucket,
    leastPerBucket: -(reserve + windowSeconds * mostPerBucket)
  }
}

/**
 * A budget script's answer, read defensively: `undefined` when it is not
 * `[allowed, balance, rejected]` (`rejected`, the buckets the script dropped, may be missing).
 *
 * @since 0.2.0
 * @category budgets
 */
export const readBudgetAnswer = (
  answer: unknown
): { readonly allowed: boolean; readonly balance: number; readonly rejected: number } | undefined => {
  if (!Array.isArray(answer) || answer.length < 2 || answer.length > 3) return undefined
  const allowed = Number(answer[0])
  const balance = Number(answer[1])
  const rejected = answer.length === 3 ? Number(answer[2]) : 0
  return Number.isFinite(allowed) && Number.isFinite(balance) && Number.isSafeInteger(rejected) && rejected >= 0
    ? { allowed: allowed === 1, balance, rejected }
    : undefined
}

/**
 * The code of the Redis error reply that a failure carries (`NOSCRIPT`, `WRONGTYPE`, `OOM`,
 * `NOAUTH`, ...), looked for in the failure and the chain of its `cause`s: clients wrap the
 * reply (Effect 3's `Effect.tryPromise` in an `UnknownException`, Effect 4's `Redis` service in
 * a `RedisError`). `undefined` when there is no reply: the connection failed, or no answer came.
 *
 * @since 0.2.0
 * @category errors
 */
export const errorReplyCode = (failure: unknown): string | undefined => {
  let current: unknown = failure
  // A reply's code is its first word, in capitals (RESP's simple error convention).
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    if ("message" in current && typeof current.message === "string") {
      const code = /^([A-Z][A-Z0-9_-]+)(?: |$)/.exec(current.message)?.[1]
      if (code !== undefined) return code
    }
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

/**
 * What a store's failure says, for a log line: the innermost message of the failure and its
 * `cause`s (a wrapper's "An unknown error occurred" says nothing), or "no answer in time" for a
 * round trip that timed out (`undefined`).
 *
 * @since 0.2.0
 * @category errors
 */
export const describeFailure = (failure: unknown): string => {
  if (failure === undefined) return "no answer in time"
  let said = typeof failure === "object" && failure !== null ? undefined : String(failure)
  let current: unknown = failure
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    if ("message" in current && typeof current.message === "string" && current.message !== "") said = current.message
    current = "cause" in current ? current.cause : undefined
  }
  return said ?? String(failure)
}

/**
 * A cool-down message (`millis origin`), or `undefined` when it is not one (`millis` is digits
 * only). Its length is read as written: a store applies it through its cool-down table, which
 * cuts it to a day (`CoolDown.maxMillis`).
 *
 * @since 0.2.0
 * @category cool-downs
 */
export const readCoolDownMessage = (
  message: string
): { readonly origin: string; readonly millis: number } | undefined => {
  const space = message.indexOf(" ")
  if (space <= 0) return undefined
  const digits = message.slice(0, space)
  // Digits only, as the script writes them: no sign, fraction, exponent or hex.
  const millis = /^\d{1,16}$/.test(digits) ? Number(digits) : Number.NaN
  const origin = message.slice(space + 1)
  return Number.isSafeInteger(millis) && millis > 0 && origin !== "" ? { origin, millis } : undefined
}

/**
 * The answer of {@link readCoolDownsScript}, read defensively: the pairs that are an origin and
 * a whole number of milliseconds left, above 0; anything else is left out.
 *
 * @since 0.2.0
 * @category cool-downs
 */
export const readCoolDownsAnswer = (
  answer: unknown
): ReadonlyArray<{ readonly origin: string; readonly millis: number }> => {
  if (!Array.isArray(answer)) return []
  const coolDowns: Array<{ readonly origin: string; readonly millis: number }> = []
  for (let i = 0; i + 1 < answer.length; i += 2) {
    const origin = answer[i]
    const millis = Number(answer[i + 1])
    if (typeof origin === "string" && origin !== "" && Number.isSafeInteger(millis) && millis > 0) {
      coolDowns.push({ origin, millis })
    }
  }
  return coolDowns
}

/**
 * A breaker that opened by its own decision, as one process tells the others: for how long, which
 * store said it (so that it ignores its own message), the breaker's settings (a
 * {@link settingsKey}: only breakers of the same settings follow), and the origin.
 *
 * @since 0.2.0
 * @category breakers
 */
export interface BreakerOpened {
  readonly breakMillis: number
  readonly storeId: string
  readonly settingsKey: string
  readonly origin: string
}

/**
 * The message of a breaker that opened: `open <breakMillis> <storeId> <settingsKey> <origin>`.
 *
 * @since 0.2.0
 * @category breakers
 */
export const breakerOpenedMessage = (opened: BreakerOpened): string =>
  `open ${Math.ceil(opened.breakMillis)} ${opened.storeId} ${opened.settingsKey} ${opened.origin}`

/**
 * A breaker's opening message, or `undefined` when it is not one.
 *
 * @since 0.2.0
 * @category breakers
 */
export const readBreakerOpenedMessage = (message: string): BreakerOpened | undefined => {
  const match = /^open (\d{1,9}) (\S+) (\S+) (\S+)$/.exec(message)
  if (match === null) return undefined
  const breakMillis = Number(match[1])
  return breakMillis > 0 ? { breakMillis, storeId: match[2]!, settingsKey: match[3]!, origin: match[4]! } : undefined
}

/**
 * Deposits counted locally since the last flush, per budget key. Bounded: past `maxKeys` keys
 * the deposits of a new key are dropped, which can only make the fleet's budget smaller.
 *
 * @since 0.2.0
 * @category budgets
 */
export class PendingDeposits {
  private readonly byKey = new Map<string, number>()
  constructor(private readonly maxKeys = 10_000) {}

  /** Counts a deposit for a key; true when the key had nothing pending (and was kept). */
  add(key: string, amount: number): boolean {
    const now = this.byKey.get(key)
    if (now === undefined && this.byKey.size >= this.maxKeys) return false
    this.byKey.set(key, (now ?? 0) + amount)
    return now === undefined
  }

  /** What a key has pending, cleared. */
  take(key: string): number {
    const amount = this.byKey.get(key) ?? 0
    this.byKey.delete(key)
    return amount
  }

  /** Every key's pending deposits, cleared. */
  drain(): Array<readonly [string, number]> {
    const all = [...this.byKey]
    this.byKey.clear()
    return all
  }

  /** Puts deposits back after a failed flush, so that they reach the store later. */
  restore(key: string, amount: number): void {
    if (amount !== 0) this.add(key, amount)
  }
}

/**
 * Whether the store answers: the first failure after answers says the store is degraded, the
 * first answer after failures that it is back; repeats say nothing, so each is logged once.
 *
 * An episode in which Redis refused the store's work (an error reply: `OOM`, `WRONGTYPE`)
 * `needsWork`: it is not over when a `PING` answers, but when that work goes through. Until then
 * the probe waits twice as long after each refusal, from the store's interval up to
 * {@link maxProbeIntervalMillis}, so that a Redis that answers `PING` and refuses the rest is not
 * taken as back, and the store does not flap.
 *
 * @since 0.2.0
 * @category health
 */
export class Health {
  degraded = false
  /** Whether this episode ends only when the work Redis refused goes through. */
  needsWork = false
  private failures = 0

  /** A round trip failed or took too long. `needsWork`: Redis refused it (an error reply). */
  failed(needsWork = false): "degraded" | undefined {
    if (needsWork) this.needsWork = true
    if (this.degraded) return undefined
    this.degraded = true
    this.failures = 0
    return "degraded"
  }

  /** A round trip answered in time, or, when the episode `needsWork`, that work went through. */
  answered(): "resumed" | undefined {
    if (!this.degraded) return undefined
    this.degraded = false
    this.needsWork = false
    this.failures = 0
    return "resumed"
  }

  /** The work a probe tried was refused again: the next probe waits twice as long. */
  workFailedAgain(): void {
    if (this.failures < 30) this.failures++
  }

  /**
   * How long until the next probe: `intervalMillis` while Redis does not answer; while the
   * episode `needsWork`, `intervalMillis` doubled for each refused probe, up to
   * {@link maxProbeIntervalMillis} (or `intervalMillis`, when it is longer).
   */
  probeDelayMillis(intervalMillis: number): number {
    if (!this.needsWork) return intervalMillis
    return Math.min(intervalMillis * 2 ** this.failures, Math.max(intervalMillis, maxProbeIntervalMillis))
  }
}

/**
 * The longest a store waits between two probes while Redis answers `PING` but refuses its work:
 * 30 seconds.
 *
 * @since 0.2.0
 * @category health
 */
export const maxProbeIntervalMillis = 30_000

/**
 * A shared store's settings, resolved: the key prefix, the longest a retry waits on the store,
 * how often deposits are flushed (and the store probed while it does not answer), and whether
 * breakers tell each other when they open.
 *
 * @since 0.2.0
 * @category settings
 */
export interface StoreSettings {
  readonly prefix: string
  readonly timeoutMillis: number
  readonly syncIntervalMillis: number
  /**
   * Whether a breaker that opens here opens the same breaker for the origin in every process,
   * each of which then probes on its own; a close is never shared.
   */
  readonly shareCircuitBreaker: boolean
}

/**
 * The defaults: prefix `http-resilience`, a 100 ms timeout, a flush every second, breakers per
 * process.
 *
 * @since 0.2.0
 * @category settings
 */
export const storeDefaults: StoreSettings = {
  prefix: defaultPrefix,
  timeoutMillis: 100,
  syncIntervalMillis: 1000,
  shareCircuitBreaker: false
}

const withinMillis = (option: string, millis: number, min: number, max: number, value: unknown): Checked<number> =>
  millis >= min && millis <= max ? valid(millis) : invalid(option, `must be from ${min} ms to ${max} ms`, value)

/**
 * Reads a shared store's options (`prefix`, `timeout`, `syncInterval`, `shareCircuitBreaker`, and
 * the names in `more`, which the caller reads): a bad one is named, with why. A prefix is 1 to
 * 100 characters without whitespace or `}`: {@link keysFor} frames it as `{prefix}`, which a `}`
 * would end early. Glob characters (`* ? [ \`) are plain characters: no key is found by pattern.
 *
 * @since 0.2.0
 * @category settings
 */
export const resolveStoreSettings = <D>(
  input: unknown,
  codec: DurationCodec<D>,
  more: ReadonlyArray<string>
): Checked<StoreSettings> =>
  andThen(
    optionsRecord("layerRedis", input, ["prefix", "timeout", "syncInterval", "shareCircuitBreaker", ...more]),
    (given) => {
      const prefix = given.prefix ?? storeDefaults.prefix
      if (typeof prefix !== "string" || !/^[^\s}]{1,100}$/.test(prefix)) {
        return invalid(
          "layerRedis.prefix",
          'must be 1 to 100 characters, without whitespace or "}" (keys start with "{prefix}:", and a "}" would end the frame early)',
          prefix
        )
      }
      const millisOf = (option: "timeout" | "syncInterval", fallback: number, min: number, max: number) =>
        given[option] === undefined
          ? valid(fallback)
          : andThen(durationMillis(codec, `layerRedis.${option}`, given[option]), (millis) =>
              withinMillis(`layerRedis.${option}`, millis, min, max, given[option])
            )
      const shareCircuitBreaker =
        given.shareCircuitBreaker === undefined ? storeDefaults.shareCircuitBreaker : given.shareCircuitBreaker
      if (typeof shareCircuitBreaker !== "boolean") {
        return invalid("layerRedis.shareCircuitBreaker", "must be true or false", shareCircuitBreaker)
      }
      return andThen(millisOf("timeout", storeDefaults.timeoutMillis, 1, 10_000), (timeoutMillis) =>
        andThen(millisOf("syncInterval", storeDefaults.syncIntervalMillis, 10, 60_000), (syncIntervalMillis) =>
          valid({ prefix, timeoutMillis, syncIntervalMillis, shareCircuitBreaker })
        )
      )
    }
  )

/**
 * How long a new store waits to be ready (connected, listening, and holding the cool-downs in
 * force) before it starts degraded: ten times its timeout, 1 second by default, at most 10 s.
 * Only a layer's start waits this long; a call never does.
 *
 * @since 0.2.0
 * @category settings
 */
export const readyWithinMillis = (settings: StoreSettings): number => Math.min(10 * settings.timeoutMillis, 10_000)

/**
 * Whether a reply to `INFO cluster` comes from a node of a Redis Cluster (`cluster_enabled:1`).
 * A client of one node cannot serve a store on a cluster (the prefix's slot may be on another
 * master, which answers `MOVED`), so a store given one refuses to start.
 *
 * @since 0.2.0
 * @category cluster
 */
export const isClusterNode = (infoCluster: unknown): boolean =>
  typeof infoCluster === "string" && /(^|\n)cluster_enabled:1\r?(\n|$)/.test(infoCluster)

// ---------------------------------------------------------------------------------------------
// The rate limit (issue #34): token buckets kept in Redis, blocks shared as cool-downs are

/**
 * The rate limit's keys and channel under a prefix, framed as the others: a bucket per limit and
 * key (a hash of `u`, its units, and `t`, when they were counted, on Redis's clock), and the blocks
 * learnt from servers' rate-limit headers, kept and told as cool-downs are (the same scripts, a
 * set and a channel of their own).
 *
 * @since 0.2.0
 * @category rate limit
 */
export const rateLimitKeysFor = (prefix: string) => {
  const frame = `{${prefix}}`
  return {
    bucket: (limit: TokenBucket.Limit, key: string): string =>
      `${frame}:ratelimit:${limit.limit}/${limit.windowMillis}:${key}`,
    blocks: `${frame}:ratelimit-blocks`,
    blockChannel: `${frame}:channel:ratelimit-blocks`
  }
}

/**
 * The longest a take may wait in Redis, and so the most units a bucket may hold reserved: a day,
 * as the longest cool-down. A longer wait asked (a call without a deadline) is cut to it.
 *
 * @since 0.2.0
 * @category rate limit
 */
export const maxRateLimitWaitMillis = CoolDown.maxMillis

/**
 * `TokenBucket`'s take and refund, atomically on Redis's clock. KEYS: the bucket. ARGV: `take` or
 * `refund`, the limit, the window (ms), the longest wait, and how long after now the take counts
 * from (a block in force). Answers `{ granted (0 or 1), wait (ms), rejected (0 or 1) }`.
 *
 * What it reads is checked first: units that are not whole, above the capacity or below a day of
 * reservations, or a time that is not whole or more than a day ahead, could not have come from
 * this script: the bucket starts afresh (full) and `rejected` says so. The key expires once it
 * would have refilled whole.
 *
 * @since 0.2.0
 * @category rate limit
 */
export const rateLimitScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[5])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local capacity = limit * window
local state = redis.call('HMGET', KEYS[1], 'u', 't')
local units = capacity
local updated = now
local rejected = 0
if state[1] or state[2] then
  local u = state[1] and string.match(state[1], '^-?%d+$') and tonumber(state[1])
  local t = state[2] and string.match(state[2], '^%d+$') and tonumber(state[2])
  if u and t and u <= capacity and u >= -limit * ${CoolDown.maxMillis} and t <= now + ${CoolDown.maxMillis} then
    units = u
    updated = t
  else
    rejected = 1
  end
end
if now > updated then
  units = math.min(capacity, units + (now - updated) * limit)
  updated = now
end
local granted = 1
local wait = 0
if ARGV[1] == 'take' then
  local sendAt = math.max(now, updated + math.ceil(math.max(0, window - units) / limit))
  wait = sendAt - now
  if wait <= tonumber(ARGV[4]) then units = units - window else granted = 0 end
else
  units = math.min(capacity, units + window)
end
redis.call('HSET', KEYS[1], 'u', string.format('%.0f', units), 't', string.format('%.0f', updated))
redis.call('PEXPIRE', KEYS[1], updated - now + math.ceil((capacity - units) / limit) + 1000 + tonumber(ARGV[5]))
return { granted, wait, rejected }
`

/**
 * The rate-limit script's answer, read defensively: `undefined` when it is not three whole numbers,
 * `granted` 0 or 1, `wait` from 0 to a day.
 *
 * @since 0.2.0
 * @category rate limit
 */
export const readRateLimitAnswer = (
  answer: unknown
): { readonly granted: boolean; readonly waitMillis: number; readonly rejected: boolean } | undefined => {
  if (!Array.isArray(answer) || answer.length !== 3) return undefined
  const [granted, wait, rejected] = answer.map(Number)
  return (granted === 0 || granted === 1) &&
    wait !== undefined &&
    Number.isSafeInteger(wait) &&
    wait >= 0 &&
    wait <= 2 * CoolDown.maxMillis &&
    (rejected === 0 || rejected === 1)
    ? { granted: granted === 1, waitMillis: wait, rejected: rejected === 1 }
    : undefined
}
