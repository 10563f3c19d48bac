/**
 * What a client process does with one job: run the batch against the server and measure it in
 * this process only (wall time, CPU time, JS heap allocations, latencies, memory, sockets).
 */
import * as V8 from "node:v8"
import type { BenchClient } from "./benchClient.js"
import type { Job, JobResult } from "./protocol.js"
import { quantileSorted } from "./stats.js"

const memorySampleMillis = 10
// Lets sockets that are closing finish before they are counted.
const settleMillis = 100

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

// Collects, lets finalization callbacks (FinalizationRegistry) run, and collects what they freed.
const forceGc = async (): Promise<boolean> => {
  const gc = globalThis.gc
  if (gc === undefined) return false
  gc()
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  return true
}

const activeSockets = (): number =>
  process.getActiveResourcesInfo().filter((resource) => resource === "TCPSocketWrap").length

// A well-mixed 32-bit hash of an index (the finalizer of murmur3), as a uniform number in [0, 1).
const scatter = (index: number): number => {
  let h = Math.imul(index ^ 0x5bd1e995, 0x9e3779b1)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296
}

/** Whether call `index` of a `sparse` job fails once: the same scattered calls for every job. */
export const failsOnce = (index: number, failingShare: number): boolean => scatter(index) < failingShare

/**
 * The URL of call `index` of a job, at the job's origin if it names one: every `fail-once`
 * call gets a key of its own.
 */
const urlFor = (workerOrigin: string, job: Job): ((index: number) => string) => {
  const origin = job.origin ?? workerOrigin
  switch (job.route) {
    case "ok": {
      const url = `${origin}/ok`
      return () => url
    }
    case "always-503": {
      const url = `${origin}/always-503`
      return () => url
    }
    case "fail-once": {
      const prefix = `${origin}/fail-once/${job.keyPrefix}-`
      return (index) => prefix + index
    }
    case "sparse": {
      const ok = `${origin}/ok`
      const prefix = `${origin}/fail-once/${job.keyPrefix}-`
      const share = job.failingShare ?? 0
      return (index) => (failsOnce(index, share) ? prefix + index : ok)
    }
    case "switch": {
      const url = `${origin}/switch/${job.keyPrefix}`
      return () => url
    }
  }
}

/**
 * Starts counting the bytes allocated on the JS heap; the function returned stops and gives
 * them: what is still there plus what every collection in between freed.
 */
export const allocationCounter = (): (() => number) => {
  const profiler = new V8.GCProfiler()
  const usedAtStart = V8.getHeapStatistics().used_heap_size
  profiler.start()
  return (): number => {
    const profile = profiler.stop()
    const usedAtEnd = V8.getHeapStatistics().used_heap_size
    let freed = 0
    for (const collection of profile.statistics) {
      freed += collection.beforeGC.heapStatistics.usedHeapSize - collection.afterGC.heapStatistics.usedHeapSize
    }
    return usedAtEnd - usedAtStart + freed
  }
}

const memorySampler = () => {
  let peakRss = 0
  let peakHeap = 0
  const sample = () => {
    const usage = process.memoryUsage()
    peakRss = Math.max(peakRss, usage.rss)
    peakHeap = Math.max(peakHeap, usage.heapUsed)
  }
  sample()
  const timer = setInterval(sample, memorySampleMillis)
  return () => {
    clearInterval(timer)
    sample()
    return { peakRss, peakHeap }
  }
}

export const runJob = async (client: BenchClient, origin: string, job: Job): Promise<JobResult> => {
  const latencies = job.latencies ? new Float64Array(job.count) : undefined
  let heapBeforeBytes: number | null = null
  if (job.memory && (await forceGc())) heapBeforeBytes = process.memoryUsage().heapUsed
  const stopSampler = job.memory ? memorySampler() : undefined
  const stopCounting = job.allocations ? allocationCounter() : undefined

  const rate = job.ratePerSecond
  const attemptsAtStart = client.attempts?.()
  const cpuAtStart = process.cpuUsage()
  const started = performance.now()
  const outcome = await client.runBatch({
    urlFor: urlFor(origin, job),
    count: job.count,
    concurrency: job.concurrency,
    latencies,
    startAt: rate === undefined ? undefined : (index) => (index * 1000) / rate
  })
  const wallMs = performance.now() - started
  const cpu = process.cpuUsage(cpuAtStart)
  const allocatedBytes = stopCounting === undefined ? null : stopCounting()
  const peaks = stopSampler === undefined ? undefined : stopSampler()

  let activeSocketsAfter: number | null = null
  let heapAfterBytes: number | null = null
  if (job.memory) {
    await sleep(settleMillis)
    activeSocketsAfter = activeSockets()
    if (await forceGc()) heapAfterBytes = process.memoryUsage().heapUsed
  }

  let p50Ms: number | null = null
  let p99Ms: number | null = null
  if (latencies !== undefined) {
    latencies.sort()
    p50Ms = quantileSorted(latencies, 0.5)
    p99Ms = quantileSorted(latencies, 0.99)
  }
  return {
    ok: outcome.ok,
    failed: outcome.failed,
    wallMs,
    cpuMicros: cpu.user + cpu.system,
    allocatedBytes,
    p50Ms,
    p99Ms,
    peakRssBytes: peaks?.peakRss ?? null,
    peakHeapBytes: peaks?.peakHeap ?? null,
    heapBeforeBytes,
    heapAfterBytes,
    activeSocketsAfter,
    attempts: attemptsAtStart === undefined ? null : (client.attempts?.() ?? Number.NaN) - attemptsAtStart
  }
}
