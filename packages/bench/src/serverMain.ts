/**
 * Entry of the server process: forked by the bench with an IPC channel, it reports its port,
 * answers statistics over IPC (so asking never opens a connection that would be counted), and
 * exits as soon as its parent is gone.
 */
import * as Schema from "effect/Schema"
import { FromServer, ToServer } from "./protocol.js"
import { startBenchServer } from "./server.js"

// However the parent ends, this process never outlives a full run by much.
const maxLifetimeMillis = 30 * 60 * 1000

const decodeMessage = Schema.decodeUnknownSync(ToServer)
const encodeMessage = Schema.encodeSync(FromServer)

const send = (message: FromServer): void => {
  process.send?.(encodeMessage(message))
}

const main = async (): Promise<void> => {
  if (process.send === undefined) throw new Error("serverMain must be forked with an IPC channel")
  const server = await startBenchServer()
  process.on("message", (raw: unknown) => {
    const message = decodeMessage(raw)
    switch (message._tag) {
      case "GetStats":
        send({ _tag: "Stats", id: message.id, stats: server.stats() })
        break
      case "Reset":
        server.reset()
        send({ _tag: "Stats", id: message.id, stats: server.stats() })
        break
      case "SetOutage":
        server.setOutage(message.down)
        send({ _tag: "Outage", id: message.id, report: server.outage() })
        break
      case "GetOutage":
        send({ _tag: "Outage", id: message.id, report: server.outage() })
        break
    }
  })
  process.on("disconnect", () => process.exit(0))
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
  send({ _tag: "Listening", port: server.port })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
