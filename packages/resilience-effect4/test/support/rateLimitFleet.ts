// @generated from templates/test/support/rateLimitFleet.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The fleet of OS processes of the rate-limit and store-wiring tests (test/fleet/redisRateLimitFleet.test.ts,
 * test/fleet/redisStoreWiring.test.ts): three member programs (test/support/rateLimitMember.ts) at once,
 * each its own Node.js process, and what they and the chaos server counted.
 */
import { createRequire } from "node:module"
import * as ChildProcess from "node:child_process"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { StartedChaosServer } from "@effect-http-resilience/chaos-server"
import { Effect } from "effect"

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
const member = fileURLToPath(new URL("./rateLimitMember.ts", import.meta.url))

export interface Outcomes {
  readonly ok: number
  readonly rateLimited: number
  readonly other: number
}

const outcomesOf = (line: string): Outcomes | undefined => {
  const read: unknown = JSON.parse(line)
  if (typeof read !== "object" || read === null) return undefined
  const count = (field: string): number => (field in read ? Number(Reflect.get(read, field)) : Number.NaN)
  const outcomes = { ok: count("ok"), rateLimited: count("rateLimited"), other: count("other") }
  return Object.values(outcomes).every(Number.isSafeInteger) ? outcomes : undefined
}

/** One member process: its outcomes, read from its one line of output. */
const runMember = (args: ReadonlyArray<string>) =>
  Effect.callback<Outcomes, Error>((resume) => {
    const child = ChildProcess.spawn(process.execPath, ["--import", tsxLoader, member, ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.on("close", (code) => {
      const outcomes = code === 0 ? outcomesOf(out) : undefined
      if (outcomes !== undefined) resume(Effect.succeed(outcomes))
      else resume(Effect.fail(new Error(`member exited ${code}: ${out} ${err}`)))
    })
    return Effect.sync(() => child.kill())
  })

let runs = 0

export type Wiring = "around" | "layer" | "layerHttpClient" | "both"

/**
 * Three member processes at once, `calls` calls each under a limit of `limit` (no refill within a
 * run: a token a minute after the burst), their store wired as `wiring` says (test/support/rateLimitMember.ts): their outcomes and
 * the requests the server saw.
 */
export const fleet = (
  redisUrl: string,
  chaos: StartedChaosServer,
  store: "redis" | "memory",
  wiring: Wiring = "around",
  calls = 15,
  limit = 10
) =>
  Effect.gen(function* () {
    const namespace = chaos.namespace()
    const prefix = `fleet-rate-${process.pid}-${++runs}`
    const url = `${namespace.url}/api/status/200`
    const outcomes = yield* Effect.all(
      Array.from({ length: 3 }, () =>
        // A burst of `limit`, then a token a minute: none comes within a call's 30 s deadline.
        runMember([
          redisUrl,
          prefix,
          url,
          String(calls),
          store,
          String(limit),
          String(limit * 60_000),
          wiring,
          String(limit)
        ])
      ),
      { concurrency: "unbounded" }
    )
    const { requests } = yield* Effect.promise(() => namespace.stats())
    return { outcomes, sent: requests.total }
  })

/**
 * Three member processes at once, 10 calls each all at once (30 in all), under a client limit of
 * 10 a second (burst 1), the chaos server's quota on its rate-limited route, counted in fixed windows
 * or sliding ones (`algorithm`): their outcomes, and what the server let through and answered 429
 * meanwhile (this file's chaos server alone). Each process opens its connection first
 * (test/support/rateLimitMember.ts), as a program that has run a while has: a cold first request
 * reaches the server late, and only its own process learns when it was answered.
 */
export const fleetAtQuota = (
  redisUrl: string,
  chaos: StartedChaosServer,
  store: "redis" | "memory",
  algorithm: "fixed" | "sliding"
) =>
  Effect.gen(function* () {
    const before = yield* Effect.promise(() => chaos.stats())
    const prefix = `fleet-quota-${process.pid}-${++runs}`
    const url = `${chaos.namespace().url}/api/chaos/rate-limit/quota?limit=10&window=1&algorithm=${algorithm}`
    const outcomes = yield* Effect.all(
      Array.from({ length: 3 }, () =>
        runMember([redisUrl, prefix, url, "10", store, "10", "1000", "around", "1", "10", "1"])
      ),
      { concurrency: "unbounded" }
    )
    const after = yield* Effect.promise(() => chaos.stats())
    return {
      outcomes,
      allowed: after.rateLimit.allowed - before.rateLimit.allowed,
      limited: after.rateLimit.limited - before.rateLimit.limited
    }
  })

export const sum = (outcomes: ReadonlyArray<Outcomes>, field: keyof Outcomes) =>
  outcomes.reduce((total, outcome) => total + outcome[field], 0)
