import type { Teardown } from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Util from "node:util"
import * as ChaosServer from "../ChaosServer.js"

/** @internal */
export const defaultPort = 8080

/** @internal */
export const usage = `usage: chaos-server [--port PORT]

Starts the fault-injecting HTTP server on 127.0.0.1 and runs until SIGINT or SIGTERM.

options:
  -p, --port PORT  TCP port, 0 for a free one (default ${defaultPort})
  -h, --help       show this help`

/**
 * Command-line arguments the CLI cannot act on. The CLI answers with the usage text and exit code 2, the
 * convention for misuse of a command.
 *
 * @internal
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** @internal */
export type Command = { readonly _tag: "Help" } | { readonly _tag: "Serve"; readonly port: number }

/** @internal */
export const parseArguments = (args: ReadonlyArray<string>): Effect.Effect<Command, UsageError> =>
  Effect.try({
    try: () =>
      Util.parseArgs({
        // `pnpm chaos -- --port 8080` hands the separator through; it separates nothing here.
        args: args[0] === "--" ? args.slice(1) : [...args],
        options: { port: { type: "string", short: "p" }, help: { type: "boolean", short: "h" } },
        strict: true,
        allowPositionals: false
      }).values,
    catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message : String(cause) })
  }).pipe(
    Effect.flatMap((values): Effect.Effect<Command, UsageError> => {
      if (values.help === true) {
        return Effect.succeed({ _tag: "Help" })
      }
      if (values.port === undefined) {
        return Effect.succeed({ _tag: "Serve", port: defaultPort })
      }
      const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
      return port >= 0 && port <= 65_535
        ? Effect.succeed({ _tag: "Serve", port })
        : Effect.fail(
            new UsageError({ message: `--port must be an integer between 0 and 65535, got "${values.port}"` })
          )
    })
  )

const serve = (port: number) =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    yield* Console.log(`chaos server listening on ${server.url}`)
    return yield* Effect.never
  }).pipe(Effect.provide(ChaosServer.layer({ port })))

/**
 * The CLI program: serves until interrupted (by SIGINT or SIGTERM through `NodeRuntime.runMain`), prints the
 * usage on misuse, and reports any other failure itself since `runMain` runs with error reporting disabled.
 *
 * @internal
 */
export const program = (args: ReadonlyArray<string>) =>
  Effect.flatMap(parseArguments(args), (command) =>
    command._tag === "Help" ? Console.log(usage) : serve(command.port)
  ).pipe(
    Effect.tapError((error) =>
      error._tag === "UsageError" ? Console.error(`chaos-server: ${error.message}\n\n${usage}`) : Effect.void
    ),
    Effect.tapErrorCause((cause) =>
      Cause.isInterruptedOnly(cause) || Option.exists(Cause.failureOption(cause), isUsageError)
        ? Effect.void
        : Effect.logError("chaos server failed", cause)
    )
  )

const isUsageError = (error: unknown): error is UsageError => error instanceof UsageError

/**
 * Exit code 2 for misuse, 1 for any other failure, 0 after an interrupt.
 *
 * @internal
 */
export const teardown: Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), isUsageError)) {
    onExit(2)
  } else {
    onExit(Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : 0)
  }
}
