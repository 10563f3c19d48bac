import * as Util from "node:util"
import { startChaosServer } from "../startChaosServer.js"

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
export interface UsageError {
  readonly _tag: "UsageError"
  readonly message: string
}

/** @internal */
export type Command = { readonly _tag: "Help" } | { readonly _tag: "Serve"; readonly port: number }

const usageError = (message: string): UsageError => ({ _tag: "UsageError", message })

/** @internal */
export const parseArguments = (args: ReadonlyArray<string>): Command | UsageError => {
  let values: { readonly port?: string | undefined; readonly help?: boolean | undefined }
  try {
    values = Util.parseArgs({
      // `pnpm chaos -- --port 8080` hands the separator through; it separates nothing here.
      args: args[0] === "--" ? args.slice(1) : [...args],
      options: { port: { type: "string", short: "p" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false
    }).values
  } catch (cause) {
    return usageError(cause instanceof Error ? cause.message : String(cause))
  }
  if (values.help === true) {
    return { _tag: "Help" }
  }
  if (values.port === undefined) {
    return { _tag: "Serve", port: defaultPort }
  }
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
  return port >= 0 && port <= 65_535
    ? { _tag: "Serve", port }
    : usageError(`--port must be an integer between 0 and 65535, got "${values.port}"`)
}

/**
 * The CLI: serves until SIGINT or SIGTERM (then closes the server, hanging requests included, and exits 0),
 * prints the usage and exits 2 on misuse, and exits 1 when the server cannot start, printing why (a `ServeError`:
 * the port is in use or not allowed).
 *
 * @internal
 */
export const main = async (args: ReadonlyArray<string>): Promise<void> => {
  const command = parseArguments(args)
  switch (command._tag) {
    case "UsageError":
      console.error(`chaos-server: ${command.message}\n\n${usage}`)
      process.exitCode = 2
      return
    case "Help":
      console.log(usage)
      return
    case "Serve": {
      const server = await startChaosServer({ port: command.port }).catch((error: unknown) => {
        console.error(`chaos-server: ${error instanceof Error ? error.message : String(error)}`)
        process.exitCode = 1
        return undefined
      })
      if (server === undefined) return
      const stop = () => {
        process.off("SIGINT", stop)
        process.off("SIGTERM", stop)
        // Closing destroys every connection, so it never waits on a client; exiting then leaves nothing behind.
        server.close().then(() => process.exit(0))
      }
      process.on("SIGINT", stop)
      process.on("SIGTERM", stop)
      console.log(`chaos server listening on ${server.url}`)
    }
  }
}
