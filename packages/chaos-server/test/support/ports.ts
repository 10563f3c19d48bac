import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Net from "node:net"

/**
 * A port of 127.0.0.1 held by a plain TCP server (listening on port 0, so a free one) until the scope closes:
 * a port in use that is not a chaos server's.
 */
export const occupiedPort: Effect.Effect<number, never, Scope.Scope> = Effect.acquireRelease(
  Effect.async<Net.Server>((resume) => {
    const server = Net.createServer((socket) => socket.destroy())
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
).pipe(
  Effect.flatMap((server) => {
    const address = server.address()
    return address === null || typeof address === "string"
      ? Effect.dieMessage("the TCP server reported no TCP address")
      : Effect.succeed(address.port)
  })
)

/** The message a chaos server's `ServeError` gives for a port in use. */
export const addressInUse = (port: number): string =>
  `chaos server could not listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)`
