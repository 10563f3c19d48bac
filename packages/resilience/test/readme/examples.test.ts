// @generated from templates/test/readme/examples.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The examples of the READMEs, the guides (docs/*.md) and the JSDoc that make HTTP calls, run as
 * written against a live chaos server: this line's here, the other line's in the other package's
 * copy of this file. scripts/doc-examples.ts says which line an example belongs to, how a README
 * or guide marks its ```ts blocks and how an example becomes a module: it is written into a directory of this package with
 * `http://127.0.0.1:8080` replaced by the URL of a chaos server started for it (port 0,
 * 127.0.0.1), imported, and its Effect run; its check then asserts what its comments promise, and
 * an example aimed at port 8080 must have reached the live server.
 *
 * It fails when an example stops working, when a README block has no marker, when an example marked
 * to run has no check here (or a check no example), and when a JSDoc example naming port 8080 is not
 * listed here. No wall-clock bound: a run takes what its waits take (2 s for the orders examples,
 * the server's Retry-After: 1 twice), and the runs overlap.
 */
import { type StartedChaosServer, type Stats, startChaosServer } from "@effect-http-resilience/chaos-server"
import { Cause, Duration, Effect, Exit, Layer, Logger, type Scope } from "effect"
import { ResilientHttpClient } from "effect-http-resilience"
import * as Fs from "node:fs"
import * as Url from "node:url"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as DocExamples from "../../../../scripts/doc-examples.js"

interface Outcome {
  /** What the example's Effect succeeded with (nothing for a module). */
  readonly value: unknown
  /** The Effect's log lines, `LEVEL message`. */
  readonly logs: ReadonlyArray<string>
  readonly decisions: ReadonlyArray<ResilientHttpClient.Decision>
  /** The live server (still open) and its stats after the run. */
  readonly server: StartedChaosServer
  readonly stats: Stats
}

type Check = (outcome: Outcome) => void | Promise<void>

/** Every decision in words: `retry 1 after 1000 ms (retry-after)`, `give up: not-idempotent`. */
const described = (decisions: ReadonlyArray<ResilientHttpClient.Decision>) =>
  decisions.map((decision) =>
    decision._tag === "Retry"
      ? `retry ${decision.failure.attempt} after ${Duration.toMillis(decision.delay)} ms (${decision.source})`
      : decision._tag === "Hedge"
        ? `hedge ${decision.attempt} after ${Duration.toMillis(decision.delay)} ms`
        : `give up: ${decision.reason}`
  )

/** A POST /api/orders with an Idempotency-Key: two 503s with Retry-After: 1, each waited, then placed. */
const orderPlacedAfterTwoRetries = (outcome: Outcome) => {
  expect(described(outcome.decisions).slice(0, 2)).toEqual([
    "retry 1 after 1000 ms (retry-after)",
    "retry 2 after 1000 ms (retry-after)"
  ])
  expect(outcome.stats.orders).toMatchObject({ placed: 1, byIdempotencyKey: { "order-42": 3 } })
}

/** Lines that examples wrote on the console (`console.log`, and `console.dir` of ConsoleMetricExporter). */
const consoleCalls: Array<{ readonly method: "log" | "dir"; readonly args: ReadonlyArray<unknown> }> = []

/** What each README or guide example marked to run on this line promises, by `FILE#ID`. */
const readmeChecks: Record<string, Check> = {
  "docs/testing.md#chaos-server-layer": ({ value }) => {
    expect(value).toBe("3") // the comment: the client's third attempt succeeds
  },
  "README.md#quick-start": ({ logs }) => {
    expect(logs).toEqual(["INFO todo 1: Todo 1"])
  },
  "docs/retry-policy.md#track-search": ({ logs, stats }) => {
    expect(logs).toEqual(["INFO found 3 tracks"])
    expect(stats.requests.byPath["/v1/search"]).toBe(1)
  },
  "docs/retry-policy.md#http-api-client": ({ value }) => {
    expect(value).toEqual({ id: 1, title: "Todo 1" })
  },
  "docs/retry-policy.md#orders": (outcome) => {
    // The keyed POST is retried through the two 503s and placed; the unkeyed one is tried once.
    expect(outcome.value).toEqual([201, "Left"])
    orderPlacedAfterTwoRetries(outcome)
    expect(described(outcome.decisions)).toHaveLength(3)
    const unkeyed = outcome.decisions[2]
    expect(unkeyed?._tag === "GiveUp" && unkeyed.reason).toBe("not-idempotent")
    expect(unkeyed?._tag === "GiveUp" ? unkeyed.failure.message : undefined).toMatch(
      /: status 503 on attempt 1; not retried: POST is not idempotent \(send an Idempotency-Key header, or set retryNonIdempotent\)$/
    )
  },
  "docs/hedging.md#hedging": (outcome) => {
    // The first request held 3 s lost to the hedge sent at 100 ms, which the server saw as n = 2.
    expect(outcome.value).toMatchObject({ key: "readme", n: 2, slow: false })
    expect(described(outcome.decisions)).toEqual(["hedge 2 after 100 ms"])
  },
  "docs/coalescing.md#coalescing": ({ value, stats }) => {
    // Ten calls, one request: every caller read the body of the server's attempt 1.
    expect(value).toEqual(Array.from({ length: 10 }, () => expect.objectContaining({ status: 200, attempt: 1 })))
    expect(stats.requests.byRetryKey.coalesced).toBe(1)
  },
  "docs/overload.md#shared-guards": async ({ value, server }) => {
    // A layer of a client over the shared budget and breaker: it works.
    expect(Layer.isLayer(value)).toBe(true)
    const status = await Effect.runPromise(
      Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
        Effect.map(client.get(`${server.url}/api/status/200`), (response) => response.status)
      ).pipe(Effect.scoped, Effect.provide(value as Layer.Layer<ResilientHttpClient.ResilientHttpClient>))
    )
    expect(status).toBe(200)
  },
  "docs/observability.md#metrics": ({ value, server }) => {
    expect(value).toBe(200)
    // The console exporter printed the attempts counter when the layer closed: one attempt to this origin.
    const attempts = consoleCalls.flatMap(({ method, args }) => {
      const metric = args[0] as
        | {
            descriptor?: { name?: string }
            dataPoints?: Array<{ attributes: Record<string, unknown>; value: unknown }>
          }
        | undefined
      return method === "dir" && metric?.descriptor?.name === "http.client.resilience.attempts"
        ? (metric.dataPoints ?? []).filter((point) => point.attributes["server.port"] === String(server.port))
        : []
    })
    expect(attempts.map((point) => point.value)).toContain(1)
  },
  "packages/resilience/README.md#quick-start": ({ logs }) => {
    expect(logs).toEqual(["INFO todo 1: Todo 1"])
  },
  "packages/resilience/README.md#place-order": (outcome) => {
    expect(outcome.value).toBe(201)
    orderPlacedAfterTwoRetries(outcome)
  },
  "packages/chaos-server/README.md#effect3-layer": ({ value }) => {
    expect(value).toEqual(["3", 3])
  },
  "packages/chaos-server/README.md#promise": () => {
    expect(consoleCalls).toContainEqual({ method: "log", args: [503, 1] }) // the comment: 503 1
  }
}

/** The JSDoc examples this line runs, and those naming port 8080 that it does not, with why. */
const jsdocRuns: Record<
  string,
  { readonly target: DocExamples.Target; readonly check: Check } | { readonly notRun: string }
> = {
  "packages/resilience/src/ResilientHttpClient.ts#module": {
    target: { _tag: "LastStatement" },
    check: ({ value }) => expect(value).toEqual({ id: 1, title: "Todo 1" })
  },
  "packages/chaos-server/src/ChaosServer.ts#module": {
    target: { _tag: "Binding", name: "program" },
    check: ({ value }) => expect(value).toBe(503)
  }
}

const line: DocExamples.EffectLine = "effect3"
const readme = DocExamples.readmeExamples()
const readmeRuns = readme.examples.filter((example) => example.effectLine === line && example.marker?._tag === "Run")
const jsdoc = DocExamples.jsdocExamples().filter((example) => example.effectLine === line)

let dir = ""
beforeAll(() => {
  dir = DocExamples.runnableDir(line)
  for (const method of ["log", "dir"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      consoleCalls.push({ method, args })
    })
  }
})
afterAll(() => {
  vi.restoreAllMocks()
  if (dir !== "") Fs.rmSync(dir, { recursive: true, force: true })
})

/** Runs the example against a chaos server of its own, then its check. */
const run = async (example: DocExamples.Example, target: DocExamples.Target, check: Check): Promise<void> => {
  const server = await startChaosServer()
  try {
    const path = DocExamples.writeRunnable(example, target, server.url, dir)
    const module = (await import(Url.pathToFileURL(path).href)) as { readonly example?: unknown }
    const logs: Array<string> = []
    const decisions: Array<ResilientHttpClient.Decision> = []
    let value: unknown
    if (target._tag !== "Module") {
      const effect = module.example
      if (!Effect.isEffect(effect)) throw new Error(`${example.key}: what it runs is not an Effect`)
      const capture = Logger.make(({ logLevel, message }) => {
        logs.push(`${logLevel.label} ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
      })
      const exit = await Effect.runPromiseExit(
        (effect as Effect.Effect<unknown, unknown, Scope.Scope>).pipe(
          Effect.scoped,
          ResilientHttpClient.observeDecisions((decision) => Effect.sync(() => void decisions.push(decision))),
          Effect.provide(Logger.replace(Logger.defaultLogger, capture))
        )
      )
      if (Exit.isFailure(exit)) {
        throw new Error(`${example.key} failed: ${Cause.pretty(exit.cause)}\nits logs: ${logs.join("\n")}`)
      }
      value = exit.value
    }
    const stats = await server.stats()
    if (/(127\.0\.0\.1|localhost):8080/.test(example.code)) {
      expect(stats.requests.total, "requests that reached the live server").toBeGreaterThan(0)
    }
    await check({ value, logs, decisions, server, stats })
  } finally {
    await server.close()
  }
}

describe("the README, guide and JSDoc examples of the Effect 3 line, against a live chaos server", () => {
  it("every ```ts block of the READMEs and guides is marked: run, tested by a file that holds it, or not run", () => {
    expect(readme.problems).toEqual([])
    expect(
      readme.examples.filter((example) => example.effectLine === line).flatMap(DocExamples.markerProblems)
    ).toEqual([])
  })

  it("every README or guide example marked to run here has a check, and every check its example", () => {
    expect(readmeRuns.map((example) => example.key).sort()).toEqual(Object.keys(readmeChecks).sort())
  })

  it("every JSDoc example naming port 8080 is listed here, and every one listed exists", () => {
    const keys = jsdoc.map((example) => example.key)
    const missing = jsdoc.filter((example) => DocExamples.namesPort8080(example.code) && !(example.key in jsdocRuns))
    expect(missing.map((example) => `${example.source}:${example.line}: ${example.key}`)).toEqual([])
    expect(Object.keys(jsdocRuns).filter((key) => !keys.includes(key))).toEqual([])
  })

  describe.concurrent("each runs as written", () => {
    for (const example of readmeRuns) {
      it(example.key, async () => {
        const check = readmeChecks[example.key]
        if (example.marker?._tag !== "Run" || check === undefined) throw new Error(`${example.key}: no check`)
        await run(example, example.marker.target, check)
      })
    }
    for (const [key, entry] of Object.entries(jsdocRuns)) {
      if (!("check" in entry)) continue
      it(key, async () => {
        const example = jsdoc.find((candidate) => candidate.key === key)
        if (example === undefined) throw new Error(`${key}: no such JSDoc example`)
        await run(example, entry.target, entry.check)
      })
    }
  })
})
