/**
 * Entry of the chaos server process of the hedging section: forked by the bench with an IPC
 * channel, it starts two `@effect-http-resilience/chaos-server`s on free loopback ports, the
 * measured one first, then one for the client processes' first warm-up (another origin, so that
 * the latencies of a cold process are in no window the measured calls read), reports each port,
 * and exits as soon as its parent is gone. Statistics are read over HTTP (`/__stats`, which the
 * server does not count).
 */
import * as Schema from "effect/Schema"
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import { FromServer } from "./protocol.js"

const maxLifetimeMillis = 30 * 60 * 1000

const main = async (): Promise<void> => {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error("chaosServerMain must be forked with an IPC channel")
  const measured = await startChaosServer({ port: 0 })
  const warmup = await startChaosServer({ port: 0 })
  process.on("disconnect", () => {
    Promise.all([measured.close(), warmup.close()]).finally(() => process.exit(0))
  })
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
  for (const server of [measured, warmup]) send(Schema.encodeSync(FromServer)({ _tag: "Listening", port: server.port }))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
