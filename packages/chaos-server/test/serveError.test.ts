import { describe, expect, it } from "@effect/vitest"
import { ServeError } from "../src/index.js"

/** An error as node's `listen` reports it: a message, a code, a syscall. */
const nodeError = (message: string, code?: string): Error => Object.assign(new Error(message), { code })

describe("ServeError", () => {
  it("says where and why, in words then code, for the codes listen commonly fails with", () => {
    const inUse = new ServeError(
      8080,
      nodeError("listen EADDRINUSE: address already in use 127.0.0.1:8080", "EADDRINUSE")
    )
    expect(inUse.message).toBe("chaos server could not listen on 127.0.0.1:8080: address already in use (EADDRINUSE)")
    expect(inUse.code).toBe("EADDRINUSE")
    const denied = new ServeError(80, nodeError("listen EACCES: permission denied 127.0.0.1:80", "EACCES"))
    expect(denied.message).toBe("chaos server could not listen on 127.0.0.1:80: permission denied (EACCES)")
  })

  it("falls back to node's message, then its code, and is never without a reason", () => {
    expect(new ServeError(1, nodeError("listen EPERM: operation not permitted", "EPERM")).message).toBe(
      "chaos server could not listen on 127.0.0.1:1: listen EPERM: operation not permitted"
    )
    expect(new ServeError(1, nodeError("", "EPERM")).message).toBe(
      "chaos server could not listen on 127.0.0.1:1: EPERM"
    )
    const silent = new ServeError(1, new Error(""))
    expect(silent.message).toBe("chaos server could not listen on 127.0.0.1:1: node reported no reason")
    expect(silent.code).toBeUndefined()
  })
})
