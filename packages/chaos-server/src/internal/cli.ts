import * as Util from "node:util"
import { type CorsOptions, startChaosServer } from "../startChaosServer.js"
import { headerNameProblem } from "./cors.js"

const defaultPort = 8080

const usage = `usage: chaos-server [--port PORT] [--cors] [--cors-hide-headers] [--cors-allow-headers=A,B]

Starts the fault-injecting HTTP server on 127.0.0.1 and runs until SIGINT or SIGTERM.

options:
  -p, --port PORT               TCP port, 0 for a free one (default ${defaultPort})
  --cors                        answer pages of other origins: CORS headers on every answer, preflights
                                answered 204 (and not counted as requests)
  --cors-hide-headers           CORS on, but Retry-After, X-Attempt and the like are not exposed to pages
  --cors-allow-headers=A,B,...  CORS on, preflights allow these request headers only ("any": whatever is asked)
  -h, --help                    show this help`

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

/**
 * What to do. `cors` is undefined when no CORS flag was given (CORS off).
 *
 * @internal
 */
export type Command =
  | { readonly _tag: "Help" }
  | { readonly _tag: "Serve"; readonly port: number; readonly cors: CorsOptions | undefined }

const usageError = (message: string): UsageError => ({ _tag: "UsageError", message })

interface CorsFlags {
  readonly cors?: boolean | undefined
  readonly "cors-hide-headers"?: boolean | undefined
  readonly "cors-allow-headers"?: string | undefined
}

/** The CORS options the flags ask for: undefined (off) without any of them. */
type CorsChoice = { readonly _tag: "Cors"; readonly options: CorsOptions | undefined } | UsageError

/** The CORS options the flags ask for (any of them turns CORS on), or why they cannot be followed. */
const corsOf = (flags: CorsFlags): CorsChoice => {
  const hide = flags["cors-hide-headers"] === true
  const rawAllowed = flags["cors-allow-headers"]
  if (flags.cors !== true && !hide && rawAllowed === undefined) return { _tag: "Cors", options: undefined }
  const exposeHeaders = hide ? { exposeHeaders: false } : {}
  if (rawAllowed === undefined || rawAllowed === "any") return { _tag: "Cors", options: exposeHeaders }
  const names = rawAllowed.split(",").map((name) => name.trim())
  for (const name of names) {
    const problem = headerNameProblem(name)
    if (problem !== undefined) {
      return usageError(
        `--cors-allow-headers takes "any" or header names separated by commas, got ${JSON.stringify(rawAllowed)}: ${problem}`
      )
    }
  }
  return { _tag: "Cors", options: { ...exposeHeaders, allowHeaders: names } }
}

/** @internal */
export const parseArguments = (args: ReadonlyArray<string>): Command | UsageError => {
  let values: { readonly port?: string | undefined; readonly help?: boolean | undefined } & CorsFlags
  try {
    values = Util.parseArgs({
      // `pnpm chaos -- --port 8080` hands the separator through; it separates nothing here.
      args: args[0] === "--" ? args.slice(1) : [...args],
      options: {
        port: { type: "string", short: "p" },
        help: { type: "boolean", short: "h" },
        cors: { type: "boolean" },
        "cors-hide-headers": { type: "boolean" },
        "cors-allow-headers": { type: "string" }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (cause) {
    return usageError(cause instanceof Error ? cause.message : String(cause))
  }
  if (values.help === true) {
    return { _tag: "Help" }
  }
  const choice = corsOf(values)
  if (choice._tag === "UsageError") return choice
  const cors = choice.options
  if (values.port === undefined) {
    return { _tag: "Serve", port: defaultPort, cors }
  }
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN
  return port >= 0 && port <= 65_535
    ? { _tag: "Serve", port, cors }
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
      const server = await startChaosServer({ port: command.port, cors: command.cors }).catch((error: unknown) => {
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
