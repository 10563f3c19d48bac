import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ByAuthority, idleTimeToLiveMillis, maxOriginsDefault, OriginTable } from "../src/Origin.js"

interface Counter {
  readonly origin: string
  count: number
  pinned: boolean
}

/** A table of counters, idle when zero or unused for an hour; what it evicted, in order. */
const counters = (maxOrigins?: number) => {
  const evicted: Array<string> = []
  const table = new OriginTable<Counter>(
    (origin) => ({ origin, count: 0, pinned: false }),
    (entry, now, lastUsed) => !entry.pinned && (entry.count === 0 || now - lastUsed >= idleTimeToLiveMillis),
    { onEvict: (entry) => evicted.push(entry.origin), isPinned: (entry) => entry.pinned, maxOrigins }
  )
  return { table, evicted }
}

describe("OriginTable: idle entries", () => {
  it("forgets an entry unused for the idle time, counted from its last use", () => {
    const { table, evicted } = counters()
    table.get("a", 0).count++
    table.get("a", 30 * 60_000) // used again half an hour later
    table.get("b", idleTimeToLiveMillis).count++ // a new origin sweeps: "a" is not idle yet
    expect(evicted).toEqual([])
    table.get("c", 30 * 60_000 + idleTimeToLiveMillis)
    expect(evicted).toEqual(["a"])
    expect(table.peek("a")).toBeUndefined()
  })

  it("keeps an entry that holds something while it is in use", () => {
    const { table, evicted } = counters()
    table.get("a", 0).count++
    for (let now = 60_000; now <= 3 * idleTimeToLiveMillis; now += 60_000) {
      table.get("a", now)
      table.get(`new-${now}`, now)
    }
    expect(evicted).not.toContain("a")
    expect(table.peek("a")?.count).toBe(1)
  })

  it("sweeps at most once per sweepEveryMillis, when a new origin arrives", () => {
    const { table, evicted } = counters()
    table.get("a", 0)
    table.get("b", 30_000) // "a" holds nothing, but the last sweep was less than a minute ago
    expect(evicted).toEqual([])
    table.get("c", 60_000)
    expect(evicted).toEqual(["a", "b"])
  })

  it("dropIdle sweeps now", () => {
    const { table, evicted } = counters()
    table.get("a", 0).count++
    table.get("b", 0)
    table.dropIdle(1)
    expect(evicted).toEqual(["b"])
    table.dropIdle(idleTimeToLiveMillis)
    expect(evicted).toEqual(["b", "a"])
    expect(table.size).toBe(0)
  })
})

describe("OriginTable: at most maxOrigins origins", () => {
  it("holds 10,000 origins by default", () => {
    expect(maxOriginsDefault).toBe(10_000)
    const { table, evicted } = counters()
    for (let i = 0; i < maxOriginsDefault + 500; i++) table.get(`o${i}`, 0).count++
    expect(table.size).toBe(maxOriginsDefault)
    expect(evicted).toHaveLength(500)
  })

  it("evicts the least recently used origin, to the second", () => {
    const { table, evicted } = counters(3)
    table.get("a", 0).count++
    table.get("b", 0).count++
    table.get("c", 0).count++
    table.get("a", 1000) // "a" is now the most recently used
    table.get("d", 1500).count++
    expect(evicted).toEqual(["b"])
    table.get("a", 1900) // less than a second since "a" last moved: it keeps its place
    table.get("e", 3000).count++
    table.get("f", 3000).count++
    // "c" (used at 0), then "a" (1000 to the second), though "d" (1500) was used before "a" last was.
    expect(evicted).toEqual(["b", "c", "a"])
    expect(["d", "e", "f"].map((origin) => table.peek(origin)?.origin)).toEqual(["d", "e", "f"])
  })

  it("never evicts a pinned entry to make room", () => {
    const { table, evicted } = counters(2)
    const held = table.get("held", 0)
    held.pinned = true
    for (let i = 0; i < 10; i++) table.get(`o${i}`, i * 1000).count++
    expect(table.peek("held")).toBe(held)
    expect(evicted).not.toContain("held")
    expect(table.size).toBe(2)
  })

  it("exceeds the cap rather than evict pinned entries only", () => {
    const { table } = counters(2)
    table.get("p1", 0).pinned = true
    table.get("p2", 0).pinned = true
    table.get("c", 0).count++
    expect(table.size).toBe(3)
    expect(table.peek("p1")).toBeDefined()
    expect(table.peek("p2")).toBeDefined()
  })

  it("property: the size never exceeds the cap, and the origin just looked up is always there", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5000 })), { maxLength: 200 }),
        (maxOrigins, lookups) => {
          const { table } = counters(maxOrigins)
          let now = 0
          for (const [origin, step] of lookups) {
            now += step
            const entry = table.get(`o${origin}`, now)
            entry.count++
            expect(table.size).toBeLessThanOrEqual(maxOrigins)
            expect(table.peek(`o${origin}`)).toBe(entry)
          }
        }
      )
    )
  })
})

describe("ByAuthority", () => {
  it("keys by the URL's authority, and makes each origin's value once", () => {
    let made = 0
    const byAuthority = new ByAuthority((origin) => ({ origin, id: made++ }))
    const first = byAuthority.get("https://api.example.com/a?x=1")
    expect(byAuthority.get("https://api.example.com/b")).toBe(first)
    expect(first.origin).toBe("https://api.example.com:443")
    expect(made).toBe(1)
  })

  it("holds at most maxEntries authorities, evicting the one that came first", () => {
    const byAuthority = new ByAuthority((origin) => ({ origin }), 3)
    const a = byAuthority.get("http://a/")
    byAuthority.get("http://b/")
    byAuthority.get("http://c/")
    byAuthority.get("http://d/")
    expect(byAuthority.size).toBe(3)
    expect(byAuthority.get("http://b/")).toBe(byAuthority.get("http://b/"))
    expect(byAuthority.get("http://a/")).not.toBe(a) // made again
    expect(byAuthority.size).toBe(3)
  })

  it("is bounded to 1024 authorities by default", () => {
    const byAuthority = new ByAuthority((origin) => origin)
    for (let i = 0; i < 5000; i++) byAuthority.get(`http://h${i}.test/`)
    expect(byAuthority.size).toBe(1024)
  })
})
