// @generated from templates/test/redaction.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Secrets never reach what the library writes (issue #17, item 2; issue #32, item 2): for a URL
 * with user info and secret query parameters, the failure's message and `Cause.pretty`, its JSON,
 * the `url.full` of the decisions' span events and debug log lines, and the metric labels, with
 * the default names (OpenTelemetry's and the names APIs put secrets in) and with names
 * configured through `Redaction.withRedactedUrlParams`. The user info itself is sent as a header
 * (`urlCredentials`), so the URL written has none; refused, it is written `REDACTED:REDACTED`.
 * Issue #40, item 4: the platform's errors the library hands back (`layerHttpClient`) or keeps
 * as a cause, the `authorization`, `proxy-authorization` and `cookie` headers whatever the
 * platform's names, and every `InvalidRetryPolicy`, written every way, inside a fiber and
 * outside any. Over a real transport, its span included: `e2e/redaction.e2e.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, Metric, MetricState, Option } from "effect"
import { Headers, HttpClient, HttpClientRequest } from "@effect/platform"
import * as Util from "node:util"
import * as Redaction from "../src/Redaction.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

const secrets = ["hunter2", "TOKEN123", "SIG456", "AMZSIG", "AUTHSECRET"]
const host = "redaction.example.test"
const url = `http://user:hunter2@${host}/x?api_key=TOKEN123&Signature=SIG456&X-Amz-Signature=AMZSIG&page=2`
// The user info went to the Authorization header (the caller's own, here, which wins).
const redacted = `http://${host}/x?api_key=REDACTED&Signature=REDACTED&X-Amz-Signature=REDACTED&page=2`

const policy = { maxAttempts: 2, backoff: RetryPolicy.constant(0), retryBudget: "none" } as const

interface Written {
  readonly message: string
  readonly pretty: string
  readonly json: string
  readonly events: ReadonlyArray<Record<string, unknown>>
  readonly logs: ReadonlyArray<Record<string, unknown>>
}

// One failed call (503, retried, 503 again), with what it wrote captured.
const failedCall = (target: string, options: RetryPolicy.Options = policy) =>
  Effect.gen(function* () {
    const events: Array<Record<string, unknown>> = []
    const logs: Array<Record<string, unknown>> = []
    const scripted = yield* Testing.scriptedHttpClient([{ status: 503 }, { status: 503 }])
    const client = scripted.client.pipe(ResilientHttpClient.withResilience(options))
    const request = HttpClientRequest.get(target, { headers: { authorization: "Bearer AUTHSECRET" } })
    const capture = Logger.make(({ annotations }) => {
      logs.push(Object.fromEntries(annotations))
    })
    const exit = yield* Effect.gen(function* () {
      const span = yield* Effect.currentSpan
      const event = span.event.bind(span)
      span.event = (name, startTime, attributes) => {
        events.push({ name, ...attributes })
        event(name, startTime, attributes)
      }
      return yield* Effect.exit(Effect.scoped(client.execute(request)))
    }).pipe(
      Effect.withSpan("caller"),
      Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    )
    if (Exit.isSuccess(exit)) return yield* Effect.die("the call should have failed")
    const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
    if (failure === undefined) return yield* Effect.die(`no failure in ${Cause.pretty(exit.cause)}`)
    const written: Written = {
      message: failure.message,
      pretty: Cause.pretty(exit.cause),
      json: JSON.stringify(failure),
      events,
      logs
    }
    return written
  })

describe("Effect 3 redaction of what the library writes", () => {
  it.effect("a failure's message and Cause.pretty redact the signing and secret parameters", () =>
    Effect.gen(function* () {
      const written = yield* failedCall(url)
      expect(written.message).toBe(`GET ${redacted}: status 503 on attempt 2; gave up after 2 attempts`)
      expect(written.pretty).toContain(`GET ${redacted}: status 503`)
      for (const secret of secrets) {
        expect(written.message).not.toContain(secret)
        expect(written.pretty).not.toContain(secret)
      }
    })
  )

  it.effect('user info refused (urlCredentials: "refuse") is written REDACTED:REDACTED', () =>
    Effect.gen(function* () {
      const written = yield* failedCall(url, { ...policy, urlCredentials: "refuse" })
      expect(written.message).toBe(
        `GET http://REDACTED:REDACTED@${host}/x?api_key=REDACTED&Signature=REDACTED&X-Amz-Signature=REDACTED&page=2: not sent: its URL carries credentials, and urlCredentials is "refuse" (send them in an Authorization header, or set urlCredentials: "basic-auth")`
      )
      for (const secret of secrets) {
        expect(JSON.stringify(written)).not.toContain(secret)
      }
    })
  )

  it.effect("span events and debug log lines carry the redacted url.full", () =>
    Effect.gen(function* () {
      const written = yield* failedCall(url)
      // The decisions' events, and the log lines Effect's tracer adds as events too.
      expect(new Set(written.events.map((event) => event.name))).toEqual(new Set(["retrying", "giving up"]))
      expect(new Set(written.events.map((event) => event["url.full"]))).toEqual(new Set([redacted]))
      expect(written.logs.map((annotations) => annotations["url.full"])).toEqual([redacted, redacted])
      for (const secret of secrets) {
        expect(JSON.stringify(written.events)).not.toContain(secret)
        expect(JSON.stringify(written.logs)).not.toContain(secret)
      }
    })
  )

  it.effect("a failure as JSON shows its request's URL and headers redacted", () =>
    Effect.gen(function* () {
      const written = yield* failedCall(url)
      const json: unknown = JSON.parse(written.json)
      expect(json).toMatchObject({ _tag: "TransientStatus", attempt: 2, status: 503 })
      for (const secret of secrets) expect(written.json).not.toContain(secret)
      // The platform writes a request's URL as it is (Effect 3), or redacted by its own names
      // (Effect 4, OpenTelemetry's): the failure writes it redacted by the library's.
      expect(json).toMatchObject({ request: { url: redacted } })
      expect(json).toMatchObject({ request: { headers: { authorization: "REDACTED" } } })
      expect(Util.inspect(JSON.parse(written.json))).not.toContain("hunter2")
    })
  )

  it.effect("names configured with withRedactedUrlParams replace the defaults, or extend them", () =>
    Effect.gen(function* () {
      const written = yield* failedCall(url).pipe(Redaction.withRedactedUrlParams(["API-KEY", /^x-amz/i]))
      const configured = `http://${host}/x?api_key=REDACTED&Signature=SIG456&X-Amz-Signature=REDACTED&page=2`
      expect(written.message).toContain(configured)
      expect(new Set(written.events.map((event) => event["url.full"]))).toEqual(new Set([configured]))
      expect(written.logs.map((annotations) => annotations["url.full"])).toEqual([configured, configured])
      const extended = yield* failedCall(`${url}&page_token=PAGE9`).pipe(
        Redaction.withRedactedUrlParams([...Redaction.defaultUrlParamNames, "page_token"])
      )
      expect(extended.message).toContain(`${redacted}&page_token=REDACTED`)
    })
  )

  it.effect(
    "withRedactedUrlParams([]) turns query redaction off; user info is still redacted; outside a fiber the defaults apply",
    () =>
      Effect.gen(function* () {
        const written = yield* failedCall(url).pipe(Redaction.withRedactedUrlParams([]))
        expect(written.message).toContain(`http://${host}/x?api_key=TOKEN123&Signature=SIG456`)
        expect(Redaction.redactUrl(url)).toBe(
          `http://REDACTED:REDACTED@${host}/x?api_key=REDACTED&Signature=REDACTED&X-Amz-Signature=REDACTED&page=2`
        )
      })
  )

  it.effect("metric labels carry the origin only: no user info, no query", () =>
    Effect.gen(function* () {
      yield* failedCall(url)
      // Not an absolute URL: its own key, without the query and the user info.
      yield* failedCall(`user:hunter2@${host}/y?Signature=SIG456`).pipe(Effect.ignore)
      const labels = (yield* Metric.snapshot).flatMap((pair) =>
        MetricState.isCounterState(pair.metricState) ? pair.metricKey.tags.map((tag) => tag.value) : []
      )
      expect(labels).toContain(host)
      for (const secret of secrets) expect(labels.filter((label) => label.includes(secret))).toEqual([])
    })
  )
})

// Every way an error is written: its message, as a string, as JSON, by node's inspect, and in
// `Cause.pretty`; inside the fiber, and outside any (an error logged once the program ended).
const writtenForms = (error: unknown) => {
  const forms = () => [
    error instanceof Error ? error.message : "",
    String(error),
    JSON.stringify(error),
    Util.inspect(error, { depth: 10 }),
    Cause.pretty(Cause.fail(error))
  ]
  return Effect.map(
    Effect.promise(() => Promise.resolve().then(forms)),
    (outside) => [...forms(), ...outside]
  )
}

const errorOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("the call should have failed")
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
  if (failure === undefined) throw new Error(`no failure in ${Cause.pretty(exit.cause)}`)
  return failure
}

const expectNone = (forms: ReadonlyArray<string>, secrets: ReadonlyArray<string>) => {
  for (const form of forms) for (const secret of secrets) expect(form).not.toContain(secret)
}

describe("Effect 3 redaction of the platform's errors, of credential headers, of bad options", () => {
  const basic = Buffer.from("user:hunter2").toString("base64")
  const ownHeaders = { "proxy-authorization": "Basic PROXYSECRET", cookie: "sid=COOKIESECRET" }
  const credentials = ["hunter2", basic, "PROXYSECRET", "COOKIESECRET", "TOKEN123"]
  const once = { maxAttempts: 1, retryBudget: "none" } as const

  const platformClient = (transport: Layer.Layer<HttpClient.HttpClient>, policy: RetryPolicy.Options = once) =>
    Effect.provide(HttpClient.HttpClient, ResilientHttpClient.layerHttpClient(policy).pipe(Layer.provide(transport)))

  it.effect(
    "layerHttpClient: a call refused for CR/LF in its credentials fails with the platform's InvalidUrl error, written redacted",
    () =>
      Effect.gen(function* () {
        const scripted = yield* Testing.scriptedHttpClient([{ status: 200 }])
        const client = yield* platformClient(scripted.layer)
        const error = errorOf(
          yield* Effect.exit(Effect.scoped(client.get(`http://user:hun%0D%0Ater2@${host}/x?api_key=TOKEN123`)))
        )
        expect(error).toMatchObject({ _tag: "RequestError", reason: "InvalidUrl" })
        expect(error.message).toContain(`(GET http://REDACTED:REDACTED@${host}/x?api_key=REDACTED)`)
        expect(yield* scripted.requests).toEqual([])
        expectNone(yield* writtenForms(error), ["hun%0D%0Ater2", "ter2", "TOKEN123"])
      })
  )

  it.effect(
    "layerHttpClient: a transport failure's error writes no credential: not the Authorization made from the URL, nor the request's own",
    () =>
      Effect.gen(function* () {
        const scripted = yield* Testing.scriptedHttpClient([{ transportError: "socket hang up", code: "ECONNRESET" }])
        const client = yield* platformClient(scripted.layer)
        const url = `http://user:hunter2@${host}/x?api_key=TOKEN123`
        const error = errorOf(yield* Effect.exit(Effect.scoped(client.get(url, { headers: ownHeaders }))))
        expect(error).toMatchObject({ _tag: "RequestError", reason: "Transport" })
        // The request as sent: the credentials became its Authorization header.
        expect(error.request.headers.authorization).toBe(`Basic ${basic}`)
        const json: unknown = JSON.parse(JSON.stringify(error))
        expect(json).toMatchObject({
          request: {
            url: `http://${host}/x?api_key=REDACTED`,
            headers: { authorization: "REDACTED", "proxy-authorization": "REDACTED", cookie: "REDACTED" }
          }
        })
        expect(error.message).toContain(`(GET http://${host}/x?api_key=REDACTED)`)
        expectNone(yield* writtenForms(error), credentials)
      })
  )

  it.effect(
    "withResilience: a ConnectionError and the platform's error it keeps as its cause write no credential",
    () =>
      Effect.gen(function* () {
        const scripted = yield* Testing.scriptedHttpClient([{ transportError: "socket hang up", code: "ECONNRESET" }])
        const client = ResilientHttpClient.withResilience(scripted.client, once)
        const url = `http://user:hunter2@${host}/x?api_key=TOKEN123`
        const failure = errorOf(yield* Effect.exit(Effect.scoped(client.get(url, { headers: ownHeaders }))))
        expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "Transport" })
        expect(JSON.parse(JSON.stringify(failure))).toMatchObject({
          request: { headers: { authorization: "REDACTED", "proxy-authorization": "REDACTED", cookie: "REDACTED" } }
        })
        const cause = failure._tag === "ConnectionError" ? failure.cause : undefined
        expectNone([...(yield* writtenForms(failure)), ...(yield* writtenForms(cause))], credentials)
      })
  )

  it.effect(
    "authorization, proxy-authorization and cookie stay redacted when the platform's header names leave them out",
    () =>
      Effect.gen(function* () {
        const scripted = yield* Testing.scriptedHttpClient([{ status: 503 }])
        const client = ResilientHttpClient.withResilience(scripted.client, once)
        const request = HttpClientRequest.get(`http://${host}/x`, {
          headers: { ...ownHeaders, authorization: "Bearer AUTHSECRET", "x-trace": "kept" }
        })
        const failure = errorOf(
          yield* Effect.exit(Effect.scoped(client.execute(request))).pipe(
            Effect.locally(Headers.currentRedactedNames, [])
          )
        )
        const written = yield* Effect.sync(() => JSON.parse(JSON.stringify(failure))).pipe(
          Effect.locally(Headers.currentRedactedNames, [])
        )
        expect(written).toMatchObject({
          request: {
            headers: {
              authorization: "REDACTED",
              "proxy-authorization": "REDACTED",
              cookie: "REDACTED",
              "x-trace": "kept"
            }
          }
        })
      })
  )

  it.effect(
    "an InvalidRetryPolicy writes no secret: a URL's credentials in its value, nor a value under a secret's name",
    () =>
      Effect.gen(function* () {
        const invalid = (options: unknown): unknown => {
          try {
            // Options as JavaScript or JSON may give them: unchecked by the compiler.
            return RetryPolicy.make(JSON.parse(JSON.stringify(options)))
          } catch (error) {
            return error
          }
        }
        const inUrl = invalid({ urlCredentials: `http://user:hunter2@${host}/?token=TOKEN123` })
        expect(inUrl).toMatchObject({ _tag: "InvalidRetryPolicy", option: "urlCredentials" })
        expect(inUrl instanceof Error ? inUrl.message : "").toContain(
          `(got "http://REDACTED:REDACTED@${host}/?token=REDACTED")`
        )
        const named = invalid({ password: "hunter2" })
        expect(named).toMatchObject({ _tag: "InvalidRetryPolicy", option: "password" })
        expect(named instanceof Error ? named.message : "").toContain('(got "REDACTED")')
        // A stage given as a plain record (not built by its module) is refused, its fields unwritten.
        const nested = invalid({ rateLimit: { limit: 10, window: "1 second", token: "hunter2" } })
        expect(nested).toMatchObject({ _tag: "InvalidRetryPolicy", option: "rateLimit" })
        // A field of a record the message describes.
        const field = invalid({ isTransientStatus: { password: "hunter2" } })
        expect(field instanceof Error ? field.message : "").toContain('(got { password: "REDACTED" })')
        // The same class where a layer fails with it.
        const scripted = yield* Testing.scriptedHttpClient([{ status: 200 }])
        const fromLayer = errorOf(
          yield* Effect.exit(
            platformClient(scripted.layer, JSON.parse(`{ "urlCredentials": "http://u:hunter2@${host}/" }`))
          )
        )
        expect(fromLayer).toMatchObject({ _tag: "InvalidRetryPolicy", option: "urlCredentials" })
        for (const error of [inUrl, named, nested, field, fromLayer])
          expectNone(yield* writtenForms(error), ["hunter2", "TOKEN123"])
      })
  )
})
