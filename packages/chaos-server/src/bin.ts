#!/usr/bin/env tsx
/**
 * The chaos server CLI: `chaos-server [--port PORT] [--cors] [--cors-hide-headers] [--cors-allow-headers=A,B]`
 * (port 8080 by default, 0 for a free one; any `--cors` flag lets pages of other origins call it). Prints
 * `chaos server listening on http://127.0.0.1:PORT` and runs until SIGINT or SIGTERM.
 *
 * @since 0.1.0
 */
import * as Cli from "./internal/cli.js"

await Cli.main(process.argv.slice(2))
