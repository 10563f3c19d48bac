/**
 * What the libraries never write out: a URL's user info, the values of signing query parameters,
 * and secret headers. The rules are Effect 4's (`UrlParams.redactUrl`, `Headers.redact`), with
 * the same default names, so both lines redact at least as Effect 4 does wherever they write a
 * URL: failure messages, span events, log annotations and metric labels.
 *
 * @since 0.2.0
 */

/**
 * What a redacted value is written as.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * console.log(Redaction.redactedText) // "REDACTED"
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const redactedText = "REDACTED"

/**
 * The query parameters whose values are redacted by default: Effect 4's list, which is
 * OpenTelemetry's for `url.full` (presigned URLs' signatures and credentials).
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.defaultUrlParamNames.includes("X-Amz-Signature") // true
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultUrlParamNames: ReadonlyArray<string> = [
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
  "AWSAccessKeyId",
  "Signature",
  "sig",
  "X-Goog-Signature"
]

/**
 * The headers whose values are redacted by default: the platform's list on both Effect lines.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.defaultHeaderNames // ["authorization", "cookie", "set-cookie", "x-api-key"]
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultHeaderNames: ReadonlyArray<string> = ["authorization", "cookie", "set-cookie", "x-api-key"]

/**
 * Whether a name is one to redact: a string pattern matches the whole name, ignoring case; a
 * regular expression matches anywhere in it.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.isRedactedName("signature", ["Signature"]) // true
 * Redaction.isRedactedName("my_api_key", [/api_key/i]) // true
 * ```
 *
 * @since 0.2.0
 * @category predicates
 */
export const isRedactedName = (name: string, patterns: ReadonlyArray<string | RegExp>): boolean => {
  const lower = name.toLowerCase()
  for (const pattern of patterns) {
    if (typeof pattern === "string" ? pattern.toLowerCase() === lower : name.search(pattern) !== -1) return true
  }
  return false
}

/**
 * A URL with its user info written as `REDACTED:REDACTED` and the values of the named query
 * parameters as `REDACTED`; everything else is kept as written.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.redactUrl("http://user:pw@host/x?sig=abc&page=2", Redaction.defaultUrlParamNames)
 * // "http://REDACTED:REDACTED@host/x?sig=REDACTED&page=2"
 * ```
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactUrl = (url: string, urlParamNames: ReadonlyArray<string | RegExp>): string => {
  const withoutUserinfo = url.includes("@") ? redactUserinfo(url) : url
  const queryStart = withoutUserinfo.indexOf("?")
  if (queryStart === -1 || urlParamNames.length === 0) return withoutUserinfo
  const hashStart = withoutUserinfo.indexOf("#")
  if (hashStart !== -1 && hashStart < queryStart) return withoutUserinfo
  const queryEnd = hashStart === -1 ? withoutUserinfo.length : hashStart
  return (
    withoutUserinfo.slice(0, queryStart + 1) +
    redactQuery(withoutUserinfo.slice(queryStart + 1, queryEnd), urlParamNames) +
    withoutUserinfo.slice(queryEnd)
  )
}

// As Effect 4 finds user info: after a scheme's `//` (or a bare `//`), up to the authority's
// end, ignoring the tabs and newlines a URL parser would drop; offsets keep the original text.
const authorityStart = /^(?:(https?|ftp|wss?):[/\\]*|[a-z][a-z\d+.-]*:\/\/|[/\\]{2,})/i
const specialAuthorityEnd = /[/\\?#]/
const authorityEnd = /[/?#]/

const redactUserinfo = (url: string): string => {
  let normalized = ""
  const offsets: Array<number> = []
  for (let i = 0; i < url.length; i++) {
    const code = url.charCodeAt(i)
    if (code === 9 || code === 10 || code === 13 || (normalized === "" && code <= 32)) continue
    normalized += url[i]
    offsets.push(i)
  }
  const authority = authorityStart.exec(normalized)
  if (authority === null) return url
  const start = authority[0].length
  const special = authority[1] !== undefined || !authority[0].includes(":")
  const rest = normalized.slice(start)
  const end = rest.search(special ? specialAuthorityEnd : authorityEnd)
  const userinfoEnd = (end === -1 ? rest : rest.slice(0, end)).lastIndexOf("@")
  const from = offsets[start]
  const to = offsets[start + userinfoEnd]
  return userinfoEnd === -1 || from === undefined || to === undefined
    ? url
    : `${url.slice(0, from)}${redactedText}:${redactedText}${url.slice(to)}`
}

const redactQuery = (query: string, names: ReadonlyArray<string | RegExp>): string =>
  query
    .split("&")
    .map((part) => {
      const index = part.indexOf("=")
      return index !== -1 && isRedactedName(decodeQueryKey(part.slice(0, index)), names)
        ? `${part.slice(0, index + 1)}${redactedText}`
        : part
    })
    .join("&")

const decodeQueryKey = (key: string): string => {
  if (!key.includes("%") && !key.includes("+")) return key
  try {
    return decodeURIComponent(key.replace(/\+/g, " "))
  } catch {
    return key
  }
}

/**
 * Header values with the named ones written as `REDACTED`.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.redactHeaders({ authorization: "Bearer x", accept: "text/plain" }, Redaction.defaultHeaderNames)
 * // { authorization: "REDACTED", accept: "text/plain" }
 * ```
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
    out[name] = isRedactedName(name, headerNames) ? redactedText : (headers[name] ?? "")
  }
  return out
}
