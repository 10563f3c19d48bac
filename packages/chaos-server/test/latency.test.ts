import { describe, expect, it, vi } from "vitest"
import { isSlowRequest, latencyDraw } from "../src/internal/latency.js"
import { type NamespaceStats, type Stats, startChaosServer } from "../src/startChaosServer.js"
import { statsOnce, withServer } from "./support/promises.js"

/** mulberry32 as it is usually written, stateful: the reference `latencyDraw` must agree with. */
const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface LatencyAnswer {
  readonly key: string
  readonly n: number
  readonly delayMillis: number
  readonly slow: boolean
}

const isLatencyAnswer = (value: unknown): value is LatencyAnswer =>
  typeof value === "object" &&
  value !== null &&
  "key" in value &&
  typeof value.key === "string" &&
  "n" in value &&
  typeof value.n === "number" &&
  "delayMillis" in value &&
  typeof value.delayMillis === "number" &&
  "slow" in value &&
  typeof value.slow === "boolean"

/** One request to the latency endpoint under `baseUrl` (a server's or a namespace's), its body checked. */
const askLatency = async (baseUrl: string, key: string, query: string) => {
  const response = await fetch(`${baseUrl}/api/chaos/latency/${key}?${query}`)
  const body: unknown = await response.json()
  if (!isLatencyAnswer(body)) throw new Error(`not a latency answer (${response.status}): ${JSON.stringify(body)}`)
  return { response, body }
}

/** The slow flags of `count` requests in a row. */
const slowFlags = async (baseUrl: string, key: string, query: string, count: number) => {
  const flags: Array<boolean> = []
  for (let index = 0; index < count; index++) flags.push((await askLatency(baseUrl, key, query)).body.slow)
  return flags
}

/** Starts a request that a client abandons after `afterMillis`; resolves with how the fetch ended. */
const abandon = async (url: string, readStats: () => Promise<Stats | NamespaceStats>): Promise<string> => {
  const before = (await readStats()).requests.total
  const controller = new AbortController()
  const answer = fetch(url, { signal: controller.signal }).then(
    async (response) => {
      await response.arrayBuffer()
      return `answered ${response.status}`
    },
    (error: unknown) => (error instanceof Error ? error.name : String(error))
  )
  // Leaves once the server holds the request, not after a fixed time: a busy machine may not have sent it yet.
  await statsOnce(readStats, (stats) => stats.requests.total > before, "the request arriving")
  controller.abort()
  return answer
}

describe("latencyDraw: mulberry32 by request number", () => {
  it("is the n-th number of mulberry32 seeded with the seed, computed without running through the others", () => {
    for (const seed of [0, 1, 42, 2_147_483_647]) {
      const generator = mulberry32(seed)
      for (let n = 1; n <= 100; n++) expect(latencyDraw(seed, n)).toBe(generator())
    }
  })

  it("over 2,000 draws, the slow share stays within a binomial bound of slowShare", () => {
    const draws = 2_000
    for (const slowShare of [0.05, 0.2, 0.5]) {
      // Mean and standard deviation of the slow count if each draw were an independent coin of bias slowShare.
      const expected = draws * slowShare
      const bound = 4.5 * Math.sqrt(draws * slowShare * (1 - slowShare))
      for (let seed = 1; seed <= 10; seed++) {
        let slow = 0
        let outOfRange = 0
        for (let n = 1; n <= draws; n++) {
          const draw = latencyDraw(seed, n)
          if (draw < 0 || draw >= 1) outOfRange++
          if (isSlowRequest(n, { seed, slowShare, slowEvery: undefined })) slow++
        }
        expect(outOfRange).toBe(0)
        expect(Math.abs(slow - expected), `seed ${seed}, slowShare ${slowShare}: ${slow} slow`).toBeLessThanOrEqual(
          bound
        )
      }
    }
  })

  it("a share of 0 is never slow, 1 always; slowEvery overrides the draw", () => {
    const requests = Array.from({ length: 500 }, (_, index) => index + 1)
    const slowOf = (slowShare: number, slowEvery?: ReadonlySet<number>) =>
      requests.filter((n) => isSlowRequest(n, { seed: 3, slowShare, slowEvery }))
    expect(slowOf(0)).toEqual([])
    expect(slowOf(1)).toEqual(requests)
    expect(slowOf(1, new Set([2, 7]))).toEqual([2, 7])
    expect(slowOf(0, new Set([1]))).toEqual([1])
  })
})

describe("GET /api/chaos/latency/:key", () => {
  it("one seed gives the same slow requests on two fresh servers, whatever other keys or concurrency do", async () => {
    const query = "seed=7&slowShare=0.3&fast=0&slow=0"
    const count = 200
    const first = await withServer((server) => slowFlags(server.url, "bench", query, count))
    // The second server answers the same key in batches of concurrent requests, with another key in between:
    // request n's draw depends on n alone.
    const second = await withServer(async (server) => {
      const byRequestNumber = new Map<number, boolean>()
      for (let start = 0; start < count; start += 20) {
        const batch = Array.from({ length: 20 }, () => askLatency(server.url, "bench", query))
        await askLatency(server.url, "other", "seed=8&slowShare=0.5&fast=0&slow=0")
        for (const { body } of await Promise.all(batch)) byRequestNumber.set(body.n, body.slow)
      }
      return Array.from({ length: count }, (_, index) => byRequestNumber.get(index + 1))
    })
    expect(second).toEqual(first)
    // The flags are the generator's, and not all alike.
    expect(first).toEqual(Array.from({ length: count }, (_, index) => latencyDraw(7, index + 1) < 0.3))
    expect(first.filter(Boolean).length).toBeGreaterThan(20)
    expect(first.filter((slow) => !slow).length).toBeGreaterThan(20)
  })

  it("a different seed gives a different sequence", async () => {
    await withServer(async (server) => {
      const seven = await slowFlags(server.url, "seven", "seed=7&slowShare=0.3&fast=0&slow=0", 200)
      const eight = await slowFlags(server.url, "eight", "seed=8&slowShare=0.3&fast=0&slow=0", 200)
      expect(eight).not.toEqual(seven)
      expect(eight).toEqual(Array.from({ length: 200 }, (_, index) => latencyDraw(8, index + 1) < 0.3))
    })
  })

  it("slowEvery=1 makes exactly the first request slow, whatever slowShare says, and the answer says so", async () => {
    await withServer(async (server) => {
      const answers = []
      for (let index = 0; index < 3; index++) {
        answers.push(await askLatency(server.url, "hedged", "fast=0&slow=40&slowShare=1&slowEvery=1"))
      }
      expect(answers.map(({ body }) => body)).toEqual([
        { key: "hedged", n: 1, delayMillis: 40, slow: true },
        { key: "hedged", n: 2, delayMillis: 0, slow: false },
        { key: "hedged", n: 3, delayMillis: 0, slow: false }
      ])
      expect(answers.map(({ response }) => response.status)).toEqual([200, 200, 200])
      expect(answers.map(({ response }) => response.headers.get("x-attempt"))).toEqual(["1", "2", "3"])
      expect(answers.map(({ response }) => response.headers.get("x-chaos-delay"))).toEqual(["40", "0", "0"])
      expect(answers[0]?.response.headers.get("content-type")).toBe("application/json")

      const listed = await slowFlags(server.url, "listed", "fast=0&slow=1&slowShare=0&slowEvery=1,3", 4)
      expect(listed).toEqual([true, false, true, false])
    })
  })

  it("waits the delay it reports, fast or slow", async () => {
    await withServer(async (server) => {
      // A lower bound only: a busy machine can make a request slower, never faster.
      const fastStarted = performance.now()
      const fast = await askLatency(server.url, "fast", "fast=200&slowShare=0")
      expect(fast.body).toMatchObject({ slow: false, delayMillis: 200 })
      expect(performance.now() - fastStarted).toBeGreaterThanOrEqual(190)

      const slowStarted = performance.now()
      const slow = await askLatency(server.url, "slow", "fast=0&slow=200&slowEvery=1")
      expect(slow.body).toMatchObject({ slow: true, delayMillis: 200 })
      expect(performance.now() - slowStarted).toBeGreaterThanOrEqual(190)
    })
  })

  it("a client aborting during the wait counts as abandoned, its timer is cleared, inFlight returns to 0", async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout")
    const clearTimeoutSpy = vi.spyOn(globalThis, "clearTimeout")
    try {
      await withServer(async (server) => {
        const outcome = await abandon(`${server.url}/api/chaos/latency/left?slow=5000&slowEvery=1`, server.stats)
        expect(outcome).toBe("AbortError")
        const stats = await statsOnce(
          server.stats,
          (stats) => stats.requests.abandoned === 1 && stats.requests.inFlight === 0,
          "the aborted request abandoned"
        )
        expect(stats.requests).toMatchObject({ total: 1, inFlight: 0, abandoned: 1 })
        // The server's 5-second wait was a timer of its own, and it was cleared, not left to fire on a dead socket.
        const waits = setTimeoutSpy.mock.calls.flatMap((call, index) =>
          call[1] === 5000 ? [setTimeoutSpy.mock.results[index]?.value] : []
        )
        expect(waits).toHaveLength(1)
        expect(clearTimeoutSpy).toHaveBeenCalledWith(waits[0])

        // The request was counted: the next one for the key is the second.
        const next = await askLatency(server.url, "left", "fast=0&slow=5000&slowEvery=1")
        expect(next.body).toEqual({ key: "left", n: 2, delayMillis: 0, slow: false })

        await server.reset()
        expect((await server.stats()).requests.abandoned).toBe(0)
        expect((await askLatency(server.url, "left", "fast=0&slowShare=0")).body.n).toBe(1)
      })
    } finally {
      setTimeoutSpy.mockRestore()
      clearTimeoutSpy.mockRestore()
    }
  })

  it("refuses a bad parameter with 400 naming it, and counts no request", async () => {
    const badQueries: ReadonlyArray<readonly [string, string]> = [
      ["fast=-1", "fast"],
      ["fast=60001", "fast"],
      ["fast=1.5", "fast"],
      ["fast=", "fast"],
      ["slow=abc", "slow"],
      ["slow=60001", "slow"],
      ["slowShare=1.5", "slowShare"],
      ["slowShare=-0.1", "slowShare"],
      ["slowShare=.5", "slowShare"],
      ["slowShare=5e-2", "slowShare"],
      ["slowShare=half", "slowShare"],
      ["seed=-1", "seed"],
      ["seed=2147483648", "seed"],
      ["seed=1.5", "seed"],
      ["slowEvery=", "slowEvery"],
      ["slowEvery=0", "slowEvery"],
      ["slowEvery=1,,3", "slowEvery"],
      ["slowEvery=1;3", "slowEvery"],
      ["slowEvery=first", "slowEvery"]
    ]
    await withServer(async (server) => {
      for (const [query, name] of badQueries) {
        const response = await fetch(`${server.url}/api/chaos/latency/bad?${query}`)
        expect(response.status, query).toBe(400)
        expect(response.headers.get("x-attempt"), query).toBeNull()
        const body: unknown = await response.json()
        expect(body, query).toEqual({ error: expect.stringContaining(`${name} must be`) })
      }
      const longKey = await fetch(`${server.url}/api/chaos/latency/${"k".repeat(129)}`)
      expect(longKey.status).toBe(400)
      expect(await longKey.json()).toEqual({ error: expect.stringContaining("latency key") })
      // The largest seed is accepted, and the refused requests drew nothing.
      const valid = await askLatency(server.url, "bad", "seed=2147483647&fast=0&slow=0")
      expect(valid.body.n).toBe(1)
    })
  })

  it("counts each namespace's keys and abandoned requests apart, and apart from retry keys", async () => {
    await withServer(async (server) => {
      const a = server.namespace()
      const b = server.namespace()
      const query = "fast=0&slowShare=0"
      const attempt = async (baseUrl: string) => (await askLatency(baseUrl, "shared", query)).body.n
      expect([await attempt(a.url), await attempt(a.url), await attempt(b.url), await attempt(server.url)]).toEqual([
        1, 2, 1, 1
      ])
      // A retry key of the same name is another count.
      await fetch(`${server.url}/api/chaos/retry/shared`).then((response) => response.arrayBuffer())
      expect(await attempt(server.url)).toBe(2)
      expect((await server.stats()).requests.byRetryKey).toEqual({ shared: 1 })

      expect(await abandon(`${a.url}/api/chaos/latency/shared?slow=5000&slowEvery=3`, a.stats)).toBe("AbortError")
      await statsOnce(a.stats, (stats) => stats.requests.abandoned === 1, "the namespace's abandoned request")
      expect((await b.stats()).requests.abandoned).toBe(0)
      expect((await server.stats()).requests.abandoned).toBe(1)

      // A namespace's reset starts its keys and its abandoned count over, and leaves the others'.
      await a.reset()
      expect((await a.stats()).requests.abandoned).toBe(0)
      expect((await server.stats()).requests.abandoned).toBe(1)
      expect([await attempt(a.url), await attempt(b.url), await attempt(server.url)]).toEqual([1, 2, 3])
    })
  })

  it("answers HEAD with the headers and no body, counting it; other methods get 405", async () => {
    await withServer(async (server) => {
      const head = await fetch(`${server.url}/api/chaos/latency/probe?fast=0&slowShare=0`, { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.headers.get("x-attempt")).toBe("1")
      expect(head.headers.get("x-chaos-delay")).toBe("0")
      expect(head.headers.get("content-type")).toBe("application/json")
      expect(await head.text()).toBe("")
      expect((await askLatency(server.url, "probe", "fast=0&slowShare=0")).body.n).toBe(2)

      const post = await fetch(`${server.url}/api/chaos/latency/probe`, { method: "POST" })
      expect(post.status).toBe(405)
      expect(post.headers.get("allow")).toBe("GET, HEAD")
      await post.arrayBuffer()
    })
  })
})

describe("requests.abandoned on the other endpoints", () => {
  it("count a client leaving /api/chaos/hang or ?delay, not an answered request nor one the server cuts", async () => {
    await withServer(async (server) => {
      await fetch(`${server.url}/api/status/200`).then((response) => response.arrayBuffer())
      // The server cuts these connections itself: the client did not leave.
      await expect(fetch(`${server.url}/api/chaos/reset`)).rejects.toThrow()
      await expect(fetch(`${server.url}/api/chaos/truncate`).then((response) => response.text())).rejects.toThrow()
      const cut = await statsOnce(server.stats, (stats) => stats.requests.inFlight === 0, "the cut requests ending")
      expect(cut.requests).toMatchObject({ total: 3, abandoned: 0 })

      expect(await abandon(`${server.url}/api/chaos/hang`, server.stats)).toBe("AbortError")
      expect(await abandon(`${server.url}/api/Products/1?delay=30`, server.stats)).toBe("AbortError")
      const left = await statsOnce(
        server.stats,
        (stats) => stats.requests.abandoned === 2 && stats.requests.inFlight === 0,
        "both requests abandoned"
      )
      expect(left.requests).toMatchObject({ total: 5, abandoned: 2 })
    })
  })

  it("does not count the requests a stopping server cuts off", async () => {
    const server = await startChaosServer()
    const patient = fetch(`${server.url}/api/chaos/hang`).catch((error: unknown) => error)
    await statsOnce(server.stats, (stats) => stats.requests.inFlight === 1, "the hanging request")
    await server.close()
    expect(await patient).toBeInstanceOf(Error)
    const stats = await statsOnce(server.stats, (stats) => stats.requests.inFlight === 0, "the cut request ending")
    expect(stats.requests.abandoned).toBe(0)
  })
})
