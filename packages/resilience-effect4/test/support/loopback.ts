// @generated from templates/test/support/loopback.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/** A node:http server of a test's own, on a free loopback port. */
import type * as Http from "node:http"

/** Listens on 127.0.0.1, port 0, and gives the server's base URL. */
export const listenOnLoopback = async (server: Http.Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
}

/** Closes the server and every connection it holds. */
export const closeLoopback = async (server: Http.Server | undefined): Promise<void> => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
}
