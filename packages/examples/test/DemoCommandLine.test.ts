import { describe, expect, it } from "vitest"
import * as BrowserDemo from "../src/browserDemo.js"
import * as Driver from "../src/demo/Driver.js"

describe("the demo's command line", () => {
  it("reads --line and --url, and --server only as the Effect 3 process hands its chaos server on", () => {
    expect(Driver.parseArgs([])).toEqual({ _tag: "Scenarios", line: "effect3", server: undefined })
    expect(Driver.parseArgs(["--", "--line", "effect4"])).toEqual({
      _tag: "Scenarios",
      line: "effect4",
      server: undefined
    })
    expect(Driver.parseArgs(["--line", "effect4", "--url", "http://api.test/x"])).toEqual({
      _tag: "Url",
      line: "effect4",
      url: "http://api.test/x"
    })
    expect(Driver.parseArgs(["--server", "http://127.0.0.1:1"])).toMatchObject({ server: "http://127.0.0.1:1" })
    expect(Driver.parseArgs(["--url", "nope"])).toMatch(/^not a URL: nope/)
    expect(Driver.parseArgs(["--line"])).toBe(Driver.usage)
    expect(Driver.parseArgs(["--url", "http://a.test", "--server", "http://b.test"])).toBe(Driver.usage)
  })
})

describe("pnpm demo:browser's command line", () => {
  it("reads --port, a free one by default", () => {
    expect(BrowserDemo.parseArgs([])).toEqual({})
    expect(BrowserDemo.parseArgs(["--", "--port", "8080"])).toEqual({ port: 8080 })
    expect(BrowserDemo.parseArgs(["--port", "0"])).toEqual({ port: 0 })
    expect(BrowserDemo.parseArgs(["--port", "http"])).toMatch(/^not a port: http\n/)
    expect(BrowserDemo.parseArgs(["--port", "65536"])).toMatch(/^not a port: 65536\n/)
    expect(BrowserDemo.parseArgs(["--port"])).toBe(BrowserDemo.usage)
    expect(BrowserDemo.parseArgs(["--url", "http://a.test"])).toBe(BrowserDemo.usage)
  })
})
