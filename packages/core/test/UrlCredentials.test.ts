import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as FailureMessage from "../src/FailureMessage.js"
import * as UrlCredentials from "../src/UrlCredentials.js"

const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword, "utf8").toString("base64")}`

describe("UrlCredentials", () => {
  it("turns user info into Authorization: Basic and takes it out of the URL", () => {
    expect(UrlCredentials.fromUrl("http://u:p@127.0.0.1:8080/basic-auth/u/p?x=1#f")).toEqual({
      _tag: "Basic",
      url: "http://127.0.0.1:8080/basic-auth/u/p?x=1#f",
      authorization: basic("u:p")
    })
    // A user alone (an API key as user name) is sent with an empty password, as curl sends it.
    expect(UrlCredentials.fromUrl("https://sk_test_1@api.example.com/v1")).toMatchObject({
      url: "https://api.example.com/v1",
      authorization: basic("sk_test_1:")
    })
    // The password runs to the last @ of the authority; an @ past it is not user info.
    expect(UrlCredentials.fromUrl("http://u:p@ss@host/x")).toMatchObject({
      url: "http://host/x",
      authorization: basic("u:p@ss")
    })
    expect(UrlCredentials.fromUrl("http://host/users/@me")).toBeUndefined()
    expect(UrlCredentials.fromUrl("/relative/path")).toBeUndefined()
    expect(UrlCredentials.fromUrl("http://@host/")).toEqual({ _tag: "Empty", url: "http://host/" })
  })

  it("percent-decodes user and password (RFC 3986), the password's colons and @ included", () => {
    expect(UrlCredentials.fromUrl("http://u:p%40ss@host/")).toMatchObject({ authorization: basic("u:p@ss") })
    expect(UrlCredentials.fromUrl("http://u:p%3Aw%3A@host/")).toMatchObject({ authorization: basic("u:p:w:") })
    expect(UrlCredentials.fromUrl("http://J%C3%BCrgen:%E2%82%AC@host/")).toMatchObject({
      authorization: basic("Jürgen:€")
    })
  })

  it("refuses what a Basic header cannot carry or what does not decode, saying why", () => {
    expect(UrlCredentials.fromUrl("http://a%3Ab:p@host/x")).toEqual({
      _tag: "Invalid",
      url: "http://host/x",
      problem: "colon-in-user"
    })
    expect(UrlCredentials.fromUrl("http://u:p%0A@host/")).toMatchObject({ problem: "control-character" })
    expect(UrlCredentials.fromUrl("http://u:p%ZZ@host/")).toMatchObject({ problem: "invalid-percent-encoding" })
    expect(UrlCredentials.fromUrl("http://u:%C3@host/")).toMatchObject({ problem: "invalid-percent-encoding" })
    expect(UrlCredentials.describeProblem("colon-in-user")).toContain("RFC 7617")
  })

  it("sends what curl sends, for any user and password percent-encoded (property)", () => {
    const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 })
    fc.assert(
      fc.property(text, fc.string({ unit: "grapheme", maxLength: 12 }), (user, password) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what Basic cannot carry
        fc.pre(!user.includes(":") && !/[\u0000-\u001f\u007f]/.test(user + password))
        const url = `https://${encodeURIComponent(user)}:${encodeURIComponent(password)}@api.example.com/p?q=1`
        expect(UrlCredentials.fromUrl(url)).toEqual({
          _tag: "Basic",
          url: "https://api.example.com/p?q=1",
          authorization: basic(`${user}:${password}`)
        })
      })
    )
  })

  it("a refusal's message says what to do instead, and only once", () => {
    const refused = {
      _tag: "ConnectionError",
      reason: "InvalidRequest",
      request: { method: "GET", url: "http://u:p@host/x" },
      attempt: 1,
      cause: { _tag: "UrlCredentialsRefused", message: UrlCredentials.describeProblem("refused") },
      giveUpReason: "not-retryable"
    } as const
    expect(FailureMessage.describeFailure(refused)).toBe(
      'GET http://REDACTED:REDACTED@host/x: not sent: its URL carries credentials, and urlCredentials is "refuse" (send them in an Authorization header, or set urlCredentials: "basic-auth")'
    )
  })
})
