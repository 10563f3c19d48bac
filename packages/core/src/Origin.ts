/**
 * Origins (scheme, host, port) as keys of per-origin state: the retry budget and the circuit
 * breaker keep one entry per origin, forget entries that hold nothing or have gone idle, and hold
 * a bounded number of origins.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * Origin.originOf("https://api.example.com/v1/items?page=2") // "https://api.example.com:443"
 * ```
 *
 * @since 0.1.0
 */
/**
 * The origin key of a URL: `scheme://host:port`, with the scheme's default port written out so
 * that `http://a` and `http://a:80` share one key. A string that is not an absolute URL is its own
 * key, without its query and user info: such a request fails before it reaches any server, so
 * the key only has to be stable, and it must not carry secrets into metric labels.
 *
 * @since 0.1.0
 * @category keys
 */
export const originOf = (url: string | URL): string => {
  let parsed: URL
  if (typeof url === "string") {
    try {
      parsed = new URL(url)
    } catch {
      // Not an absolute URL: such a request fails before it reaches any server, so the key
      // only has to be stable. It becomes a metric label: no query, no user info.
      return keyOfUnparsed(url)
    }
  } else {
    parsed = url
  }
  // URL drops a scheme's default port ("http://a:80" has port ""); put it back so that
  // "http://a" and "http://a:80" share one key.
  const port = parsed.port !== "" ? parsed.port : defaultPorts[parsed.protocol]
  const base = `${parsed.protocol}//${parsed.hostname}`
  return port === undefined ? base : `${base}:${port}`
}

const keyOfUnparsed = (url: string): string => {
  const beforeQuery = url.split(/[?#]/, 1)[0] ?? ""
  const at = beforeQuery.lastIndexOf("@")
  return at === -1 ? beforeQuery : `REDACTED:REDACTED${beforeQuery.slice(at)}`
}

// The ports URL leaves out of `port` because they are the scheme's default.
const defaultPorts: Readonly<Record<string, string>> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" }

/**
 * An origin key split into its scheme, host (IPv6 without brackets) and port, as OpenTelemetry's `url.scheme`, `server.address` and `server.port` want them.
 *
 * @since 0.1.0
 * @category models
 */
export interface OriginParts {
  readonly scheme: string | undefined
  readonly address: string
  readonly port: string | undefined
}

const originPattern = /^([a-z][a-z0-9+.-]*):\/\/(\[[^\]]*\]|[^:/]*)(?::(\d+))?$/i

/**
 * Splits an origin key back into scheme, host (IPv6 without brackets) and port.
 *
 * @since 0.1.0
 * @category keys
 */
export const originParts = (origin: string): OriginParts => {
  const match = originPattern.exec(origin)
  if (match === null) return { scheme: undefined, address: origin, port: undefined }
  const host = match[2] ?? ""
  return {
    scheme: match[1]?.toLowerCase(),
    address: host.startsWith("[") ? host.slice(1, -1) : host,
    port: match[3]
  }
}

/**
 * How long an origin's entry may go unused before a table forgets it: one hour, as Effect 4's
 * in-memory circuit breaker store (`idleTimeToLive`). The state machines decide what counts as
 * idle: an entry that holds nothing is forgotten at once, one that holds a break is kept this
 * long past the break's end (see `RetryBudget.isIdle`, `CircuitBreakerMachine.isIdle`).
 *
 * @since 0.1.0
 * @category defaults
 */
export const idleTimeToLiveMillis = 60 * 60 * 1000

/**
 * How many origins a table holds at most, by default: past it, a new origin makes room by
 * evicting the least recently used one (see {@link OriginTable}).
 *
 * @since 0.1.0
 * @category defaults
 */
export const maxOriginsDefault = 10_000

/**
 * How a table forgets: what happens to a dropped entry, which entries it must never evict, how
 * many origins it holds and how often it looks for idle ones.
 *
 * @since 0.1.0
 * @category models
 */
export interface OriginTableOptions<E> {
  /** Called for every entry dropped, idle or evicted. */
  readonly onEvict?: ((entry: E) => void) | undefined
  /** Entries never evicted to make room (a circuit isolated by hand); idle rules still apply. */
  readonly isPinned?: ((entry: E) => boolean) | undefined
  /** At most this many origins (pinned ones may exceed it); {@link maxOriginsDefault}. */
  readonly maxOrigins?: number | undefined
  /** Looks for idle entries at most this often, when a new origin arrives; 60 s. */
  readonly sweepEveryMillis?: number | undefined
}

interface Slot<E> {
  readonly entry: E
  lastUsedMillis: number
  /** When the slot last moved to the end of the map's order, which is thus least recently used first. */
  movedAtMillis: number
}

// An origin in use moves to the end of the order at most once a second: recency to the second,
// for one comparison per lookup on the hot path.
const recencyStepMillis = 1000

/**
 * Per-origin entries, created on first use, and bounded two ways:
 *
 * - idle entries are dropped now and then (at most once per `sweepEveryMillis`, when a new
 *   origin arrives): `isIdle(entry, now, lastUsed)` decides, with the time the entry was last
 *   looked up by {@link OriginTable.get};
 * - a table holds at most `maxOrigins` origins: a new origin past that evicts the least recently
 *   used entry (to the second) that is not pinned.
 *
 * Times are a monotonic clock's milliseconds, so a stepped wall clock neither expires nor keeps
 * anything.
 *
 * @since 0.1.0
 * @category constructors
 */
export class OriginTable<E> {
  private readonly slots = new Map<string, Slot<E>>()
  private lastSweep = Number.NEGATIVE_INFINITY
  private readonly onEvict: (entry: E) => void
  private readonly isPinned: (entry: E) => boolean
  private readonly sweepEveryMillis: number
  readonly maxOrigins: number

  constructor(
    private readonly create: (origin: string, nowMillis: number) => E,
    private readonly isIdle: (entry: E, nowMillis: number, lastUsedMillis: number) => boolean,
    options: OriginTableOptions<E> = {}
  ) {
    this.onEvict = options.onEvict ?? (() => {})
    this.isPinned = options.isPinned ?? (() => false)
    this.maxOrigins = Math.max(1, options.maxOrigins ?? maxOriginsDefault)
    this.sweepEveryMillis = options.sweepEveryMillis ?? 60_000
  }

  /** The origin's entry, created if there is none; counts as a use. */
  get(origin: string, nowMillis: number): E {
    const slot = this.slots.get(origin)
    if (slot !== undefined) {
      slot.lastUsedMillis = nowMillis
      if (nowMillis - slot.movedAtMillis >= recencyStepMillis) {
        slot.movedAtMillis = nowMillis
        this.slots.delete(origin)
        this.slots.set(origin, slot)
      }
      return slot.entry
    }
    if (nowMillis - this.lastSweep >= this.sweepEveryMillis) this.dropIdle(nowMillis)
    if (this.slots.size >= this.maxOrigins) this.evictLeastRecentlyUsed()
    const entry = this.create(origin, nowMillis)
    this.slots.set(origin, { entry, lastUsedMillis: nowMillis, movedAtMillis: nowMillis })
    return entry
  }

  /** The origin's entry if there is one; not a use. */
  peek(origin: string): E | undefined {
    return this.slots.get(origin)?.entry
  }

  get size(): number {
    return this.slots.size
  }

  /** Drops every idle entry now. */
  dropIdle(nowMillis: number): void {
    this.lastSweep = nowMillis
    for (const [origin, slot] of this.slots) {
      if (this.isIdle(slot.entry, nowMillis, slot.lastUsedMillis)) {
        this.slots.delete(origin)
        this.onEvict(slot.entry)
      }
    }
  }

  private evictLeastRecentlyUsed(): void {
    // Oldest first; a pinned entry goes to the back, and each entry is looked at once at most.
    let left = this.slots.size
    for (const [origin, slot] of this.slots) {
      if (left-- === 0) return
      this.slots.delete(origin)
      if (this.isPinned(slot.entry)) {
        this.slots.set(origin, slot)
        continue
      }
      this.onEvict(slot.entry)
      return
    }
  }
}

/**
 * The scheme and authority of a URL as written (`https://api.example.com:8443`), without
 * parsing it: a cheap key for what is worked out once per origin.
 */
const authorityOf = (url: string): string => {
  const start = url.indexOf("//")
  if (start < 0) return url
  // Called on every request: one scan and one slice, no intermediate string.
  for (let index = start + 2; index < url.length; index++) {
    const code = url.charCodeAt(index)
    if (code === slash || code === questionMark || code === hash) return url.slice(0, index)
  }
  return url
}

const slash = 47
const questionMark = 63
const hash = 35

/**
 * What is worked out once per origin, found by a URL's authority (parsing a URL on every call
 * costs more than what it keys). Bounded: past `maxEntries` authorities (1024 by default), a new
 * one evicts the one that came first.
 *
 * @since 0.1.0
 * @category constructors
 */
export class ByAuthority<V> {
  private readonly entries = new Map<string, V>()

  constructor(
    private readonly make: (origin: string) => V,
    readonly maxEntries = 1024
  ) {}

  get(url: string): V {
    const authority = authorityOf(url)
    let entry = this.entries.get(authority)
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) {
        // First in, first out: a lookup costs no bookkeeping, and an evicted entry is cheap to make again.
        for (const oldest of this.entries.keys()) {
          this.entries.delete(oldest)
          break
        }
      }
      entry = this.make(originOf(authority))
      this.entries.set(authority, entry)
    }
    return entry
  }

  get size(): number {
    return this.entries.size
  }
}
