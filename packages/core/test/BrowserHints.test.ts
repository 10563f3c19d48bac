import { describe, expect, it } from "vitest"
import * as BrowserHints from "../src/BrowserHints.js"

const page = "http://127.0.0.1:5173"

describe("BrowserHints", () => {
  it("knows no page under Node", () => {
    expect(BrowserHints.pageOrigin()).toBeUndefined()
  })

  it("tells cross-origin calls from same-origin ones, relative URLs included", () => {
    expect(BrowserHints.isCrossOrigin("http://127.0.0.1:8080/api", page)).toBe(true)
    expect(BrowserHints.isCrossOrigin("http://127.0.0.1:5173/api", page)).toBe(false)
    expect(BrowserHints.isCrossOrigin("/api/items", page)).toBe(false)
    expect(BrowserHints.isCrossOrigin("http://[bad", page)).toBe(false)
  })

  it("finds a TypeError anywhere in a cause chain, and stops on a cyclic one", () => {
    expect(BrowserHints.isFetchTypeError(new TypeError("Failed to fetch"))).toBe(true)
    expect(BrowserHints.isFetchTypeError({ reason: "Transport", cause: { cause: new TypeError("Load failed") } })).toBe(
      true
    )
    expect(BrowserHints.isFetchTypeError(new Error("connect ECONNREFUSED"))).toBe(false)
    const cyclic: { cause?: unknown } = {}
    cyclic.cause = cyclic
    expect(BrowserHints.isFetchTypeError(cyclic)).toBe(false)
  })

  it("hints at a hidden Retry-After on a cross-origin 429 or 503 only", () => {
    const hidden = BrowserHints.hintFor(
      { _tag: "Status", url: "http://127.0.0.1:8080/api", status: 429, retryAfterReadable: false },
      page
    )
    expect(hidden?.origin).toBe("http://127.0.0.1:8080")
    expect(hidden?.message).toContain('"Access-Control-Expose-Headers: Retry-After"')
    expect(hidden?.message).toContain("429 from http://127.0.0.1:8080 without a readable Retry-After")
    const status = (url: string, code: number, readable: boolean) =>
      BrowserHints.hintFor({ _tag: "Status", url, status: code, retryAfterReadable: readable }, page)
    expect(status("http://127.0.0.1:8080/api", 503, false)).toBeDefined()
    expect(status("http://127.0.0.1:8080/api", 429, true)).toBeUndefined()
    expect(status("http://127.0.0.1:8080/api", 500, false)).toBeUndefined()
    expect(status("/api", 429, false)).toBeUndefined()
    expect(
      BrowserHints.hintFor(
        { _tag: "Status", url: "http://127.0.0.1:8080/api", status: 429, retryAfterReadable: false },
        undefined
      )
    ).toBeUndefined()
  })

  it("hints at CORS and, when the platform adds them, the tracing headers on a fetch TypeError", () => {
    const traced = BrowserHints.hintFor(
      {
        _tag: "TransportTypeError",
        url: "http://127.0.0.1:8080/api",
        tracerPropagation: true,
        turnOffTracing: "HttpClient.withTracerPropagation(false)"
      },
      page
    )
    expect(traced?.message).toContain("HttpClient.withTracerPropagation(false)")
    expect(traced?.message).toContain("may have received and acted on the request")
    const untraced = BrowserHints.hintFor(
      {
        _tag: "TransportTypeError",
        url: "http://127.0.0.1:8080/api",
        tracerPropagation: false,
        turnOffTracing: "HttpClient.withTracerPropagation(false)"
      },
      page
    )
    expect(untraced?.message).not.toContain("withTracerPropagation")
    expect(untraced?.message).toContain("Access-Control-Allow-Origin")
  })

  it("gives each hint once, and forgets all past its bound", () => {
    const given = new BrowserHints.GivenOnce(2)
    expect([given.first("a"), given.first("a"), given.first("b")]).toEqual([true, false, true])
    expect(given.first("c")).toBe(true)
    expect(given.first("a")).toBe(true)
  })
})
