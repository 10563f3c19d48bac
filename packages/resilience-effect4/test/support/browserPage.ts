// @generated from templates/test/support/browserPage.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A page in headless Chromium (Debian's, `/usr/bin/chromium`, or `CHROMIUM_PATH`) that runs
 * this line's browser scenarios: `entry` bundled by esbuild for the browser, with this line's
 * `effect` and library, served from 127.0.0.1 on a free port. The chaos servers the scenarios
 * call are on other ports: every call is cross-origin, as from a page in production.
 *
 * The scenarios register themselves on `globalThis.browserScenarios`; `run` calls one in the
 * page and hands back what it returns (plain data). What the page logs is kept in `logs`.
 */
import { chromiumArgs, chromiumPath } from "@effect-http-resilience/conformance/chromium"
import * as Http from "node:http"
import * as esbuild from "esbuild"
import { chromium } from "playwright"

/** Scenarios by name: each takes plain data and resolves with plain data. */
export type Scenarios = Record<string, (input: never) => Promise<unknown>>

export interface BrowserPage<S extends Scenarios> {
  /** The page's origin, e.g. `http://127.0.0.1:40123`. */
  readonly origin: string
  /** Runs the scenario `name` in the page with `input`; resolves with what it returns. */
  readonly run: <K extends keyof S & string>(name: K, input: Parameters<S[K]>[0]) => Promise<Awaited<ReturnType<S[K]>>>
  /** The page's console messages, in order, as `level: text`. */
  readonly logs: Array<string>
  readonly close: () => Promise<void>
}

const page = (script: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>browser scenarios</title></head><body><script type="module">${script.replaceAll("</script", "<\\/script")}</script></body></html>`

/** Bundles `entry` (resolved from `resolveDir`), serves it, and opens it in Chromium. */
export const openBrowserPage = async <S extends Scenarios>(entry: string): Promise<BrowserPage<S>> => {
  const bundled = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "warning"
  })
  const script = bundled.outputFiles[0]?.text
  if (script === undefined) throw new Error(`esbuild produced nothing for ${entry}`)
  const html = page(script)
  const server = Http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
    response.end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the page's server has no port")
  const origin = `http://127.0.0.1:${address.port}`
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  const browser = await chromium
    .launch({ executablePath: chromiumPath, headless: true, args: [...chromiumArgs] })
    .catch(async (error: unknown) => {
      await closeServer()
      throw new Error(
        `Chromium did not start from ${chromiumPath} (install Debian's: apt-get install -y --no-install-recommends chromium): ${String(error)}`
      )
    })
  const logs: Array<string> = []
  const tab = await browser.newPage()
  tab.on("console", (message) => {
    logs.push(`${message.type()}: ${message.text()}`)
  })
  tab.on("pageerror", (error) => {
    logs.push(`pageerror: ${error.message}`)
  })
  await tab.goto(`${origin}/`)
  await tab.waitForFunction(() => "browserScenarios" in globalThis)
  return {
    origin,
    logs,
    run: (name, input) =>
      // What comes back crossed the page boundary as plain data: the scenario's declared result.
      tab.evaluate(
        ([scenario, argument]) => {
          const scenarios: unknown = Reflect.get(globalThis, "browserScenarios")
          const run: unknown =
            typeof scenarios === "object" && scenarios !== null ? Reflect.get(scenarios, scenario) : undefined
          if (typeof run !== "function") throw new Error(`no browser scenario named ${scenario}`)
          return Promise.resolve(run(argument))
        },
        [name, input] as const
      ) as Promise<Awaited<ReturnType<S[typeof name]>>>,
    close: async () => {
      await browser.close()
      await closeServer()
    }
  }
}
