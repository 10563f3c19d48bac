import { describe, expect, it } from "vitest"
import type { StartedChaosServer } from "../src/startChaosServer.js"
import { statsOnce, withServer } from "./support/promises.js"

/** One request to the capacity route, its body read. */
const ask = async (server: StartedChaosServer, query = "") => {
  const response = await fetch(`${server.url}/api/chaos/capacity?${query}`)
  const body: unknown = await response.json()
  return {
    status: response.status,
    delay: response.headers.get("x-chaos-delay"),
    overload: response.headers.get("x-chaos-overload"),
    body
  }
}

const setCapacity = async (server: StartedChaosServer, limit: number | string) => {
  const response = await fetch(`${server.url}/__capacity?limit=${limit}`, { method: "POST" })
  const body: unknown = await response.json()
  return { status: response.status, body }
}

/**
 * Starts a request that the route holds for a minute, and resolves once the route counts it; `leave()` aborts it.
 * Held requests make the concurrency exact, whatever the machine's speed.
 */
const hold = async (server: StartedChaosServer) => {
  const before = (await server.stats()).capacity.requests
  const controller = new AbortController()
  const answered = fetch(`${server.url}/api/chaos/capacity?base=60000`, { signal: controller.signal }).catch(
    () => "left"
  )
  await statsOnce(server.stats, (stats) => stats.capacity.requests > before, "the held request arriving")
  return {
    leave: async () => {
      controller.abort()
      return answered
    }
  }
}

describe("/api/chaos/capacity", () => {
  it("serves within its capacity at the base latency", () =>
    withServer(async (server) => {
      const answer = await ask(server, "base=5")
      expect(answer).toEqual({
        status: 200,
        delay: "5",
        overload: null,
        body: { capacity: 64, concurrent: 1, delayMillis: 5 }
      })
      expect((await server.stats()).capacity).toEqual({
        limit: 64,
        inFlight: 0,
        peakInFlight: 1,
        requests: 1,
        served: 1,
        overloaded: 0
      })
    }))

  it("slows down with the excess beyond its capacity, and sheds with 503 past shedAt × capacity", () =>
    withServer(async (server) => {
      await setCapacity(server, 1)
      const first = await hold(server)
      // Two held at once by a capacity of 1: base × 2 / 1.
      expect(await ask(server, "base=50")).toMatchObject({ status: 200, delay: "100", body: { concurrent: 2 } })
      const second = await hold(server)
      const shed = await ask(server)
      expect(shed).toMatchObject({ status: 503, overload: "capacity", body: { status: 503 } })
      expect(await ask(server, "shedAt=3")).toMatchObject({ status: 200, delay: "60", body: { concurrent: 3 } })
      expect([await first.leave(), await second.leave()]).toEqual(["left", "left"])
      const stats = await statsOnce(server.stats, (s) => s.capacity.inFlight === 0, "the held requests leaving")
      expect(stats.capacity).toEqual({ limit: 1, inFlight: 0, peakInFlight: 3, requests: 5, served: 2, overloaded: 1 })
      expect(stats.requests.abandoned).toBe(2)
    }))

  it("follows a capacity changed mid-run", () =>
    withServer(async (server) => {
      await setCapacity(server, 2)
      const held = [await hold(server), await hold(server)]
      expect((await ask(server, "shedAt=1")).status).toBe(503)
      expect(await setCapacity(server, 3)).toMatchObject({ status: 200, body: { limit: 3, inFlight: 2 } })
      expect(await ask(server, "shedAt=1&base=30")).toMatchObject({ status: 200, delay: "30", body: { capacity: 3 } })
      await Promise.all(held.map((request) => request.leave()))
      await statsOnce(server.stats, (s) => s.capacity.inFlight === 0, "the held requests leaving")
    }))
})

describe("/__capacity", () => {
  it("reads and sets the capacity, uncounted, and a reset restores it", () =>
    withServer(async (server) => {
      const read = await fetch(`${server.url}/__capacity`)
      expect(await read.json()).toEqual({
        limit: 64,
        inFlight: 0,
        peakInFlight: 0,
        requests: 0,
        served: 0,
        overloaded: 0
      })
      expect((await setCapacity(server, 16)).body).toMatchObject({ limit: 16 })
      expect((await ask(server, "base=0")).body).toEqual({ capacity: 16, concurrent: 1, delayMillis: 0 })
      expect((await server.stats()).requests.total).toBe(1)
      await server.reset()
      expect((await server.stats()).capacity).toEqual({
        limit: 64,
        inFlight: 0,
        peakInFlight: 0,
        requests: 0,
        served: 0,
        overloaded: 0
      })
    }))

  it("refuses a POST without a limit in range", () =>
    withServer(async (server) => {
      for (const limit of ["", "0", "100001", "many"]) {
        const answer = await setCapacity(server, limit)
        expect(answer.status).toBe(400)
        expect(answer.body).toMatchObject({ error: expect.stringContaining("limit") })
      }
      const none = await fetch(`${server.url}/__capacity`, { method: "POST" })
      expect(none.status).toBe(400)
      await none.arrayBuffer()
      expect((await server.stats()).capacity.limit).toBe(64)
    }))

  it("refuses the other parameters of the route, out of range, with a 400", () =>
    withServer(async (server) => {
      for (const query of ["base=-1", "base=60001", "shedAt=0", "shedAt=101"]) {
        expect((await ask(server, query)).status).toBe(400)
      }
      expect((await server.stats()).capacity.requests).toBe(0)
    }))
})
