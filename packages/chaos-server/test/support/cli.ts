import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Cli from "../../src/internal/cli.js"

const packageDirectory = fileURLToPath(new URL("../..", import.meta.url))

/** The CLI's Effect-free argument parser as an Effect: a usage error in the error channel. */
export const parseArguments = (args: ReadonlyArray<string>): Effect.Effect<Cli.Command, Cli.UsageError> => {
  const parsed = Cli.parseArguments(args)
  return parsed._tag === "UsageError" ? Effect.fail(parsed) : Effect.succeed(parsed)
}

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI with node and tsx directly, so that a signal reaches the server process itself. */
export const runCli = (
  args: ReadonlyArray<string>,
  whileRunning: (stdout: () => string, stop: () => void) => Effect.Effect<void, unknown, Scope.Scope>
) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      ChildProcess.spawn(process.execPath, ["--import", "tsx", "src/bin.ts", ...args], {
        cwd: packageDirectory,
        stdio: ["ignore", "pipe", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  ).pipe(
    Effect.flatMap((child) => {
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
      child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
      const exited = Effect.async<Finished>((resume) => {
        child.once("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
      })
      return Effect.zipRight(
        whileRunning(
          () => stdout,
          () => child.kill("SIGTERM")
        ),
        exited
      )
    }),
    // Starting node with tsx takes seconds on busy cores; the bound only ends a CLI that never exits.
    Effect.timeoutFail({ duration: "45 seconds", onTimeout: () => "the CLI did not finish" }),
    Effect.scoped
  )

/** The line the CLI prints once it serves; its group is the server's URL. */
export const listening = /chaos server listening on (http:\/\/127\.0\.0\.1:\d+)/

/** The URL a running CLI prints, once it has printed it (polled every 20 ms). */
export const urlOnceListening = (stdout: () => string): Effect.Effect<string, string> =>
  Effect.sync(() => listening.exec(stdout())?.[1]).pipe(
    Effect.filterOrFail(
      (url): url is string => url !== undefined,
      () => "the CLI never printed its URL"
    ),
    Effect.retry(Schedule.spaced("20 millis"))
  )
