// The README's example, verbatim, so that it runs: packages/chaos-server/README.md, "Namespaces: one per test".
// scripts/doc-examples.ts checks that this file ends with the README's block.
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { afterAll, describe, expect, it } from "vitest"

// One server for the file. Each test takes a namespace of its own: the tests use the same retry key, run at once,
// and reset without touching each other's counts.
const server = await startChaosServer()
afterAll(() => server.close())

describe.concurrent("payments", () => {
  for (const method of ["card", "wallet"]) {
    it(`${method}: the third attempt succeeds`, async () => {
      const namespace = server.namespace() // { name, url, stats(), reset() }
      const pay = async () => {
        const response = await fetch(`${namespace.url}/api/chaos/retry/payment?succeedAfter=2`)
        await response.arrayBuffer()
        return response
      }
      const statuses = [(await pay()).status, (await pay()).status, (await pay()).status]
      expect(statuses).toEqual([503, 503, 200]) // "payment" is counted apart in each namespace
      expect((await namespace.stats()).requests.byRetryKey).toEqual({ payment: 3 })
      await namespace.reset() // this namespace only
      expect((await pay()).headers.get("x-attempt")).toBe("1")
    })
  }
})
