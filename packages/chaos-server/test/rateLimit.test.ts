import { setTimeout as sleep } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import { makeRateLimitState } from "../src/internal/rateLimit.js"
import { withServer } from "./support/promises.js"

const rateLimitHeaders = [
  "ratelimit",
  "ratelimit-policy",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after"
]

/** One request, its body read; the status, the rate-limit headers it carried and the body. */
const ask = async (url: string) => {
  const response = await fetch(url)
  const body: unknown = await response.json()
  const headers: Record<string, string> = {}
  for (const name of rateLimitHeaders) {
    const value = response.headers.get(name)
    if (value !== null) headers[name] = value
  }
  return { status: response.status, headers, body }
}

/** `count` requests one after another. */
const askMany = async (url: string, count: number) => {
  const answers: Array<Awaited<ReturnType<typeof ask>>> = []
  for (let i = 0; i < count; i++) answers.push(await ask(url))
  return answers
}

// A window of a minute: no test here lasts long enough to see one end, however busy the machine.
const minute = "limit=3&window=60"

describe("/api/chaos/rate-limit/:key", () => {
  it("lets `limit` requests through per window, announcing what is left, then answers 429 with Retry-After", () =>
    withServer(async (server) => {
      const answers = await askMany(`${server.url}/api/chaos/rate-limit/k?${minute}&headers=ietf`, 5)
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429])
      expect(answers.map((answer) => answer.headers.ratelimit?.replace(/;t=\d+$/, ""))).toEqual([
        '"default";r=2',
        '"default";r=1',
        '"default";r=0',
        '"default";r=0',
        '"default";r=0'
      ])
      for (const answer of answers) {
        expect(answer.headers["ratelimit-policy"]).toBe('"default";q=3;w=60')
        const reset = Number(/;t=(\d+)$/.exec(answer.headers.ratelimit ?? "")?.[1])
        expect(reset).toBeGreaterThanOrEqual(1)
        expect(reset).toBeLessThanOrEqual(60)
      }
      const [, , , refused] = answers
      expect(refused?.headers["retry-after"]).toBe(/;t=(\d+)$/.exec(refused?.headers.ratelimit ?? "")?.[1])
      expect(refused?.body).toMatchObject({ status: 429, error: "Too Many Requests" })
      expect(answers[0]?.body).toMatchObject({ key: "k", limit: 3, remaining: 2 })
      expect((await server.stats()).rateLimit).toEqual({ allowed: 3, limited: 2 })
    }))

  it("announces the form asked for: ietf, x, both or none", () =>
    withServer(async (server) => {
      const namesOf = async (headers: string) =>
        Object.keys((await ask(`${server.url}/api/chaos/rate-limit/${headers}?${minute}&headers=${headers}`)).headers)
      expect(await namesOf("ietf")).toEqual(["ratelimit", "ratelimit-policy"])
      expect(await namesOf("x")).toEqual(["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
      expect(await namesOf("both")).toEqual(rateLimitHeaders.slice(0, 5))
      expect(await namesOf("none")).toEqual([])
      const both = await ask(`${server.url}/api/chaos/rate-limit/default?${minute}`)
      expect(Object.keys(both.headers)).toEqual(rateLimitHeaders.slice(0, 5))
      const refused = (await askMany(`${server.url}/api/chaos/rate-limit/quiet?limit=1&window=60&headers=none`, 2))[1]
      expect(Object.keys(refused?.headers ?? {})).toEqual(["retry-after"])
    }))

  it("sends X-RateLimit-Reset as a Unix time by default, and as seconds with xReset=seconds", () =>
    withServer(async (server) => {
      const before = Math.floor(Date.now() / 1000)
      const unix = await ask(`${server.url}/api/chaos/rate-limit/unix?${minute}&headers=x`)
      const after = Math.ceil(Date.now() / 1000)
      expect(unix.headers["x-ratelimit-limit"]).toBe("3")
      expect(unix.headers["x-ratelimit-remaining"]).toBe("2")
      const at = Number(unix.headers["x-ratelimit-reset"])
      expect(at).toBeGreaterThanOrEqual(before + 1)
      expect(at).toBeLessThanOrEqual(after + 61)
      const seconds = await ask(`${server.url}/api/chaos/rate-limit/seconds?${minute}&headers=x&xReset=seconds`)
      const delta = Number(seconds.headers["x-ratelimit-reset"])
      expect(delta).toBeGreaterThanOrEqual(1)
      expect(delta).toBeLessThanOrEqual(60)
    }))

  it("counts each key apart, and each namespace apart", () =>
    withServer(async (server) => {
      const statuses = async (base: string, key: string, count: number) =>
        (await askMany(`${base}/api/chaos/rate-limit/${key}?limit=1&window=60`, count)).map((answer) => answer.status)
      expect(await statuses(server.url, "a", 2)).toEqual([200, 429])
      expect(await statuses(server.url, "b", 2)).toEqual([200, 429])
      const namespace = server.namespace()
      expect(await statuses(namespace.url, "a", 2)).toEqual([200, 429])
      await namespace.reset()
      expect(await statuses(namespace.url, "a", 1)).toEqual([200])
      expect(await statuses(server.url, "a", 1)).toEqual([429])
      await server.reset()
      expect(await statuses(server.url, "a", 1)).toEqual([200])
      expect((await server.stats()).rateLimit).toEqual({ allowed: 1, limited: 0 })
    }))

  it("lets the key through again once its window has ended", () =>
    withServer(async (server) => {
      const url = `${server.url}/api/chaos/rate-limit/k?limit=1&window=1`
      expect((await askMany(url, 2)).map((answer) => answer.status)).toEqual([200, 429])
      // At least the window: a busy machine only makes the wait longer, never the window shorter.
      await sleep(1_050)
      expect((await ask(url)).status).toBe(200)
    }))

  it("counts in fixed windows, or with algorithm=sliding in the window before each request", () => {
    // 2 per 1000 ms; requests at 0, 900, 1000, 1100 and 1950 ms.
    const times = [0, 900, 1000, 1100, 1950]
    const fixed = makeRateLimitState(10)
    expect(times.map((at) => fixed.admit("k", 2, 1000, at).allowed)).toEqual([true, true, true, true, false])
    const sliding = makeRateLimitState(10)
    // At 1000, the one at 0 has left the window (0, 1000]; at 1100 the ones at 900 and 1000 are in it.
    const answers = times.map((at) => sliding.admit("k", 2, 1000, at, "sliding"))
    expect(answers.map((answer) => answer.allowed)).toEqual([true, true, true, false, true])
    expect(answers[3]).toEqual({ allowed: false, remaining: 0, resetMillis: 800, limited: 1 })
    expect(sliding.snapshot()).toEqual({ allowed: 4, limited: 1 })
  })

  it("serves the sliding log by algorithm=sliding, apart from the key's fixed windows", () =>
    withServer(async (server) => {
      const url = `${server.url}/api/chaos/rate-limit/k?${minute}`
      expect((await askMany(`${url}&algorithm=sliding`, 4)).map((answer) => answer.status)).toEqual([
        200, 200, 200, 429
      ])
      expect((await askMany(url, 1)).map((answer) => answer.status)).toEqual([200])
      expect((await ask(`${url}&algorithm=window`)).status).toBe(400)
    }))

  it("speaks each API's dialect with headers=openai, anthropic, discord or github", () =>
    withServer(async (server) => {
      const headersOf = async (form: string) => {
        const response = await fetch(`${server.url}/api/chaos/rate-limit/${form}?${minute}&headers=${form}`)
        await response.arrayBuffer()
        return Object.fromEntries([...response.headers].filter(([name]) => /ratelimit/.test(name)))
      }
      const now = Date.now()
      const openai = await headersOf("openai")
      expect(openai).toMatchObject({
        "x-ratelimit-limit-requests": "3",
        "x-ratelimit-remaining-requests": "2",
        "x-ratelimit-remaining-tokens": "149000",
        "x-ratelimit-reset-tokens": "6m0s"
      })
      // A window of a minute, just begun: 59.9xx s, or 1m0s.
      expect(openai["x-ratelimit-reset-requests"]).toMatch(/^(5\d(\.\d+)?s|1m0s)$/)
      const anthropic = await headersOf("anthropic")
      expect(anthropic).toMatchObject({
        "anthropic-ratelimit-requests-limit": "3",
        "anthropic-ratelimit-requests-remaining": "2"
      })
      const resetAt = Date.parse(anthropic["anthropic-ratelimit-requests-reset"] ?? "")
      expect(anthropic["anthropic-ratelimit-requests-reset"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      expect(resetAt).toBeGreaterThanOrEqual(now + 59_000)
      const discord = await headersOf("discord")
      expect(discord).toMatchObject({
        "x-ratelimit-limit": "3",
        "x-ratelimit-remaining": "2",
        "x-ratelimit-bucket": "chaos-bucket"
      })
      expect(discord["x-ratelimit-reset-after"]).toMatch(/^(59\.\d{3}|60\.000)$/)
      expect(Number(discord["x-ratelimit-reset"])).toBeGreaterThanOrEqual((now + 59_000) / 1000)
      const github = await headersOf("github")
      expect(github).toMatchObject({
        "x-ratelimit-limit": "3",
        "x-ratelimit-remaining": "2",
        "x-ratelimit-used": "1",
        "x-ratelimit-resource": "core"
      })
      expect(Number(github["x-ratelimit-reset"])).toBeGreaterThanOrEqual(Math.floor((now + 59_000) / 1000))
    }))

  it("rounds a 429's Retry-After up, down (Spotify's), or leaves it out, by retryAfter", () =>
    withServer(async (server) => {
      const retryAfters = async (key: string, retryAfter: string, count: number) =>
        (await askMany(`${server.url}/api/chaos/rate-limit/${key}?${minute}&retryAfter=${retryAfter}`, count))
          .filter((answer) => answer.status === 429)
          .map((answer) => answer.headers["retry-after"])
      expect(await retryAfters("ceil", "ceil", 4)).toEqual([expect.stringMatching(/^(59|60)$/)])
      expect(await retryAfters("floor", "floor", 4)).toEqual([expect.stringMatching(/^(58|59)$/)])
      expect(await retryAfters("none", "none", 4)).toEqual([undefined])
      // The server's 429s so far: 3, then the 4th and 5th of floor-or-none.
      expect(await retryAfters("alternate", "floor-or-none", 5)).toEqual([
        undefined,
        expect.stringMatching(/^(58|59)$/)
      ])
      // A rolling window's last second: 0.
      const rolling = `${server.url}/api/chaos/rate-limit/rolling?limit=1&window=1&algorithm=sliding&retryAfter=floor`
      expect((await askMany(rolling, 2)).map((answer) => answer.headers["retry-after"])).toEqual([undefined, "0"])
    }))

  it("refuses malformed parameters with a 400 naming them", () =>
    withServer(async (server) => {
      for (const [query, named] of [
        ["limit=0", "limit"],
        ["window=0", "window"],
        ["window=86401", "window"],
        ["headers=all", "headers"],
        ["xReset=ms", "xReset"],
        ["retryAfter=round", "retryAfter"]
      ] as const) {
        const answer = await ask(`${server.url}/api/chaos/rate-limit/k?${query}`)
        expect(answer.status).toBe(400)
        expect(answer.body).toMatchObject({ error: expect.stringContaining(named) })
      }
      expect((await server.stats()).rateLimit).toEqual({ allowed: 0, limited: 0 })
    }))
})
