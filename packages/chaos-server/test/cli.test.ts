import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { listening, parseArguments, runCli } from "./support/cli.js"
import { request } from "./support/client.js"
import { addressInUse, occupiedPort } from "./support/ports.js"

describe("parseArguments", () => {
  it.effect("defaults to port 8080 and reads --port N, --port=N and -p N", () =>
    Effect.gen(function* () {
      expect(yield* parseArguments([])).toEqual({ _tag: "Serve", port: 8080 })
      expect(yield* parseArguments(["--port", "0"])).toEqual({ _tag: "Serve", port: 0 })
      expect(yield* parseArguments(["--port=9000"])).toEqual({ _tag: "Serve", port: 9000 })
      expect(yield* parseArguments(["--", "--port", "9001"])).toEqual({ _tag: "Serve", port: 9001 })
      expect(yield* parseArguments(["-p", "65535"])).toEqual({ _tag: "Serve", port: 65535 })
      expect(yield* parseArguments(["--help"])).toEqual({ _tag: "Help" })
    })
  )

  for (const args of [["--port", "abc"], ["--port", "-1"], ["--port", "65536"], ["--port"], ["--bogus"], ["extra"]]) {
    it.effect(`refuses ${JSON.stringify(args)}`, () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(parseArguments(args))
        expect(error._tag).toBe("UsageError")
        expect(error.message.length).toBeGreaterThan(0)
      })
    )
  }
})

describe.concurrent("bin.ts", () => {
  it.live("prints its URL, serves, and exits 0 on SIGTERM even with a hanging request", () =>
    Effect.gen(function* () {
      let url = ""
      const finished = yield* runCli(["--port", "0"], (stdout, stop) =>
        Effect.gen(function* () {
          const line = yield* Effect.sync(() => listening.exec(stdout())).pipe(
            Effect.filterOrFail(
              (match) => match !== null,
              () => "the CLI never printed its URL"
            ),
            Effect.retry(Schedule.spaced("20 millis"))
          )
          url = line[1] ?? ""
          const response = yield* request(`${url}/api/status/503`)
          expect(response.status).toBe(503)
          // A hanging request must not keep the server from stopping.
          yield* Effect.forkScoped(request(`${url}/api/chaos/hang`))
          yield* Effect.sleep("50 millis")
          stop()
        })
      )
      expect(finished.code).toBe(0)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    })
  )

  it.live("prints why and exits 1 when the port is in use", () =>
    Effect.gen(function* () {
      const port = yield* occupiedPort
      const finished = yield* runCli(["--port", String(port)], () => Effect.void)
      expect(finished.code).toBe(1)
      expect(finished.stderr.trim()).toBe(`chaos-server: ${addressInUse(port)}`)
      expect(finished.stdout).toBe("")
    }).pipe(Effect.scoped)
  )

  it.live("answers a bad flag with the usage and exit code 2", () =>
    Effect.gen(function* () {
      const finished = yield* runCli(["--port", "not-a-port"], () => Effect.void)
      expect(finished.code).toBe(2)
      expect(finished.stderr).toContain("usage: chaos-server")
      expect(finished.stderr).toContain("--port must be an integer")
      expect(finished.stdout).toBe("")
    })
  )
})
