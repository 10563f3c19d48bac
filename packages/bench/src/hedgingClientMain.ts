/**
 * Entry of a hedging client process: `hedgingClientMain.ts <mode>`, forked by the bench with an
 * IPC channel. It builds this library's client in that configuration once, says `Ready`, runs
 * the batches the parent sends one at a time (paced: call `i` starts at `i / ratePerSecond` s),
 * and answers each with every call's latency and the delay of every hedge sent; it exits as soon
 * as the parent is gone.
 */
import * as Schema from "effect/Schema"
import { makeHedgingClient } from "./hedgingClient.js"
import { FromHedgingClient, HedgingMode, ToHedgingClient } from "./protocol.js"
import { runWorker } from "./workerLoop.js"

const maxLifetimeMillis = 30 * 60 * 1000

runWorker(async () => {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error("a hedging client process must be forked with an IPC channel")
  const mode = Schema.decodeUnknownSync(HedgingMode)(process.argv[2])
  const decode = Schema.decodeUnknownSync(ToHedgingClient)
  const encode = Schema.encodeSync(FromHedgingClient)
  const reply = (message: FromHedgingClient): void => {
    send(encode(message))
  }
  const { client, takeHedgeDelays } = await makeHedgingClient(mode)
  let queue: Promise<void> = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const { id, run } = decode(raw)
    queue = queue.then(async () => {
      try {
        const latencies = new Float64Array(run.count)
        takeHedgeDelays()
        const cpuAtStart = process.cpuUsage()
        const started = performance.now()
        const outcome = await client.runBatch({
          urlFor: () => run.url,
          count: run.count,
          concurrency: run.concurrency,
          latencies,
          startAt: (index) => (index * 1000) / run.ratePerSecond
        })
        const wallMs = performance.now() - started
        const cpu = process.cpuUsage(cpuAtStart)
        reply({
          _tag: "HedgingResult",
          id,
          result: {
            ...outcome,
            wallMs,
            cpuMicros: cpu.user + cpu.system,
            latenciesMs: Array.from(latencies),
            hedgeDelaysMs: takeHedgeDelays()
          }
        })
      } catch (error) {
        reply({ _tag: "Failed", id, message: String(error) })
      }
    })
  })
  process.on("disconnect", () => process.exit(0))
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
  reply({ _tag: "Ready" })
})
