/**
 * `pnpm demo:browser`'s servers: the chaos server with CORS on, and beside it, on a port of its
 * own (so another origin, as a page and its API are in production), a small static server of the
 * browser page (`browser/index.html`, and `browser/page.ts` bundled for the browser with esbuild,
 * in memory). The page runs the scenarios of `pnpm demo` against the chaos server its address
 * names, and draws each call's timeline.
 *
 * @since 0.3.0
 */
import * as Fs from "node:fs/promises"
import * as Http from "node:http"
import { fileURLToPath } from "node:url"
import { startChaosServer } from "@effect-http-resilience/chaos-server"
import * as esbuild from "esbuild"

const pageDirectory = fileURLToPath(new URL("../browser/", import.meta.url))
const host = "127.0.0.1"

/**
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /** The page server's port on 127.0.0.1; 0 (the default) picks a free one. The chaos server's is always free. */
  readonly port?: number | undefined
}

/**
 * @since 0.3.0
 * @category models
 */
export interface BrowserDemo {
  /** The page's address, naming the chaos server: `http://127.0.0.1:PORT/?server=http://127.0.0.1:PORT`. */
  readonly url: string
  readonly chaosServerUrl: string
  /** Stops both servers, closing their connections. */
  readonly close: () => Promise<void>
}

/**
 * The page's script: `browser/page.ts` and everything it imports (Effect, `@effect/platform`,
 * `effect-http-resilience`, the demo's scenarios), one minified ES module.
 */
const bundlePage = async (): Promise<string> => {
  const result = await esbuild.build({
    entryPoints: [`${pageDirectory}page.ts`],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    // The Redis store's client, loaded only when a program asks for that store: never on the page.
    external: ["redis"],
    logLevel: "warning"
  })
  const [output] = result.outputFiles
  if (output === undefined) throw new Error("esbuild produced no bundle of the page")
  return output.text
}

const listen = (server: Http.Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address()
      // Listening on a TCP port, the address is never a pipe's name.
      if (address === null || typeof address === "string") reject(new Error(`not listening on a port: ${address}`))
      else resolve(address.port)
    })
  })

const closeServer = (server: Http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve())
    // Idle keep-alive connections from the browser would hold close() open until they time out.
    server.closeAllConnections()
  })

/**
 * Answers `GET /` with the page and `GET /page.js` with its script; nothing else.
 */
const pageServer = (files: { readonly html: string; readonly script: string }): Http.Server =>
  Http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", `http://${host}`).pathname
    const file =
      path === "/" || path === "/index.html"
        ? { body: files.html, type: "text/html; charset=utf-8" }
        : path === "/page.js"
          ? { body: files.script, type: "text/javascript; charset=utf-8" }
          : undefined
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end()
    } else if (file === undefined) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n")
    } else {
      // Bundled afresh at every start: a cached copy would outlive a change to the page.
      response.writeHead(200, { "content-type": file.type, "cache-control": "no-store" })
      response.end(request.method === "HEAD" ? undefined : file.body)
    }
  })

/**
 * Bundles the page, starts the chaos server (CORS on) on a free port and the page server on
 * `options.port`, both on 127.0.0.1.
 *
 * @since 0.3.0
 * @category running
 */
export const serveBrowserDemo = async (options: Options = {}): Promise<BrowserDemo> => {
  const [html, script] = await Promise.all([Fs.readFile(`${pageDirectory}index.html`, "utf8"), bundlePage()])
  const chaos = await startChaosServer({ port: 0, cors: true })
  const server = pageServer({ html, script })
  const port = await listen(server, options.port ?? 0).catch(async (error: unknown) => {
    await chaos.close()
    throw error
  })
  let closing: Promise<void> | undefined
  return {
    // Unencoded, as a person would type it: ':' and '/' may stand in a query.
    url: `http://${host}:${port}/?server=${chaos.url}`,
    chaosServerUrl: chaos.url,
    close: () => {
      closing ??= Promise.all([closeServer(server), chaos.close()]).then(() => undefined)
      return closing
    }
  }
}

/**
 * @since 0.3.0
 * @category models
 */
export const usage = "usage: pnpm demo:browser [-- --port <PORT>]"

/**
 * Reads `[--port N]` (a `--` is ignored): the page server's port, or what to print when the command
 * line is wrong.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseArgs = (args: ReadonlyArray<string>): Options | string => {
  const rest = args.filter((arg) => arg !== "--")
  if (rest.length === 0) return {}
  const [option, value, ...more] = rest
  if (option !== "--port" || value === undefined || more.length > 0) return usage
  const port = Number(value)
  return Number.isInteger(port) && port >= 0 && port <= 65_535 ? { port } : `not a port: ${value}\n${usage}`
}
