// @generated from templates/test/e2e/redisServer.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The redis-server that the Redis store's tests start (test/support/redisServer.ts): it answers
 * raw RESP commands, stops and starts again on its port, says clearly when that port is taken,
 * gives each instance a port of its own, and serves the client the Effect 3 store runs on
 * (node-redis' `createClient`).
 * A real process on loopback; the waits are readiness waits, never timing assertions.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { trusted } from "@effect-http-resilience/conformance/redisTls"
import * as Net from "node:net"
import { createClient } from "redis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { documentedAcl, type RedisInstance, startRedis, storeUser } from "../support/redisServer.js"

let redis: RedisInstance

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

/** Runs `body` with an instance of its own, stopped after it. */
const withOwnRedis = async (
  body: (instance: RedisInstance) => Promise<void>,
  options?: { readonly tls?: boolean }
): Promise<void> => {
  const instance = await startRedis(options)
  try {
    await body(instance)
  } finally {
    await instance.stop()
  }
}

describe.skipIf(skipWithout(redisServer))("startRedis", () => {
  it("gives the store docs/overload.md's user: its prefixes' keys and the documented commands, nothing else", async () => {
    expect(documentedAcl()).toMatch(/^ACL SETUSER \S+ on >\S+ resetkeys ~\{orders-api\}:\* /)
    expect(redis.url).toBe(`redis://${storeUser.username}:${storeUser.password}@127.0.0.1:${redis.port}`)
    const client = createClient({ url: redis.url })
    client.on("error", () => {})
    await client.connect()
    try {
      expect(await client.sendCommand(["PING"])).toBe("PONG")
      expect(await client.sendCommand(["TIME"])).toHaveLength(2)
      await expect(client.sendCommand(["SET", "{any-prefix}:cooldowns", "x"])).rejects.toThrow(/NOPERM/)
      await expect(client.sendCommand(["ZADD", "not-a-prefix", "1", "x"])).rejects.toThrow(/NOPERM/)
      await expect(client.sendCommand(["PUBLISH", "not-a-channel", "x"])).rejects.toThrow(/NOPERM/)
    } finally {
      client.destroy()
    }
    // What this test made Redis refuse is not the store's.
    await redis.command("ACL", "LOG", "RESET")
  })

  it("fails to stop, once stopped, when Redis refused the store's user anything", async () => {
    const instance = await startRedis()
    const client = createClient({ url: instance.url })
    client.on("error", () => {})
    await client.connect()
    await expect(client.sendCommand(["FLUSHALL"])).rejects.toThrow(/NOPERM/)
    client.destroy()
    await expect(instance.stop()).rejects.toThrow(/Redis refused the store's user .*: command flushall \(toplevel\)/)
    await expect(instance.command("PING")).rejects.toThrow(/ECONNREFUSED/)
  })

  it("serves TLS on a port of its own, the trusted authority's certificate, then the untrusted one's", async () => {
    await withOwnRedis(
      async (instance) => {
        const tls = instance.tls
        expect(tls).toBeDefined()
        const connect = async () => {
          const client = createClient({
            url: `rediss://127.0.0.1:${tls?.port}`,
            socket: { ca: [trusted.ca], reconnectStrategy: false }
          })
          client.on("error", () => {})
          try {
            await client.connect()
            return await client.sendCommand(["PING"])
          } finally {
            client.destroy()
          }
        }
        expect(await connect()).toBe("PONG")
        await tls?.serveUntrusted()
        await expect(connect()).rejects.toThrow(/certificate/)
      },
      { tls: true }
    )
  })

  it("answers PING, SET and GET over raw RESP, on 127.0.0.1", async () => {
    expect(redis.adminUrl).toBe(`redis://127.0.0.1:${redis.port}`)
    expect(await redis.command("PING")).toBe("+PONG\r\n")
    expect(await redis.command("SET", "greeting", "hello there")).toBe("+OK\r\n")
    expect(await redis.command("GET", "greeting")).toBe("$11\r\nhello there\r\n")
    expect(await redis.command("GET", "missing")).toBe("$-1\r\n")
    expect(await redis.command("EXISTS", "greeting", "missing")).toBe(":1\r\n")
  })

  it("saves nothing to disk and allows DEBUG SLEEP, CLIENT PAUSE and FLUSHALL", async () => {
    expect(await redis.command("CONFIG", "GET", "save")).toBe("*2\r\n$4\r\nsave\r\n$0\r\n\r\n")
    expect(await redis.command("CONFIG", "GET", "appendonly")).toBe("*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n")
    expect(await redis.command("DEBUG", "SLEEP", "0")).toBe("+OK\r\n")
    expect(await redis.command("CLIENT", "PAUSE", "10", "WRITE")).toBe("+OK\r\n")
    expect(await redis.command("CLIENT", "UNPAUSE")).toBe("+OK\r\n")
    await redis.command("SET", "doomed", "1")
    expect(await redis.command("FLUSHALL")).toBe("+OK\r\n")
    expect(await redis.command("DBSIZE")).toBe(":0\r\n")
  })

  it("fails on an error reply", async () => {
    await expect(redis.command("NO-SUCH-COMMAND")).rejects.toThrow(/ERR unknown command/)
  })

  it("stops, fails commands while stopped, and starts again on the same port with an empty dataset", async () => {
    await withOwnRedis(async (instance) => {
      await instance.command("SET", "before", "restart")
      await instance.stop()
      await expect(instance.command("PING")).rejects.toThrow(/ECONNREFUSED/)
      await instance.stop()
      await instance.start()
      expect(await instance.command("PING")).toBe("+PONG\r\n")
      expect(await instance.command("GET", "before")).toBe("$-1\r\n")
      await expect(instance.start()).rejects.toThrow(/running already/)
    })
  })

  it("is killed as a crash kills it, and starts again asking for a password, which command gives", async () => {
    await withOwnRedis(async (instance) => {
      await instance.command("SET", "before", "crash")
      await instance.kill()
      await expect(instance.command("PING")).rejects.toThrow(/ECONNREFUSED/)
      await instance.start({ requirepass: "s3cret" })
      expect(await instance.command("PING")).toBe("+PONG\r\n")
      expect(await instance.command("GET", "before")).toBe("$-1\r\n")
      // A client without the password is refused.
      const refused = await new Promise<string>((resolve, reject) => {
        const socket = Net.connect({ host: "127.0.0.1", port: instance.port })
        socket.once("error", reject)
        socket.once("data", (chunk) => {
          socket.destroy()
          resolve(chunk.toString("utf8"))
        })
        socket.write("PING\r\n")
      })
      expect(refused).toMatch(/^-NOAUTH/)
      await instance.stop()
      await instance.start()
      expect(await instance.command("PING")).toBe("+PONG\r\n")
    })
  })

  it("starts again after the server shut itself down", async () => {
    await withOwnRedis(async (instance) => {
      await expect(instance.command("SHUTDOWN", "NOSAVE")).rejects.toThrow(/closed the connection/)
      await instance.stop()
      await instance.start()
      expect(await instance.command("PING")).toBe("+PONG\r\n")
    })
  })

  it("says so when another process took the port before a restart", async () => {
    await withOwnRedis(async (instance) => {
      await instance.stop()
      const squatter = Net.createServer()
      await new Promise<void>((resolve) => squatter.listen(instance.port, "127.0.0.1", resolve))
      try {
        await expect(instance.start()).rejects.toThrow(/cannot start again on 127\.0\.0\.1:\d+: .*taken/)
      } finally {
        await new Promise((resolve) => squatter.close(resolve))
      }
      await instance.start()
      expect(await instance.command("PING")).toBe("+PONG\r\n")
    })
  })

  it("gives two instances two ports and two datasets", async () => {
    await withOwnRedis(async (other) => {
      expect(other.port).not.toBe(redis.port)
      await other.command("SET", "where", "other")
      await redis.command("SET", "where", "shared")
      expect(await other.command("GET", "where")).toBe("$5\r\nother\r\n")
      expect(await redis.command("GET", "where")).toBe("$6\r\nshared\r\n")
    })
  })

  it("serves node-redis' client", async () => {
    const client = createClient({ url: redis.adminUrl })
    await client.connect()
    try {
      expect(await client.set("client-key", "client-value")).toBe("OK")
      expect(await client.get("client-key")).toBe("client-value")
    } finally {
      await client.close()
    }
  })
})
