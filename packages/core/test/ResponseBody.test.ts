import { describe, expect, it } from "vitest"
import * as ResponseBody from "../src/ResponseBody.js"

describe("ResponseBody", () => {
  it("plans a release by the declared length", () => {
    expect(ResponseBody.releasePlan({ "content-length": "0" })).toBe("nothing")
    // Up to one socket read's worth is read whole; above, read and dropped up to the cap; past the cap, aborted.
    expect(ResponseBody.releasePlan({ "content-length": String(ResponseBody.wholeReadMaxBytes) })).toBe("read-whole")
    expect(ResponseBody.releasePlan({ "content-length": String(ResponseBody.wholeReadMaxBytes + 1) })).toBe(
      "read-at-most"
    )
    expect(ResponseBody.releasePlan({ "content-length": String(ResponseBody.drainMaxBytes) })).toBe("read-at-most")
    expect(ResponseBody.drainMaxBytes).toBe(128 * 1024)
    // Encoded bytes bound nothing once a transport decodes them.
    for (const encoding of ["gzip", " BR ", "deflate, gzip"]) {
      expect(ResponseBody.releasePlan({ "content-length": "100", "content-encoding": encoding })).toBe("read-at-most")
    }
    expect(ResponseBody.releasePlan({ "content-length": "100", "content-encoding": "identity" })).toBe("read-whole")
    expect(ResponseBody.releasePlan({ "content-length": String(ResponseBody.drainMaxBytes + 1) })).toBe("abort")
    expect(ResponseBody.releasePlan({ "content-length": "nope" })).toBe("read-at-most")
    expect(ResponseBody.releasePlan({})).toBe("read-at-most")
  })

  it("collects chunks and cuts them at a limit; a snippet drops a character cut in two", () => {
    const collected = new ResponseBody.Collected()
    collected.push(new TextEncoder().encode("ab")).push(new TextEncoder().encode("cd"))
    expect(collected.size).toBe(4)
    expect(collected.text(3)).toBe("abc")
    const long = new ResponseBody.Collected().push(
      new TextEncoder().encode(`${"x".repeat(ResponseBody.snippetMaxBytes - 1)}é!`)
    )
    expect(ResponseBody.snippet(long)).toBe("x".repeat(ResponseBody.snippetMaxBytes - 1))
    expect(ResponseBody.snippet(undefined)).toBe("")
  })
})
