/**
 * Deterministic sample resources, so that tests can assert exact payloads without fixtures.
 *
 * @internal
 */

/** @internal */
export const maxResourceId = 1_000_000

/** @internal */
export interface Product {
  readonly id: number
  readonly name: string
  readonly price: number
}

/** @internal */
export const product = (id: number): Product => ({
  id,
  name: `Product ${id}`,
  // Whole cents divided once, so prices print with two decimals at most (1.00 to 100.99), varied but reproducible.
  price: (100 + ((id * 731) % 10_000)) / 100
})

/** @internal */
export interface Todo {
  readonly id: number
  readonly title: string
  readonly completed: boolean
}

/** @internal */
export const todo = (id: number): Todo => ({ id, title: `Todo ${id}`, completed: id % 2 === 0 })

interface Track {
  readonly id: string
  readonly name: string
  readonly artists: ReadonlyArray<{ readonly name: string }>
  readonly album: { readonly name: string }
  readonly duration_ms: number
  readonly popularity: number
}

/** @internal */
export interface TrackSearchResult {
  readonly tracks: {
    readonly items: ReadonlyArray<Track>
    readonly total: number
  }
}

/** @internal */
export const maxQueryLength = 200

const artists = ["The Retries", "Exponential Backoff", "Jitter Club", "Circuit Breakers", "Idempotent Keys"]
const albums = ["Transient Failures", "Retry-After Dark", "Half-Open", "Connection Reset"]
const versions = ["", " (Live)", " (Remastered)"]
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** FNV-1a: a tiny stable hash, so a query always yields the same tracks. */
const hash = (text: string): number => {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index)
    value = Math.imul(value, 0x01000193) >>> 0
  }
  return value
}

const pick = <A>(values: ReadonlyArray<A>, seed: number): A => values[seed % values.length]!

/** A 22-character base62 id, the shape of Spotify ids. */
const trackId = (seed: string): string => {
  let id = ""
  let value = hash(seed)
  for (let index = 0; index < 22; index++) {
    id += base62[value % 62]
    value = Math.imul(value ^ (value >>> 15), 0x2c1b3c6d) >>> 0
  }
  return id
}

/**
 * A Spotify-like track search: three tracks whose names contain the query, always the same for the same query.
 *
 * @internal
 */
export const searchTracks = (query: string): TrackSearchResult => {
  const items = versions.map((version, index): Track => {
    const seed = hash(`${query}#${index}`)
    return {
      id: trackId(`${query}#${index}`),
      name: `${query}${version}`,
      artists: [{ name: pick(artists, seed) }],
      album: { name: pick(albums, seed >>> 8) },
      duration_ms: 150_000 + (seed % 120_000),
      popularity: seed % 101
    }
  })
  return { tracks: { items, total: items.length } }
}
