import { STATUS_CODES } from "node:http"
import { describe, expect, it } from "vitest"
import { reasonPhrase } from "../src/demo/ReasonPhrases.js"
import * as Scenarios from "../src/demo/Scenarios.js"
import * as Timeline from "../src/demo/Timeline.js"

const scenarios = Scenarios.all("key")

const scenarioTitled = (start: string): Scenarios.Scenario => {
  const found = scenarios.find((scenario) => scenario.title.startsWith(start))
  if (found === undefined) throw new Error(`no scenario titled "${start}..."`)
  return found
}

const exhaustedConnection: Scenarios.Outcome = {
  _tag: "Failure",
  failure: Timeline.failureView(
    {
      _tag: "ConnectionError",
      attempt: 3,
      reason: "Transport",
      giveUpReason: "attempts-exhausted",
      message: "GET http://127.0.0.1:1/api/chaos/reset: transport failure on attempt 3",
      request: { method: "GET", url: "http://127.0.0.1:1/api/chaos/reset" }
    },
    undefined
  ),
  text: "transport failure"
}

describe("the demo's scenarios", () => {
  it("name statuses as Node does, without node:http (the browser page has none)", () => {
    for (const [status, phrase] of Object.entries(STATUS_CODES)) expect(reasonPhrase(Number(status))).toBe(phrase)
    expect(reasonPhrase(599)).toBeUndefined()
    expect(Timeline.describeStatus(503)).toBe("503 Service Unavailable")
    expect(Timeline.describeStatus(599)).toBe("599")
  })

  it("allow more requests than attempts after a connection reset only on a transport that resends", () => {
    const reset = scenarioTitled("A connection reset")
    const observed = { requests: 3, elapsedMillis: 500, transportResends: false }
    expect(reset.check(exhaustedConnection, observed)).toBeUndefined()
    expect(reset.check(exhaustedConnection, { ...observed, requests: 4 })).toBe("the server saw 4 requests, expected 3")
    expect(reset.check(exhaustedConnection, { ...observed, requests: 4, transportResends: true })).toBeUndefined()
    // Fewer requests than attempts is wrong whatever the transport.
    expect(reset.check(exhaustedConnection, { ...observed, requests: 2, transportResends: true })).toBe(
      "the server saw 2 requests, expected 3"
    )
  })

  it("count requests exactly where every attempt got an answer, even on a transport that resends", () => {
    const keyed = scenarioTitled("The same POST with an Idempotency-Key")
    const placed: Scenarios.Outcome = { _tag: "Success", value: "200 OK" }
    expect(keyed.check(placed, { requests: 3, elapsedMillis: 500, transportResends: true })).toBeUndefined()
    expect(keyed.check(placed, { requests: 4, elapsedMillis: 500, transportResends: true })).toBe(
      "the server saw 4 requests, expected 3"
    )
  })
})
