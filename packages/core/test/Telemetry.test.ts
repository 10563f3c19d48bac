import { describe, expect, it } from "vitest"
import {
  cappedOriginAttributes,
  maxOriginLabelValues,
  methodAttribute,
  originAttributes,
  overflowAttributes,
  overflowValue
} from "../src/Telemetry.js"

describe("origin attributes with a cap on distinct origins", () => {
  it("gives the first origins their own attributes and later ones the overflow's, _OTHER", () => {
    const labels = cappedOriginAttributes((attributes) => ({ ...attributes }), 2)
    const a = labels.of("https://a.example:443")
    expect(a).toEqual(originAttributes("https://a.example:443"))
    expect(labels.of("http://b.example:80")).toEqual(originAttributes("http://b.example:80"))
    expect(labels.of("http://c.example:80")).toBe(labels.overflow)
    expect(labels.overflow).toEqual({ "server.address": "_OTHER", "url.scheme": "_OTHER", "server.port": "_OTHER" })
    expect(overflowValue).toBe("_OTHER")
    expect(labels.overflow).toEqual(overflowAttributes)
    // A labelled origin keeps its attributes, the same value each time.
    expect(labels.of("https://a.example:443")).toBe(a)
    expect(labels.size()).toBe(2)
  })

  it("caps at 1000 origins by default", () => {
    expect(maxOriginLabelValues).toBe(1000)
    let made = 0
    const labels = cappedOriginAttributes((attributes) => {
      made++
      return attributes
    })
    const distinct = new Set<Readonly<Record<string, string>>>()
    for (let i = 0; i < 5000; i++) distinct.add(labels.of(`http://h${i}.test:80`))
    expect(labels.size()).toBe(1000)
    expect(distinct.size).toBe(1001) // 1000 origins and the overflow
    expect(made).toBe(1001)
  })
})

describe("methodAttribute", () => {
  it("keeps the standard methods and folds any other into _OTHER, as OpenTelemetry does", () => {
    for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]) {
      expect(methodAttribute(method)).toBe(method)
    }
    expect(methodAttribute("PURGE")).toBe("_OTHER")
    expect(methodAttribute("get")).toBe("_OTHER")
  })
})
