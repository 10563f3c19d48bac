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
import {
  andThen,
  type Checked,
  type DurationCodec,
  durationMillis,
  invalid,
  optionsRecord,
  valid,
  withheld
} from "./Settings.js"

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
 * sorted set, origin by end time on Redis's clock). ARGV: milliseconds, channel, origin, and `1`
 * to publish even when the cool-down did not grow. Publishes `millis origin` when the cool-down
 * grew (or `left origin` when asked to tell it again: a write whose first run may have stopped
 * before its `PUBLISH`), and answers the milliseconds now left. Each write drops the cool-downs
 * that have ended, keeps at most {@link CoolDown.maxOrigins} (the one that ends first goes, as in
 * memory), and lets the set expire with its longest.
 *
 * @since 0.2.0
 * @category scripts
 */
export const coolDownScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local millis = tonumber(ARGV[1])
local left = (tonumber(redis.call('ZSCORE', KEYS[1], ARGV[3])) or 0) - now
if left >= millis then
  if ARGV[4] == '1' then redis.call('PUBLISH', ARGV[2], left .. ' ' .. ARGV[3]) end
  return left
end
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
 * What the store asked Redis, for a warning to name: a command (`PING`, `SUBSCRIBE <channel>`,
 * `PUBLISH <channel>`), or one of this module's scripts, loaded (`SCRIPT LOAD`) or run (`EVALSHA`).
 *
 * @since 0.2.0
 * @category errors
 */
export interface StoreRequest {
  readonly command: string
  /** The script's text, when the command loads or runs one of this module's scripts. */
  readonly script?: string | undefined
}

/**
 * A request that failed, and why (`cause`): what a store keeps of a failure, so that its warning
 * names the command Redis failed. It has no `message`: {@link errorReplyCode} reads the reply in
 * its `cause`.
 *
 * @since 0.2.0
 * @category errors
 */
export class RequestFailure {
  readonly _tag = "RequestFailure"
  constructor(
    readonly request: StoreRequest,
    readonly cause: unknown
  ) {}
}

/**
 * A command a client did not send for want of a connection (node-redis' "The client is offline"),
 * with `reason`: the last error that client's connection met, which says why it has none (a
 * refused connection, a wrong password, a certificate). A reply code in `reason` is the
 * connection's, not the command's: {@link errorReplyCode} does not read it.
 *
 * @since 0.2.0
 * @category errors
 */
export class NotConnected {
  readonly _tag = "NotConnected"
  constructor(
    readonly cause: unknown,
    readonly reason: unknown
  ) {}
}

// A failure and its causes, outermost first; a NotConnected's reason stands for the error it wraps.
const chainOf = (failure: unknown): ReadonlyArray<object> => {
  const chain: Array<object> = []
  let current: unknown = failure
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    chain.push(current)
    current =
      current instanceof NotConnected && current.reason !== undefined
        ? current.reason
        : "cause" in current
          ? current.cause
          : undefined
  }
  return chain
}

const messageOf = (node: object): string | undefined =>
  "message" in node && typeof node.message === "string" ? node.message : undefined

const codeOf = (node: object): string | undefined =>
  "code" in node && typeof node.code === "string" ? node.code : undefined

// A reply's code is its first word, in capitals (RESP's simple error convention).
const replyCodeOf = (node: object): string | undefined => /^([A-Z][A-Z0-9_-]+)(?: |$)/.exec(messageOf(node) ?? "")?.[1]

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
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = replyCodeOf(current)
    if (code !== undefined) return code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

/**
 * What kind of failure a store met, for its warning and its choices: no answer in time
 * (`undefined`, or a client's own timeout), a connection Redis's host refused, a host not found
 * or not reached, a password Redis refused (`WRONGPASS`, `NOAUTH`), a TLS handshake that failed
 * (a certificate not trusted, expired, for another name), Redis refusing the command (any other
 * error reply: `NOPERM`, `OOM`, `WRONGTYPE`, a script's error), a connection that dropped with no
 * reason known yet, or something else.
 *
 * @since 0.2.0
 * @category errors
 */
export type FailureKind =
  | "timeout"
  | "connection-refused"
  | "unreachable"
  | "authentication"
  | "tls"
  | "refused"
  | "lost"
  | "other"

const unreachableCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN"])
// Node's TLS errors: SELF_SIGNED_CERT_IN_CHAIN, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID,
// ERR_SSL_WRONG_VERSION_NUMBER, EPROTO (TLS spoken to a port that does not), ...
const tlsCode = /CERT|SSL|TLS|^EPROTO$/
// node-redis' ConnectionTimeoutError and SocketTimeoutError; Effect's TimeoutError.
const timeoutMessage = /^(Connection timeout|Socket timeout)/
const lostMessage = /^(Socket closed unexpectedly|The client is closed|The client is offline|Disconnects client)$/

// Each kind, with the test that finds it in one error of the chain; the first kind found wins.
const kindTests: ReadonlyArray<readonly [FailureKind, (node: object) => boolean]> = [
  ["authentication", (node) => replyCodeOf(node) === "WRONGPASS" || replyCodeOf(node) === "NOAUTH"],
  ["tls", (node) => tlsCode.test(codeOf(node) ?? "")],
  ["connection-refused", (node) => codeOf(node) === "ECONNREFUSED"],
  ["unreachable", (node) => unreachableCodes.has(codeOf(node) ?? "")],
  [
    "timeout",
    (node) =>
      codeOf(node) === "ETIMEDOUT" ||
      timeoutMessage.test(messageOf(node) ?? "") ||
      ("_tag" in node && node._tag === "TimeoutError")
  ],
  ["refused", (node) => replyCodeOf(node) !== undefined],
  [
    "lost",
    (node) => lostMessage.test(messageOf(node) ?? "") || codeOf(node) === "ECONNRESET" || codeOf(node) === "EPIPE"
  ]
]

const explain = (failure: unknown): { readonly kind: FailureKind; readonly node: object | undefined } => {
  if (failure === undefined) return { kind: "timeout", node: undefined }
  const chain = chainOf(failure)
  for (const [kind, test] of kindTests) {
    const node = chain.find(test)
    if (node !== undefined) return { kind, node }
  }
  return { kind: "other", node: undefined }
}

/**
 * The kind of a store's failure ({@link FailureKind}).
 *
 * @since 0.2.0
 * @category errors
 */
export const failureKind = (failure: unknown): FailureKind => explain(failure).kind

/**
 * Whether a command failed before the client sent it, for want of a connection (node-redis' "The
 * client is closed" or "The client is offline"): sending it on another connection cannot run it
 * twice.
 *
 * @since 0.2.0
 * @category errors
 */
export const neverSent = (failure: unknown): boolean =>
  chainOf(failure).some(
    (node) => node instanceof NotConnected || /^The client is (closed|offline)$/.test(messageOf(node) ?? "")
  )

const kindPhrases: Record<FailureKind, string> = {
  timeout: "timed out",
  "connection-refused": "connection refused",
  unreachable: "Redis not reached",
  authentication: "authentication failed",
  tls: "TLS failed",
  refused: "refused by Redis",
  lost: "connection lost",
  other: "failed"
}

const scriptName = (script: string): string => {
  switch (script) {
    case budgetScript:
      return "the budget script"
    case coolDownScript:
      return "the cool-down script"
    case readCoolDownsScript:
      return "the cool-downs' read"
    case rateLimitScript:
      return "the rate-limit script"
    default:
      return "a script"
  }
}

// The command a script's error names by its line (`@user_script:13`), read from the script.
const failedScriptCommand = (script: string, chain: ReadonlyArray<object>): string | undefined => {
  for (const node of chain) {
    const line = /@user_script:\s?(\d+)/.exec(messageOf(node) ?? "")?.[1]
    if (line !== undefined) return /redis\.call\('([A-Z]+)'/.exec(script.split("\n")[Number(line) - 1] ?? "")?.[1]
  }
  return undefined
}

const describeRequest = (request: StoreRequest, chain: ReadonlyArray<object>): string => {
  if (request.script === undefined) return request.command
  const name = scriptName(request.script)
  if (request.command !== "EVALSHA") return `${request.command} of ${name}`
  const at = failedScriptCommand(request.script, chain)
  return `${name} (EVALSHA)${at === undefined ? "" : `, at its ${at}`}`
}

// The innermost message of the chain: a wrapper's "An unknown error occurred" says nothing.
const innermostMessage = (failure: unknown, chain: ReadonlyArray<object>): string => {
  let said = chain.length === 0 ? String(failure) : undefined
  for (const node of chain) {
    const message = messageOf(node)
    if (message !== undefined && message !== "") said = message
  }
  return said ?? String(failure)
}

/**
 * What a store's failure says, for its warning: its kind in words, what the error that shows it
 * says (the reply, the certificate's error, the refused address), and the request it failed
 * (`request`, or the innermost {@link RequestFailure}'s): "refused by Redis: NOPERM this user has
 * no permissions to access one of the channels used as arguments (on SUBSCRIBE
 * {orders}:channel:cooldowns)", "authentication failed: WRONGPASS invalid username-password pair
 * or user is disabled. (on PING)", "timed out: no answer within 100 ms (on the budget script
 * (EVALSHA))". A script's error names the command it stopped at.
 *
 * @since 0.2.0
 * @category errors
 */
export const describeFailure = (failure: unknown, request?: StoreRequest, timeoutMillis?: number): string => {
  const chain = chainOf(failure)
  const { kind, node } = explain(failure)
  const detail =
    failure === undefined
      ? timeoutMillis === undefined
        ? "no answer in time"
        : `no answer within ${timeoutMillis} ms`
      : ((node === undefined ? undefined : messageOf(node)) ?? innermostMessage(failure, chain))
  let failed = request
  for (const link of chain) if (link instanceof RequestFailure) failed = link.request
  return `${kindPhrases[kind]}: ${detail}${failed === undefined ? "" : ` (on ${describeRequest(failed, chain)})`}`
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
 * A connection that dropped (`quietly`: no reason known yet) makes the store degraded without a
 * word: the next failure that says why (a refused connection, a wrong password, a certificate), or
 * a probe that finds the connection still lost, says it; an answer first ends the episode in
 * silence (`"recovered"`), a connection that came straight back.
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
  /** Whether this episode was said (a warning), so that its end is said too. */
  announced = false
  private failures = 0

  /**
   * A round trip failed or took too long. `needsWork`: Redis refused it (an error reply).
   * `quietly`: the connection dropped, with no reason known yet: nothing to say.
   */
  failed(needsWork = false, quietly = false): "degraded" | undefined {
    if (needsWork) this.needsWork = true
    if (!this.degraded) this.failures = 0
    this.degraded = true
    if (this.announced || quietly) return undefined
    this.announced = true
    return "degraded"
  }

  /**
   * A round trip answered in time, or, when the episode `needsWork`, that work went through:
   * `"resumed"` ends an episode that was said, `"recovered"` one that was not.
   */
  answered(): "resumed" | "recovered" | undefined {
    if (!this.degraded) return undefined
    const said = this.announced
    this.degraded = false
    this.needsWork = false
    this.announced = false
    this.failures = 0
    return said ? "resumed" : "recovered"
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
    withholdingValue(
      optionsRecord("layerRedis", input, ["prefix", "timeout", "syncInterval", "shareCircuitBreaker", ...more])
    ),
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

// A bad options record, or an option that is none, may be the client's options or a URL with its
// password (`layerRedis("redis://:s3cret@host")`, `{ password }`): its value is not shown.
const withholdingValue = <A>(checked: Checked<A>): Checked<A> =>
  checked._tag === "Valid"
    ? checked
    : invalid(checked.problem.option, checked.problem.reason, withheld(checked.problem.value))

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/**
 * A Redis URL as an error may show it, never what could be a password: one that parses with a
 * host shows its scheme and host (and port), its user info as `***` and any path as `/…`; one
 * that does not parse, its scheme only (`"redis:…"`), for a password may be anywhere in it.
 *
 * @since 0.2.0
 * @category settings
 */
export const redactRedisUrl = (url: string): string => {
  const parsed = parseUrl(url)
  if (parsed !== undefined && parsed.host !== "") {
    const userinfo = parsed.username !== "" || parsed.password !== "" ? "***@" : ""
    const rest = parsed.pathname.length > 1 || parsed.search !== "" || parsed.hash !== "" ? "/…" : ""
    return `${parsed.protocol}//${userinfo}${parsed.host}${rest}`
  }
  const scheme = /^\s*([a-z][a-z\d+.-]*:)/i.exec(url)?.[1]
  return scheme === undefined ? "…" : `${scheme}…`
}

const decodes = (component: string): boolean => {
  try {
    decodeURIComponent(component)
    return true
  } catch {
    return false
  }
}

/**
 * A `url` option, checked as node-redis will read it, so that a URL it cannot read fails the
 * layer with a bad option rather than the client: a `redis://` or `rediss://` URL that parses,
 * with a host, a user name and password that percent-decode, and no path but a database number.
 * The URL shown in the failure is {@link redactRedisUrl}'s.
 *
 * @since 0.2.0
 * @category settings
 */
export const checkRedisUrl = (option: string, input: unknown): Checked<string> => {
  if (typeof input !== "string") return invalid(option, "must be a redis:// or rediss:// URL", withheld(input))
  const shown = redactRedisUrl(input)
  const parsed = parseUrl(input)
  if (parsed === undefined) {
    return invalid(
      option,
      "does not parse as a URL (a port above 65535, an IPv6 address without its brackets, a space in the host?)",
      shown
    )
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    return invalid(option, "must be a redis:// or rediss:// URL", shown)
  }
  if (parsed.hostname === "" || !/^\s*rediss?:\/\//i.test(input)) {
    return invalid(option, "must name a host, as redis://host:6379 does", shown)
  }
  if (!decodes(parsed.username) || !decodes(parsed.password)) {
    return invalid(option, "has a user name or password that is not valid percent-encoding", shown)
  }
  if (!/^(\/\d*)?$/.test(parsed.pathname)) {
    return invalid(option, "may have no path but a database number, as redis://host:6379/0 does", shown)
  }
  return valid(input)
}

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
      `${frame}:ratelimit:${limit.limit}/${limit.windowMillis}/${limit.burst}:${key}`,
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
 * The most send times one take of the rate-limit script leases at once (issue #43).
 *
 * @since 0.2.0
 * @category rate limit
 */
export const maxRateLimitLease = 32

/**
 * `TokenBucket`'s take and refund, atomically on Redis's clock. KEYS: the bucket. ARGV: `take`,
 * `refund` or `peek` (neither: the bucket's state written as it stands, what a store that Redis
 * refused runs to learn that Redis takes the script again), the limit, the window (ms), the burst,
 * the longest wait (a take) or how long until the token given back was due (a refund), and how long
 * after now the take counts from (a block in force, or the wait this process's own bucket asks).
 * Answers `{ granted (0 or 1), wait (ms), rejected (0 or 1), now (Redis's clock, ms), ...later }`. A granted take with a
 * count (ARGV 7, 1 by default, at most {@link maxRateLimitLease}) leases up to that many send
 * times at once, each the next of the bucket's, later than now and within the longest wait:
 * `later` holds the waits (ms) of those after the first, in order. A time that is now (a token of
 * the burst) is not leased ahead: it would pass before another attempt could spend it.
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
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[6])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local capacity = tonumber(ARGV[4]) * window
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
local answer = {}
if ARGV[1] == 'take' then
  local sendAt = math.max(now, updated + math.ceil(math.max(0, window - units) / limit))
  wait = sendAt - now
  if wait <= tonumber(ARGV[5]) then units = units - window else granted = 0 end
  for i = 2, granted * math.min(tonumber(ARGV[7] or '1') or 1, ${maxRateLimitLease}) do
    local at = math.max(now, updated + math.ceil(math.max(0, window - units) / limit))
    if at <= now or at - now > tonumber(ARGV[5]) then break end
    units = units - window
    answer[#answer + 1] = at - now
  end
elseif ARGV[1] == 'refund' and units + math.max(0, now + math.floor(tonumber(ARGV[5])) - updated) * limit >= 0 then
  units = math.min(capacity, units + window)
end
redis.call('HSET', KEYS[1], 'u', string.format('%.0f', units), 't', string.format('%.0f', updated))
redis.call('PEXPIRE', KEYS[1], updated - now + math.ceil((capacity - units) / limit) + 1000 + tonumber(ARGV[6]))
table.insert(answer, 1, now - tonumber(ARGV[6]))
table.insert(answer, 1, rejected)
table.insert(answer, 1, wait)
table.insert(answer, 1, granted)
return answer
`

/**
 * The rate-limit script's answer, read defensively: `undefined` unless `granted` is 0 or 1, `wait`
 * and each later wait from 0 to two days and in order, and Redis's `now` a whole number.
 *
 * @since 0.2.0
 * @category rate limit
 */
export const readRateLimitAnswer = (
  answer: unknown
):
  | {
      readonly granted: boolean
      readonly waitMillis: number
      readonly rejected: boolean
      readonly nowMillis: number
      readonly laterMillis: ReadonlyArray<number>
    }
  | undefined => {
  if (!Array.isArray(answer) || answer.length < 4 || answer.length > 3 + maxRateLimitLease) return undefined
  const [granted, wait, rejected, now, ...later] = answer.map(Number)
  const isWait = (value: number | undefined): value is number =>
    value !== undefined && Number.isSafeInteger(value) && value >= 0 && value <= 2 * CoolDown.maxMillis
  // Leased times come in order, each after the first.
  const inOrder = later.every((at, index) => isWait(at) && at >= (index === 0 ? (wait ?? 0) : (later[index - 1] ?? 0)))
  return (granted === 0 || granted === 1) &&
    isWait(wait) &&
    (rejected === 0 || rejected === 1) &&
    now !== undefined &&
    Number.isSafeInteger(now) &&
    now >= 0 &&
    inOrder
    ? { granted: granted === 1, waitMillis: wait, rejected: rejected === 1, nowMillis: now, laterMillis: later }
    : undefined
}
