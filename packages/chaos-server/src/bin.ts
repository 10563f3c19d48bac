#!/usr/bin/env tsx
/**
 * The chaos server CLI: `chaos-server [--port PORT]` (default 8080, 0 for a free port). Prints
 * `chaos server listening on http://127.0.0.1:PORT` and runs until SIGINT or SIGTERM.
 *
 * @since 0.1.0
 */
import * as Cli from "./internal/cli.js"

await Cli.main(process.argv.slice(2))
