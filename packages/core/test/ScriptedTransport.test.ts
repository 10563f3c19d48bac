import { describe, expect, it } from "vitest"
import * as ScriptedTransport from "../src/ScriptedTransport.js"

const request = (attempt: number): ScriptedTransport.ScriptedRequest => ({
  attempt,
  method: "GET",
  url: "http://localhost/",
  headers: {},
  sentAtMillis: 0
})

describe("ScriptedTransport", () => {
  it("plays a list of steps in order and repeats the last one", () => {
    const script: ScriptedTransport.Script = [{ status: 503 }, { transportError: "reset" }, { status: 200 }]
    expect([1, 2, 3, 4, 9].map((attempt) => ScriptedTransport.stepFor(script, request(attempt)))).toEqual([
      { status: 503 },
      { transportError: "reset" },
      { status: 200 },
      { status: 200 },
      { status: 200 }
    ])
  })

  it("answers by a function of the request", () => {
    const script: ScriptedTransport.Script = (seen) => ({ status: seen.attempt < 3 ? 502 : 200 })
    expect([1, 2, 3].map((attempt) => ScriptedTransport.stepFor(script, request(attempt)))).toEqual([
      { status: 502 },
      { status: 502 },
      { status: 200 }
    ])
  })

  it("makes a transport failure's cause, with its code when it has one", () => {
    const withCode = ScriptedTransport.transportCause({ transportError: "socket hang up", code: "ECONNRESET" })
    expect(withCode).toBeInstanceOf(Error)
    expect([withCode.message, withCode.code]).toEqual(["socket hang up", "ECONNRESET"])
    expect("code" in ScriptedTransport.transportCause({ transportError: "refused" })).toBe(false)
  })

  it("makes a Web Response with the status, headers and body; text/plain only when no content-type is named", async () => {
    const plain = ScriptedTransport.toWebResponse({ status: 503, headers: { "Retry-After": "2" }, body: "busy" })
    expect([plain.status, plain.headers.get("retry-after"), plain.headers.get("content-type")]).toEqual([
      503,
      "2",
      "text/plain;charset=UTF-8"
    ])
    expect(await plain.text()).toBe("busy")
    const json = ScriptedTransport.toWebResponse({
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"id":1}'
    })
    expect(json.headers.get("content-type")).toBe("application/json")
    expect(await json.json()).toEqual({ id: 1 })
    const empty = ScriptedTransport.toWebResponse({ status: 502 })
    expect([empty.headers.get("content-type"), await empty.text()]).toEqual([null, ""])
    const noContent = ScriptedTransport.toWebResponse({ status: 204, body: "ignored" })
    expect(noContent.body).toBe(null)
    expect(() => ScriptedTransport.toWebResponse({ status: 99 })).toThrow(RangeError)
  })

  it("streams a body in chunks, reports its end or its cancellation, and can break it off", async () => {
    const text = "x".repeat(ScriptedTransport.chunkBytes * 2 + 1)
    const events: Array<string> = []
    const reader = ScriptedTransport.bodyStream(text, { onEnd: () => events.push("end") }).getReader()
    const sizes: Array<number> = []
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) sizes.push(chunk.value.length)
    expect(sizes).toEqual([ScriptedTransport.chunkBytes, ScriptedTransport.chunkBytes, 1])
    expect(events).toEqual(["end"])

    const cancelled = ScriptedTransport.bodyStream(text, { onCancel: () => events.push("cancel") })
    await cancelled.cancel()
    expect(events).toEqual(["end", "cancel"])

    const broken = ScriptedTransport.toWebResponse({ status: 200, body: "partial" }, { failAfterFirstChunk: "reset" })
    await expect(broken.text()).rejects.toThrow("reset")
  })
})
