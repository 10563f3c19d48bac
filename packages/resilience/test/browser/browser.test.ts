// @generated from templates/test/browser/browser.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Effect 3 in headless Chromium (issue #19): the library over the platform's `FetchHttpClient`
 * in a page, calling chaos servers on other ports (cross-origin), as a browser program would.
 * Four servers: CORS with the fault headers exposed, CORS with them hidden, CORS allowing only
 * `content-type` and `idempotency-key` (the tracing-header trap), and no CORS at all. Each
 * test checks what the page saw against what the server counted.
 */
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import { chromium, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BrowserPage, openBrowserPage } from "../support/browserPage.js"
import { eventuallyTrue } from "../support/eventually.js"
import type { BrowserScenarios } from "./scenarios.js"

let page: BrowserPage<BrowserScenarios>
let exposed: StartedChaosServer
let hidden: StartedChaosServer
let strict: StartedChaosServer
let noCors: StartedChaosServer

beforeAll(async () => {
  ;[exposed, hidden, strict, noCors] = await Promise.all([
    startChaosServer({ cors: true }),
    startChaosServer({ cors: { exposeHeaders: false } }),
    startChaosServer({ cors: { allowHeaders: ["content-type", "idempotency-key"] } }),
    startChaosServer()
  ])
  page = await openBrowserPage(fileURLToPath(new URL("./scenarios.ts", import.meta.url)))
})

afterAll(async () => {
  await page?.close()
  await Promise.all([exposed, hidden, strict, noCors].map((server) => server?.close()))
})

let keys = 0
const freshKey = (name: string) => `${name}-${process.pid}-${++keys}`
const attemptsOf = async (server: StartedChaosServer, key: string) =>
  (await server.stats()).requests.byRetryKey[key] ?? 0
const hintsIn = (logs: ReadonlyArray<string>, text: string) => logs.filter((line) => line.includes(text))

describe.skipIf(skipWithout(chromium))("Effect 3 in headless Chromium, cross-origin", () => {
  it("fetch alone: Retry-After is readable only when exposed, and a CORS rejection reads as a dead server", async () => {
    const url = (server: StartedChaosServer) => `${server.url}/api/status/429?retryAfter=1`
    expect(await page.run("plainFetch", { url: url(exposed) })).toEqual({
      status: 429,
      error: undefined,
      retryAfter: "1"
    })
    expect(await page.run("plainFetch", { url: url(hidden) })).toEqual({
      status: 429,
      error: undefined,
      retryAfter: null
    })
    const rejected = await page.run("plainFetch", { url: `${noCors.url}/api/status/200` })
    const before = (await noCors.stats()).requests.total
    const closed = await startChaosServer()
    const closedUrl = closed.url
    await closed.close()
    const refused = await page.run("plainFetch", { url: `${closedUrl}/api/status/200` })
    expect(rejected.status).toBeUndefined()
    expect(rejected.error).toMatch(/^TypeError: /)
    expect(refused.error).toBe(rejected.error)
    // The server answered the request that CORS hid from the page.
    expect(before).toBeGreaterThanOrEqual(1)
  })

  it("a 429 whose Retry-After is exposed: waited for as the server asked, then retried", async () => {
    const key = freshKey("exposed")
    const result = await page.run("call", {
      url: `${exposed.url}/api/chaos/retry/${key}?succeedAfter=1&failStatus=429`,
      policy: { maxAttempts: 3, backoffMillis: 50, maxDelayMillis: 5_000 }
    })
    expect(result.status).toBe(200)
    expect(result.decisions).toEqual([
      { tag: "Retry", attempt: 1, delayMillis: 1_000, source: "retry-after", capped: false }
    ])
    expect(result.elapsedMillis).toBeGreaterThanOrEqual(950)
    expect(await attemptsOf(exposed, key)).toBe(2)
    expect(hintsIn(result.logs, "without a readable Retry-After")).toEqual([])
  })

  it("a 429 whose Retry-After is hidden: backoff, as without one, and a debug hint once per origin", async () => {
    const first = await page.run("call", {
      url: `${hidden.url}/api/chaos/retry/${freshKey("hidden")}?succeedAfter=1&failStatus=429`,
      policy: { maxAttempts: 3, backoffMillis: 50, maxDelayMillis: 5_000 }
    })
    const second = await page.run("call", {
      url: `${hidden.url}/api/chaos/retry/${freshKey("hidden")}?succeedAfter=1&failStatus=503`,
      policy: { maxAttempts: 3, backoffMillis: 50, maxDelayMillis: 5_000 }
    })
    for (const result of [first, second]) {
      expect(result.status).toBe(200)
      expect(result.decisions).toEqual([
        { tag: "Retry", attempt: 1, delayMillis: 50, source: "backoff", capped: false }
      ])
    }
    const hints = hintsIn([...first.logs, ...second.logs], "without a readable Retry-After")
    expect(hints).toHaveLength(1)
    expect(hints[0]).toContain(`429 from ${hidden.url} without a readable Retry-After`)
    expect(hints[0]).toContain('"Access-Control-Expose-Headers: Retry-After"')
  })

  it("a POST is not retried without an Idempotency-Key, and is with one", async () => {
    const unkeyed = freshKey("unkeyed")
    const refused = await page.run("call", {
      url: `${exposed.url}/api/chaos/retry/${unkeyed}?succeedAfter=2&retryAfter=none`,
      method: "POST",
      policy: { maxAttempts: 3, backoffMillis: 50 }
    })
    expect(refused.failure).toMatchObject({
      tag: "TransientStatus",
      status: 503,
      attempt: 1,
      giveUpReason: "not-idempotent"
    })
    expect(await attemptsOf(exposed, unkeyed)).toBe(1)
    const keyed = freshKey("keyed")
    const retried = await page.run("call", {
      url: `${exposed.url}/api/chaos/retry/${keyed}?succeedAfter=2&retryAfter=none`,
      method: "POST",
      idempotencyKey: `${keyed}-order`,
      policy: { maxAttempts: 3, backoffMillis: 50 }
    })
    expect(retried.status).toBe(200)
    expect(retried.decisions.map((decision) => decision.tag)).toEqual(["Retry", "Retry"])
    expect(await attemptsOf(exposed, keyed)).toBe(3)
  })

  it("a CORS rejection is a transport failure: a GET is retried though the server answered each time", async () => {
    const key = freshKey("rejected")
    const result = await page.run("call", {
      url: `${noCors.url}/api/chaos/retry/${key}?succeedAfter=0`,
      policy: { maxAttempts: 3, backoffMillis: 50 }
    })
    expect(result.failure).toMatchObject({ tag: "ConnectionError", reason: "Transport", attempt: 3 })
    expect(result.failure?.message).toBe(
      `GET ${noCors.url}/api/chaos/retry/${key}?succeedAfter=0: transport failure on attempt 3; gave up after 3 attempts`
    )
    // Three 200s the page never saw.
    expect(await attemptsOf(noCors, key)).toBe(3)
    const hints = hintsIn(result.logs, "failed with a TypeError")
    expect(hints).toHaveLength(1)
    expect(hints[0]).toContain("may have received and acted on the request")
  })

  it("a POST that CORS rejects is not retried without an Idempotency-Key", async () => {
    const key = freshKey("rejected-post")
    const result = await page.run("call", {
      url: `${noCors.url}/api/chaos/retry/${key}?succeedAfter=0`,
      method: "POST",
      policy: { maxAttempts: 3, backoffMillis: 50 }
    })
    expect(result.failure).toMatchObject({
      tag: "ConnectionError",
      reason: "Transport",
      attempt: 1,
      giveUpReason: "not-idempotent"
    })
    // Its preflight, at most: the POST itself was never sent again.
    expect(await attemptsOf(noCors, key)).toBeLessThanOrEqual(1)
  })

  it("the tracing headers force a preflight a strict server refuses: every call fails until they are off", async () => {
    const key = freshKey("traced")
    const url = `${strict.url}/api/chaos/retry/${key}?succeedAfter=0`
    const traced = await page.run("call", { url, policy: { maxAttempts: 2, backoffMillis: 50 } })
    expect(traced.failure).toMatchObject({ tag: "ConnectionError", reason: "Transport", attempt: 2 })
    const hints = hintsIn(traced.logs, "failed with a TypeError")
    expect(hints).toHaveLength(1)
    expect(hints[0]).toContain("HttpClient.withTracerPropagation(false)")
    const stats = await strict.stats()
    // Preflights only: the GET itself never left the browser.
    expect(stats.requests.byRetryKey[key] ?? 0).toBe(0)
    expect(stats.requests.preflights).toBeGreaterThanOrEqual(1)
    const untraced = await page.run("call", {
      url,
      policy: { maxAttempts: 2, backoffMillis: 50 },
      tracerPropagation: false
    })
    expect(untraced.status).toBe(200)
    expect(await attemptsOf(strict, key)).toBe(1)
  })

  it("an attempt past its time limit is aborted in the browser: the server sees the request go", async () => {
    const result = await page.run("call", {
      url: `${exposed.url}/api/chaos/hang`,
      policy: { maxAttempts: 2, backoffMillis: 50, attemptTimeoutMillis: 300 }
    })
    expect(result.failure).toMatchObject({ tag: "ConnectionError", reason: "Timeout", attempt: 2 })
    expect(result.failure?.message).toBe(
      `GET ${exposed.url}/api/chaos/hang: no response in time on attempt 2; gave up after 2 attempts`
    )
    await eventuallyTrue(async () => (await exposed.stats()).requests.inFlight === 0, "the hanging requests aborted")
  })

  it("a response left unread is released when its scope closes: the server stops streaming it", async () => {
    // 120 chunks 250 ms apart: the server would stream for 30 s if nothing stopped it.
    const result = await page.run("call", {
      url: `${exposed.url}/api/chaos/slow-body?chunks=120&interval=250`,
      policy: { maxAttempts: 1 },
      readBody: false
    })
    expect(result.status).toBe(200)
    await eventuallyTrue(
      async () => (await exposed.stats()).responses.streaming === 0,
      "the body's stream ended",
      20_000
    )
  })
})
