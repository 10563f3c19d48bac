/**
 * `pnpm demo:browser [-- --port <PORT>]`: the chaos server (CORS on) and the browser page that runs
 * `pnpm demo`'s scenarios against it and draws each call's timeline; prints the page's address and
 * serves until interrupted (Ctrl-C, SIGTERM).
 */
import * as BrowserDemo from "./browserDemo.js"

const options = BrowserDemo.parseArgs(process.argv.slice(2))
if (typeof options === "string") {
  process.stderr.write(`${options}\n`)
  process.exit(1)
}

const demo = await BrowserDemo.serveBrowserDemo(options)
process.stdout.write(`chaos server on ${demo.chaosServerUrl} (CORS on)\nopen ${demo.url}\n`)

const stop = (): void => {
  demo.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`)
      process.exit(1)
    }
  )
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
