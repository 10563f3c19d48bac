import { describe, expect, it } from "vitest"
import { causeCodes, isUnrecoverableCause } from "../src/TransportFailure.js"

describe("isUnrecoverableCause", () => {
  it("finds an unrecoverable code or message anywhere in the cause chain", () => {
    const tls = Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" })
    expect(isUnrecoverableCause(new Error("fetch failed", { cause: new Error("wrapped", { cause: tls }) }))).toBe(true)
    expect(isUnrecoverableCause(new TypeError("fetch failed", { cause: new Error("redirect count exceeded") }))).toBe(
      true
    )
    expect(isUnrecoverableCause({ message: 'Protocol "ftp:" not supported' })).toBe(true)
  })

  it("fetch's file: URL, which Node's fetch has not implemented, is unrecoverable", async () => {
    const error = await fetch("file:///nowhere").then(
      () => undefined,
      (e: unknown) => e
    )
    expect(isUnrecoverableCause(error)).toBe(true)
    expect(isUnrecoverableCause(new Error("not implemented"))).toBe(false)
  })

  it("a refused or reset connection is recoverable", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET", "ETIMEDOUT"]) {
      expect(isUnrecoverableCause(new Error("fetch failed", { cause: Object.assign(new Error(code), { code }) }))).toBe(
        false
      )
    }
    expect(isUnrecoverableCause(undefined)).toBe(false)
    expect(isUnrecoverableCause("CERT_HAS_EXPIRED")).toBe(false)
  })

  it("stops on a cyclic chain, and looks no deeper than 8 causes", () => {
    const cyclic: { message: string; cause?: unknown } = { message: "loop" }
    cyclic.cause = cyclic
    expect(isUnrecoverableCause(cyclic)).toBe(false)
    let deep: unknown = { code: "CERT_REVOKED" }
    for (let i = 0; i < 8; i++) deep = { cause: deep }
    expect(isUnrecoverableCause(deep)).toBe(false)
  })
})

describe("causeCodes", () => {
  it("lists each code of the cause chain once, outermost first, within its bound", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })
    const wrapped = Object.assign(new Error("socket", { cause: refused }), { code: "UND_ERR_SOCKET" })
    expect(causeCodes(new TypeError("fetch failed", { cause: wrapped }))).toEqual(["UND_ERR_SOCKET", "ECONNREFUSED"])
    expect(causeCodes({ code: "A", cause: { code: "A", cause: { code: 7 } } })).toEqual(["A"])
    const cyclic: { code: string; cause?: unknown } = { code: "LOOP" }
    cyclic.cause = cyclic
    expect(causeCodes(cyclic)).toEqual(["LOOP"])
    expect(causeCodes(undefined)).toEqual([])
  })
})
