import { describe, expect, it } from "vitest"
import * as ResponseBody from "../src/ResponseBody.js"

describe("ResponseBody", () => {
  it("plans a release by the declared length", () => {
    expect(ResponseBody.releasePlan({ "content-length": "0" })).toBe("nothing")
    expect(ResponseBody.releasePlan({ "content-length": String(64 * 1024) })).toBe("read-whole")
    // Encoded bytes bound nothing once a transport decodes them.
    for (const encoding of ["gzip", " BR ", "deflate, gzip"]) {
      expect(ResponseBody.releasePlan({ "content-length": "100", "content-encoding": encoding })).toBe("read-at-most")
    }
    expect(ResponseBody.releasePlan({ "content-length": "100", "content-encoding": "identity" })).toBe("read-whole")
    expect(ResponseBody.releasePlan({ "content-length": String(64 * 1024 + 1) })).toBe("abort")
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
