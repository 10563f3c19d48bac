import { describe, expect, it } from "vitest"
import * as Idempotency from "../src/Idempotency.js"

describe("Idempotency", () => {
  it("the idempotent methods of RFC 9110 and QUERY, or any method with a non-blank key", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "QUERY"]) {
      expect(Idempotency.isIdempotent({ method, headers: {} })).toBe(true)
    }
    for (const method of ["POST", "PATCH", "CONNECT", "get"]) {
      expect(Idempotency.isIdempotent({ method, headers: {} })).toBe(false)
    }
    expect(Idempotency.isIdempotent({ method: "POST", headers: { "idempotency-key": "k-1" } })).toBe(true)
    expect(Idempotency.isIdempotent({ method: "POST", headers: { "idempotency-key": " \t" } })).toBe(false)
    expect(Idempotency.isIdempotent({ method: "POST", headers: { "idempotency-key": "" } })).toBe(false)
  })

  it("replays only bodies sent from memory, whole", () => {
    const replayable: ReadonlyArray<unknown> = [
      undefined,
      null,
      "text",
      new ArrayBuffer(4),
      new Uint8Array(4),
      new DataView(new ArrayBuffer(2)),
      new Blob(["x"]),
      new URLSearchParams("a=1"),
      new FormData()
    ]
    for (const raw of replayable) expect(Idempotency.isReplayable({ _tag: "Raw", body: raw })).toBe(true)
    const oneShot: ReadonlyArray<unknown> = [
      new ReadableStream(),
      (function* () {})(),
      { [Symbol.asyncIterator]: () => ({}) },
      { some: "object" },
      42
    ]
    for (const raw of oneShot) expect(Idempotency.isReplayable({ _tag: "Raw", body: raw })).toBe(false)
    for (const tag of ["Empty", "Uint8Array", "FormData"]) expect(Idempotency.isReplayable({ _tag: tag })).toBe(true)
    for (const tag of ["Stream", "SomethingNew"]) expect(Idempotency.isReplayable({ _tag: tag })).toBe(false)
    expect(Idempotency.hasOneShotBody({ body: { _tag: "Stream" } })).toBe(true)
  })
})
