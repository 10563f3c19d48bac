/**
 * Credentials written into a URL (`http://user:password@host/`), as curl, got and requests read
 * them: the user info is taken out of the URL and, percent-decoded (RFC 3986 2.1), becomes an
 * `Authorization: Basic` header (RFC 7617). What Basic authentication cannot carry (a colon in
 * the user name, a control character) and what does not decode is a problem, said in words.
 *
 * @example
 * ```ts
 * import { UrlCredentials } from "@effect-http-resilience/core"
 *
 * UrlCredentials.findUserinfo("http://u:p@host/x") // { start: 7, end: 10 }
 * UrlCredentials.findUserinfo("http://host/users/@me") // undefined
 * ```
 *
 * @since 0.2.0
 */

/**
 * Where a URL's user info is: from `start` up to `end`, the index of its `@`. Found as Effect 4's
 * `UrlParams.redactUrl` finds it: after a scheme's `//` (or a bare `//`), up to the authority's
 * end, the last `@` in it, ignoring the tabs and newlines a URL parser drops.
 *
 * @since 0.2.0
 * @category locating
 */
export const findUserinfo = (url: string): { readonly start: number; readonly end: number } | undefined => {
  if (!url.includes("@")) return undefined
  let normalized = ""
  const offsets: Array<number> = []
  for (let i = 0; i < url.length; i++) {
    const code = url.charCodeAt(i)
    if (code === 9 || code === 10 || code === 13 || (normalized === "" && code <= 32)) continue
    normalized += url[i]
    offsets.push(i)
  }
  const authority = authorityStart.exec(normalized)
  if (authority === null) return undefined
  const from = authority[0].length
  const special = authority[1] !== undefined || !authority[0].includes(":")
  const rest = normalized.slice(from)
  const authorityLength = rest.search(special ? specialAuthorityEnd : authorityEnd)
  const at = (authorityLength === -1 ? rest : rest.slice(0, authorityLength)).lastIndexOf("@")
  const start = offsets[from]
  const end = offsets[from + at]
  return at === -1 || start === undefined || end === undefined ? undefined : { start, end }
}

const authorityStart = /^(?:(https?|ftp|wss?):[/\\]*|[a-z][a-z\d+.-]*:\/\/|[/\\]{2,})/i
const specialAuthorityEnd = /[/\\?#]/
const authorityEnd = /[/?#]/

/**
 * Why credentials in a URL were not sent:
 *
 * - `"refused"`: the policy refuses them (`urlCredentials: "refuse"`);
 * - `"colon-in-user"`: the user name holds a colon (`%3A`), which a Basic header cannot carry:
 *   the server reads the user name up to the first colon (RFC 7617 2);
 * - `"control-character"`: the user name or password holds a control character (RFC 7617 2);
 * - `"invalid-percent-encoding"`: the user info does not percent-decode to UTF-8 (RFC 3986 2.1);
 * - `"added-after-client"`: a step that ran after the resilient client had read the request (a
 *   `mapRequest` applied to it on Effect 3) put them there.
 *
 * @since 0.2.0
 * @category models
 */
export type Problem =
  | "refused"
  | "colon-in-user"
  | "control-character"
  | "invalid-percent-encoding"
  | "added-after-client"

/**
 * What a URL's user info comes to: the URL without it, and the `Authorization` header it
 * stands for (`"Basic"`), nothing to send (`"Empty"`: `http://@host/`, `http://:@host/`), or a
 * {@link Problem} (`"Invalid"`).
 *
 * @since 0.2.0
 * @category models
 */
export type Found =
  | { readonly _tag: "Basic"; readonly url: string; readonly authorization: string }
  | { readonly _tag: "Empty"; readonly url: string }
  | { readonly _tag: "Invalid"; readonly url: string; readonly problem: Problem }

/**
 * The credentials in a URL, if it has user info: the user up to the first `:`, the password
 * after it (none: empty), each percent-decoded, as `Authorization: Basic` (base64 of the UTF-8
 * `user:password`), and the URL without its user info.
 *
 * @since 0.2.0
 * @category reading
 */
export const fromUrl = (url: string): Found | undefined => {
  const found = findUserinfo(url)
  if (found === undefined) return undefined
  const without = url.slice(0, found.start) + url.slice(found.end + 1)
  const userinfo = url.slice(found.start, found.end).replace(/[\t\n\r]/g, "")
  const colon = userinfo.indexOf(":")
  const user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon))
  const password = decode(colon === -1 ? "" : userinfo.slice(colon + 1))
  if (user === undefined || password === undefined) {
    return { _tag: "Invalid", url: without, problem: "invalid-percent-encoding" }
  }
  if (user === "" && password === "") return { _tag: "Empty", url: without }
  if (user.includes(":")) return { _tag: "Invalid", url: without, problem: "colon-in-user" }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
  if (/[\u0000-\u001f\u007f]/.test(user + password)) {
    return { _tag: "Invalid", url: without, problem: "control-character" }
  }
  return { _tag: "Basic", url: without, authorization: `Basic ${base64(`${user}:${password}`)}` }
}

const decode = (text: string): string | undefined => {
  if (!text.includes("%")) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

const base64 = (text: string): string => {
  let binary = ""
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * Why credentials in a URL were not sent, and what to do instead, in words (the end of a
 * failure's message).
 *
 * @since 0.2.0
 * @category formatting
 */
export const describeProblem = (problem: Problem): string => {
  switch (problem) {
    case "refused":
      return 'its URL carries credentials, and urlCredentials is "refuse" (send them in an Authorization header, or set urlCredentials: "basic-auth")'
    case "colon-in-user":
      return "the user name in its URL holds a colon (%3A), which an Authorization: Basic header cannot carry: the server would read the user name up to it (RFC 7617); send an Authorization header of your own"
    case "control-character":
      return "the credentials in its URL hold a control character, which an Authorization: Basic header cannot carry (RFC 7617); send an Authorization header of your own"
    case "invalid-percent-encoding":
      return "the credentials in its URL are not valid percent-encoding (RFC 3986), so they cannot become an Authorization: Basic header; encode them with encodeURIComponent"
    case "added-after-client":
      return "credentials were put in its URL after the resilient client read the request (by a mapRequest applied to it), too late to become an Authorization header: apply that mapRequest before withResilience, or set the header with HttpClientRequest.basicAuth"
  }
}
