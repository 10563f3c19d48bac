/**
 * What the libraries never write out: a URL's user info, the values of query parameters that
 * carry secrets, secret headers, and secrets in a bad option's value. The rules are Effect 4's
 * (`UrlParams.redactUrl`, `Headers.redact`); the default query parameter names are
 * OpenTelemetry's (Effect 4's) and the names APIs put secrets in, so both lines redact at least
 * as Effect 4 does wherever they write a URL: failure messages, span events, log annotations and
 * metric labels.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * console.log(Redaction.isRedactedName("API-KEY", Redaction.defaultUrlParamNames)) // true
 * ```
 *
 * @since 0.2.0
 */
import { findUserinfo } from "./UrlCredentials.js"

/**
 * What a redacted value is written as.
 */
const redactedText = "REDACTED"

/**
 * OpenTelemetry's query parameters to redact in `url.full` (presigned URLs' signatures and
 * credentials), which are Effect 4's `UrlParams.CurrentRedactedNames` defaults.
 *
 * @since 0.2.0
 * @category constants
 */
export const openTelemetryUrlParamNames: ReadonlyArray<string> = [
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
  "AWSAccessKeyId",
  "Signature",
  "sig",
  "X-Goog-Signature"
]

/**
 * The query parameters APIs put secrets in: Sentry's data scrubber defaults (sentry-python's
 * `DEFAULT_DENYLIST`, from Relay) that name secrets rather than personal data, the session and
 * CSRF token names in that list, the names OAuth 2.0 and OpenID Connect put in URLs, and the API
 * key names of common APIs (Google's `key`, GitLab's `private_token`).
 *
 * @since 0.2.0
 * @category constants
 */
export const secretUrlParamNames: ReadonlyArray<string> = [
  // Sentry's data scrubber
  "password",
  "passwd",
  "secret",
  "api_key",
  "apikey",
  "auth",
  "credentials",
  "mysql_pwd",
  "privatekey",
  "private_key",
  "token",
  "session",
  "sessionid",
  "authorization",
  "x_api_key",
  "csrftoken",
  "csrf_token",
  "csrf",
  "_csrf",
  "_csrf_token",
  "xsrf_token",
  "_xsrf",
  "phpsessid",
  "connect.sid",
  "_session",
  "user_session",
  "aiohttp_session",
  // OAuth 2.0 (RFC 6749, RFC 6750) and OpenID Connect
  "access_token",
  "refresh_token",
  "id_token",
  "client_secret",
  // Common API keys, passwords and signatures
  "key",
  "api_token",
  "api_secret",
  "auth_token",
  "private_token",
  "access_key",
  "secret_key",
  "session_id",
  "jsessionid",
  "pwd",
  "passphrase",
  "signature",
  "jwt"
]

/**
 * The query parameters whose values are redacted by default: {@link openTelemetryUrlParamNames}
 * and {@link secretUrlParamNames}, each matched whole, ignoring case, with `_` and `-` alike.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultUrlParamNames: ReadonlyArray<string> = [...openTelemetryUrlParamNames, ...secretUrlParamNames]

/**
 * The headers whose values are redacted by default: the platform's list on both Effect lines.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultHeaderNames: ReadonlyArray<string> = ["authorization", "cookie", "set-cookie", "x-api-key"]

/**
 * The request headers that carry credentials: `authorization` (where the libraries put credentials
 * written in a URL), `proxy-authorization` and `cookie`. {@link redactHeaders} redacts them
 * whatever names it is given, so that no configuration writes them out.
 *
 * @since 0.2.0
 * @category constants
 */
export const credentialHeaderNames: ReadonlyArray<string> = ["authorization", "proxy-authorization", "cookie"]

/**
 * Whether a name is one to redact: a string pattern matches the whole name, ignoring case, with
 * `_` and `-` alike; a regular expression matches anywhere in it.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isRedactedName = (name: string, patterns: ReadonlyArray<string | RegExp>): boolean => {
  const { words, expressions } = matcherOf(patterns)
  if (words.has(normalizedName(name))) return true
  for (const expression of expressions) {
    if (name.search(expression) !== -1) return true
  }
  return false
}

const normalizedName = (name: string): string => name.toLowerCase().replaceAll("-", "_")

interface Matcher {
  readonly words: ReadonlySet<string>
  readonly expressions: ReadonlyArray<RegExp>
}

// A list of names is read once: the defaults are matched against every query parameter written.
const matchers = new WeakMap<ReadonlyArray<string | RegExp>, Matcher>()

const matcherOf = (patterns: ReadonlyArray<string | RegExp>): Matcher => {
  const known = matchers.get(patterns)
  if (known !== undefined) return known
  const words = new Set<string>()
  const expressions: Array<RegExp> = []
  for (const pattern of patterns) {
    if (typeof pattern === "string") words.add(normalizedName(pattern))
    else expressions.push(pattern)
  }
  const matcher = { words, expressions }
  matchers.set(patterns, matcher)
  return matcher
}

/**
 * A URL with its user info written as `REDACTED:REDACTED` and the values of the named query
 * parameters as `REDACTED`; everything else is kept as written.
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactUrl = (url: string, urlParamNames: ReadonlyArray<string | RegExp>): string => {
  const withoutUserinfo = url.includes("@") ? redactUserinfo(url) : url
  const query = queryOf(withoutUserinfo, urlParamNames)
  return query === undefined
    ? withoutUserinfo
    : withoutUserinfo.slice(0, query.start) +
        query.parts
          .map((part) =>
            isRedactedPart(part, urlParamNames) ? `${part.slice(0, part.indexOf("=") + 1)}${redactedText}` : part
          )
          .join("&") +
        withoutUserinfo.slice(query.end)
}

/**
 * Whether {@link redactUrl} would redact the value of a query parameter of this URL.
 *
 * @since 0.2.0
 * @category predicates
 */
export const redactsQuery = (url: string, urlParamNames: ReadonlyArray<string | RegExp>): boolean =>
  queryOf(url, urlParamNames)?.parts.some((part) => isRedactedPart(part, urlParamNames)) ?? false

// The query's `name=value` parts and where it sits (after `?`, before `#`); none when there is
// nothing to redact.
const queryOf = (
  url: string,
  urlParamNames: ReadonlyArray<string | RegExp>
): { readonly start: number; readonly end: number; readonly parts: ReadonlyArray<string> } | undefined => {
  const queryStart = url.indexOf("?")
  if (queryStart === -1 || urlParamNames.length === 0) return undefined
  const hashStart = url.indexOf("#")
  if (hashStart !== -1 && hashStart < queryStart) return undefined
  const end = hashStart === -1 ? url.length : hashStart
  return { start: queryStart + 1, end, parts: url.slice(queryStart + 1, end).split("&") }
}

const isRedactedPart = (part: string, names: ReadonlyArray<string | RegExp>): boolean => {
  const index = part.indexOf("=")
  return index !== -1 && isRedactedName(decodeQueryKey(part.slice(0, index)), names)
}

const redactUserinfo = (url: string): string => {
  const userinfo = findUserinfo(url)
  return userinfo === undefined
    ? url
    : `${url.slice(0, userinfo.start)}${redactedText}:${redactedText}${url.slice(userinfo.end)}`
}

const decodeQueryKey = (key: string): string => {
  if (!key.includes("%") && !key.includes("+")) return key
  try {
    return decodeURIComponent(key.replace(/\+/g, " "))
  } catch {
    return key
  }
}

/**
 * Header values with the named ones, and always the {@link credentialHeaderNames}, written as
 * `REDACTED`.
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactHeaders = (
  headers: Readonly<Record<string, string>>,
  headerNames: ReadonlyArray<string | RegExp>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers)) {
    out[name] =
      isRedactedName(name, headerNames) || isRedactedName(name, credentialHeaderNames)
        ? redactedText
        : (headers[name] ?? "")
  }
  return out
}

// The names of options and fields whose string values are secrets: the query parameters' and the
// headers' that carry them.
const secretValueNames: ReadonlyArray<string> = [
  ...defaultUrlParamNames,
  ...defaultHeaderNames,
  ...credentialHeaderNames
]

/**
 * A value as it may be written out: a string with its URL's user info and secret query parameters
 * redacted ({@link redactUrl} with {@link defaultUrlParamNames}), or `REDACTED` when `name` (the
 * option or field that holds it: `password`, `api_key`, `authorization`...) says it is a secret.
 * Anything but a string is given back as it is.
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactValue = (value: unknown, name?: string): unknown => {
  if (typeof value !== "string") return value
  if (name !== undefined && isRedactedName(name, secretValueNames)) return redactedText
  return value.includes("@") || value.includes("?") ? redactUrl(value, defaultUrlParamNames) : value
}
