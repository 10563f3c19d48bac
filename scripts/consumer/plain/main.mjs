// The consumer test's check of the chaos server without Effect (scripts/consumer-test.sh copies it
// into a fresh project that installed only the packed chaos server, with its README's lines for a
// project without Effect). Plain ESM JavaScript.
import * as Assert from "node:assert/strict"
import * as ChildProcess from "node:child_process"
import { once } from "node:events"
import { startChaosServer } from "@effect-http-resilience/chaos-server"

const step = (name) => console.log(`consumer (no Effect): ${name}`)

// 1. Nothing installed `effect`: the optional peer stays out, and the Effect layers say so.
await Assert.rejects(import("effect"), { code: "ERR_MODULE_NOT_FOUND" })
await Assert.rejects(import("@effect-http-resilience/chaos-server/effect3"), { code: "ERR_MODULE_NOT_FOUND" })
step("effect is not installed")

// 2. The root entry point serves without it.
const server = await startChaosServer()
try {
  const key = "plain"
  const statuses = []
  for (let attempt = 0; attempt < 3; attempt++) {
    const response = await fetch(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&retryAfter=0`)
    await response.arrayBuffer()
    statuses.push(response.status)
  }
  Assert.deepEqual(statuses, [503, 503, 200])
  Assert.equal((await server.stats()).requests.byRetryKey[key], 3)
} finally {
  await server.close()
}
step("startChaosServer serves: a retry key failed twice, then answered 200")

// 3. The CLI serves with plain node, and stops on SIGTERM with exit code 0.
const cli = ChildProcess.spawn("./node_modules/.bin/chaos-server", ["--port", "0"], {
  stdio: ["ignore", "pipe", "inherit"]
})
const exited = once(cli, "exit")
let output = ""
const url = await new Promise((resolve, reject) => {
  cli.stdout.setEncoding("utf8").on("data", (text) => {
    output += text
    const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
    if (listening !== null) resolve(listening[1])
  })
  cli.once("exit", (code) => reject(new Error(`the CLI exited with ${code} before listening: ${output}`)))
})
const response = await fetch(`${url}/api/status/200`)
Assert.equal(response.status, 200)
await response.arrayBuffer()
cli.kill("SIGTERM")
const [code] = await exited
Assert.equal(code, 0)
step(`the chaos-server CLI served on ${url} and exited 0 on SIGTERM`)
console.log("consumer (no Effect): all runtime checks passed")
