import { setTimeout as sleep } from "node:timers/promises"
import {
  type NamespaceStats,
  type StartedChaosServer,
  type Stats,
  startChaosServer
} from "../../src/startChaosServer.js"

/**
 * The stats once `predicate` holds, polled every 10 ms: the server learns of a closed socket a moment after the
 * client. The deadline only ends a test that would otherwise hang; it is generous for busy cores.
 */
export const statsOnce = async <S extends Stats | NamespaceStats>(
  readStats: () => Promise<S>,
  predicate: (stats: S) => boolean,
  description: string
): Promise<S> => {
  const deadline = performance.now() + 10_000
  for (;;) {
    const stats = await readStats()
    if (predicate(stats)) return stats
    if (performance.now() > deadline) {
      throw new Error(`stats never showed ${description}: ${JSON.stringify(stats.requests)}`)
    }
    await sleep(10)
  }
}

/** Runs `use` against a fresh chaos server (the promise API), closed afterwards. */
export const withServer = async <A>(use: (server: StartedChaosServer) => Promise<A>): Promise<A> => {
  const server = await startChaosServer()
  try {
    return await use(server)
  } finally {
    await server.close()
  }
}
