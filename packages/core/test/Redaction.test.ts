import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as FailureMessage from "../src/FailureMessage.js"
import * as Origin from "../src/Origin.js"
import * as Redaction from "../src/Redaction.js"
import * as Telemetry from "../src/Telemetry.js"

const names = Redaction.defaultUrlParamNames

describe("Redaction", () => {
  it("redacts user info and the default signing and secret parameters, with Effect 4's UrlParams.redactUrl rules", () => {
    expect(Redaction.redactUrl("http://user:hunter2@host/x?api_key=T&Signature=S&page=2", names)).toBe(
      "http://REDACTED:REDACTED@host/x?api_key=REDACTED&Signature=REDACTED&page=2"
    )
    // OpenTelemetry's names alone are Effect 4's defaults.
    expect(Redaction.redactUrl("http://host/x?api_key=T&Signature=S", Redaction.openTelemetryUrlParamNames)).toBe(
      "http://host/x?api_key=T&Signature=REDACTED"
    )
    expect(Redaction.redactUrl("https://host/f?X-Amz-Signature=a&x-amz-credential=b&SIG=c#frag", names)).toBe(
      "https://host/f?X-Amz-Signature=REDACTED&x-amz-credential=REDACTED&SIG=REDACTED#frag"
    )
    // An encoded name is matched decoded; a query inside the fragment is not a query.
    expect(Redaction.redactUrl("https://host/f?%53ignature=a", names)).toBe("https://host/f?%53ignature=REDACTED")
    expect(Redaction.redactUrl("https://host/f#?Signature=a", names)).toBe("https://host/f#?Signature=a")
    // User info only: with no names the query is kept; an @ past the authority is not user info.
    expect(Redaction.redactUrl("https://u@host/f?sig=a", [])).toBe("https://REDACTED:REDACTED@host/f?sig=a")
    expect(Redaction.redactUrl("https://host/users/@me?x=1", names)).toBe("https://host/users/@me?x=1")
    expect(Redaction.redactUrl("//u:p@host/f", names)).toBe("//REDACTED:REDACTED@host/f")
  })

  it("matches names whole ignoring case, with _ and - alike, and regular expressions anywhere", () => {
    expect(Redaction.isRedactedName("SIGNATURE", ["Signature"])).toBe(true)
    expect(Redaction.isRedactedName("Signatures", ["Signature"])).toBe(false)
    expect(Redaction.isRedactedName("X-API-Key", ["x_api_key"])).toBe(true)
    expect(Redaction.isRedactedName("client-secret", names)).toBe(true)
    expect(Redaction.isRedactedName("keys", names)).toBe(false)
    expect(Redaction.isRedactedName("x_api_key", [/api_key/])).toBe(true)
    expect(Redaction.isRedactedName("x_api_key", [/api_key/])).toBe(true)
    expect(
      Redaction.redactHeaders({ authorization: "Bearer x", accept: "text/plain" }, Redaction.defaultHeaderNames)
    ).toEqual({ authorization: "REDACTED", accept: "text/plain" })
  })

  it("always redacts the headers that carry credentials, whatever the names given", () => {
    const headers = { authorization: "Basic x", "proxy-authorization": "Basic y", cookie: "sid=z", "x-api-key": "k" }
    expect(Redaction.redactHeaders(headers, [])).toEqual({
      authorization: "REDACTED",
      "proxy-authorization": "REDACTED",
      cookie: "REDACTED",
      "x-api-key": "k"
    })
    expect(Redaction.redactHeaders(headers, Redaction.defaultHeaderNames)["x-api-key"]).toBe("REDACTED")
  })

  it("redacts a value: a string's URL secrets, a string under a secret's name, nothing else", () => {
    expect(Redaction.redactValue("https://u:p@host/x?sig=s&page=2")).toBe(
      "https://REDACTED:REDACTED@host/x?sig=REDACTED&page=2"
    )
    expect(Redaction.redactValue("plain")).toBe("plain")
    expect(Redaction.redactValue("hunter2", "client_secret")).toBe("REDACTED")
    expect(Redaction.redactValue("hunter2", "Cookie")).toBe("REDACTED")
    expect(Redaction.redactValue("1 second", "window")).toBe("1 second")
    expect(Redaction.redactValue(7, "password")).toBe(7)
  })

  it("never writes a URL's password or a named parameter's value (property)", () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/)
    fc.assert(
      fc.property(word, word, word, fc.constantFrom(...names), (user, password, secret, name) => {
        const url = `https://${user}:${password}PW@api.example.com/p?${name}=${secret}SECRET&a=1`
        const written = Redaction.redactUrl(url, names)
        expect(written).not.toContain(`${password}PW`)
        expect(written).not.toContain(`${secret}SECRET`)
        expect(written.endsWith("&a=1")).toBe(true)
      })
    )
  })

  it("redacts the secret names APIs use by default, and keeps the rest of a query", () => {
    const secrets = [
      "api_key=a",
      "apikey=b",
      "key=c",
      "access_token=d",
      "token=e",
      "refresh-token=f",
      "id_token=g",
      "Client_Secret=h",
      "secret=i",
      "password=j",
      "passwd=k",
      "pwd=l",
      "auth=m",
      "authorization=n",
      "session=o",
      "sessionid=p",
      "signature=q",
      "credentials=r",
      "private_key=s",
      "X-Api-Key=t"
    ]
    const url = `https://api.example.com/v1?${secrets.join("&")}&page=2&q=token`
    const written = Redaction.redactUrl(url, names)
    for (const secret of secrets) {
      const [name] = secret.split("=")
      expect(written).toContain(`${name}=REDACTED`)
    }
    expect(written.endsWith("&page=2&q=token")).toBe(true)
    expect(Redaction.redactsQuery(url, names)).toBe(true)
    expect(Redaction.redactsQuery("https://api.example.com/v1?page=2&q=token#key=1", names)).toBe(false)
    expect(Redaction.redactsQuery(url, [])).toBe(false)
  })

  it("keeps a URL with nothing to redact as written (property)", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        fc.pre(!url.includes("@") && !Redaction.redactsQuery(url, names))
        expect(Redaction.redactUrl(url, names)).toBe(url)
      })
    )
  })

  it("failure messages, decision events and origin keys are written redacted by default", () => {
    const request = { method: "GET", url: "http://u:pw@host/x?Signature=S" }
    expect(FailureMessage.describeFailure({ _tag: "TransientStatus", request, attempt: 1, status: 503 })).toBe(
      "GET http://REDACTED:REDACTED@host/x?Signature=REDACTED: status 503 on attempt 1"
    )
    const event = Telemetry.decisionEvent(
      {
        _tag: "GiveUp",
        reason: "not-retryable",
        failure: { _tag: "TransientStatus", request, attempt: 1, status: 503 }
      },
      undefined
    )
    expect(event.attributes["url.full"]).toBe("http://REDACTED:REDACTED@host/x?Signature=REDACTED")
    expect(Origin.originOf("http://u:pw@host/x?Signature=S")).toBe("http://host:80")
    // Not absolute ("u:pw@..." would parse, as scheme "u:", keyed "u://"): no query, no user info.
    expect(Origin.originOf("u:pw@host/x")).toBe("u://")
    expect(Origin.originOf("pw@host/x?Signature=S")).toBe("REDACTED:REDACTED@host/x")
  })
})
