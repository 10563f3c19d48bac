// The README's example, verbatim, so that it runs: packages/chaos-server/README.md, "CORS: called from a browser page".
// scripts/doc-examples.ts checks that this file ends with the README's block.
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { afterAll, expect, it } from "vitest"

// A strict server: its preflights allow these request headers and no others.
const server = await startChaosServer({ cors: { allowHeaders: ["content-type", "idempotency-key"] } })
afterAll(() => server.close())
const page = "http://127.0.0.1:5173" // the Origin a browser sends for a page served there

it("answers the browser's preflight itself, and lets the page read Retry-After and X-Attempt", async () => {
  const preflight = await fetch(`${server.url}/api/chaos/retry/pay?succeedAfter=1`, {
    method: "OPTIONS",
    headers: { origin: page, "access-control-request-method": "GET", "access-control-request-headers": "traceparent" }
  })
  expect(preflight.status).toBe(204)
  // traceparent is not allowed: a browser would refuse to send this request.
  expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type, idempotency-key")

  const response = await fetch(`${server.url}/api/chaos/retry/pay?succeedAfter=1`, { headers: { origin: page } })
  await response.arrayBuffer()
  expect(response.headers.get("access-control-allow-origin")).toBe(page)
  expect(response.headers.get("access-control-expose-headers")).toContain("Retry-After, X-Attempt")
  expect(response.headers.get("x-attempt")).toBe("1") // the preflight was no attempt
  const { requests } = await server.stats()
  expect([requests.total, requests.preflights]).toEqual([1, 1])
})
