/**
 * Origins (scheme, host, port) as keys of per-origin state: the retry budget and the circuit
 * breaker keep one entry per origin, and forget entries that hold nothing.
 *
 * @since 0.1.0
 */
/**
 * The origin key of a URL: `scheme://host:port`, with the scheme's default port written out so
 * that `http://a` and `http://a:80` share one key. A string that is not an absolute URL is its own
 * key: such a request fails before it reaches any server, so the key only has to be stable.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * Origin.originOf("https://api.example.com/v1/items?page=2") // "https://api.example.com:443"
 * ```
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
      // only has to be stable.
      return url
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

// The ports URL leaves out of `port` because they are the scheme's default.
const defaultPorts: Readonly<Record<string, string>> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" }

/**
 * An origin key split into its scheme, host (IPv6 without brackets) and port, as OpenTelemetry's `url.scheme`, `server.address` and `server.port` want them.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * const parts: Origin.OriginParts = Origin.originParts("http://[::1]:8080")
 * // { scheme: "http", address: "::1", port: "8080" }
 * ```
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
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * Origin.originParts("https://api.example.com:443") // { scheme: "https", address: "api.example.com", port: "443" }
 * ```
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
 * Per-origin entries, created on first use. Entries that are indistinguishable from fresh ones
 * are dropped now and then (at most once per `sweepEveryMillis`, when a new origin arrives), so a
 * client that talks to many hosts does not keep state for every host it ever saw.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * const counters = new Origin.OriginTable(
 *   () => ({ count: 0 }),
 *   (entry) => entry.count === 0
 * )
 * counters.get("https://api.example.com:443", Date.now()).count++
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class OriginTable<E> {
  private readonly entries = new Map<string, E>()
  private lastSweep = Number.NEGATIVE_INFINITY

  constructor(
    private readonly create: (origin: string, nowMillis: number) => E,
    private readonly isIdle: (entry: E, nowMillis: number) => boolean,
    private readonly onEvict: (entry: E) => void = () => {},
    private readonly sweepEveryMillis = 60_000
  ) {}

  get(origin: string, nowMillis: number): E {
    const existing = this.entries.get(origin)
    if (existing !== undefined) return existing
    this.sweep(nowMillis)
    const created = this.create(origin, nowMillis)
    this.entries.set(origin, created)
    return created
  }

  peek(origin: string): E | undefined {
    return this.entries.get(origin)
  }

  get size(): number {
    return this.entries.size
  }

  private sweep(nowMillis: number): void {
    if (nowMillis - this.lastSweep < this.sweepEveryMillis) return
    this.lastSweep = nowMillis
    for (const [origin, entry] of this.entries) {
      if (this.isIdle(entry, nowMillis)) {
        this.entries.delete(origin)
        this.onEvict(entry)
      }
    }
  }
}

/**
 * The scheme and authority of a URL as written (`https://api.example.com:8443`), without
 * parsing it: a cheap key for what is worked out once per origin.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * Origin.authorityOf("https://api.example.com/items?page=2") // "https://api.example.com"
 * ```
 *
 * @since 0.1.0
 * @category keys
 */
export const authorityOf = (url: string): string => {
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
 * costs more than what it keys). Bounded: past `maxEntries` authorities it starts over.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * const labels = new Origin.ByAuthority((origin) => ({ origin }))
 * labels.get("https://api.example.com/items").origin // "https://api.example.com:443"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class ByAuthority<V> {
  private readonly entries = new Map<string, V>()

  constructor(
    private readonly make: (origin: string) => V,
    private readonly maxEntries = 1024
  ) {}

  get(url: string): V {
    const authority = authorityOf(url)
    let entry = this.entries.get(authority)
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.entries.clear()
      entry = this.make(originOf(authority))
      this.entries.set(authority, entry)
    }
    return entry
  }
}
