import type { Answer, Exchange } from "./exchange.js"
import { json } from "./exchange.js"

/** What a 401 asks for: Basic, in the realm the answer names (RFC 7617 2). */
const challenge = { "www-authenticate": 'Basic realm="chaos-server", charset="UTF-8"' }

/**
 * The user and password of an `Authorization: Basic` header (RFC 7617 2): base64 of UTF-8 `user:password`, the
 * user up to the first colon. Undefined for any other scheme or a value that is not such a pair.
 */
const basicCredentials = (header: string | undefined): { user: string; password: string } | undefined => {
  const match = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header ?? "")
  if (match === null) return undefined
  const decoded = Buffer.from(match[1] ?? "", "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon === -1 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/**
 * `/api/basic-auth/:user/:password`: httpbin's `/basic-auth/:user/:passwd`. 200 `{authenticated, user}` when the
 * request's `Authorization: Basic` names that user and password, else 401 with `WWW-Authenticate: Basic`: a
 * client that drops the credentials of a URL such as `http://u:p@host/api/basic-auth/u/p` sees the 401.
 *
 * @internal
 */
export const basicAuthRoute = ({ request }: Exchange, params: Readonly<Record<string, string>>): Answer => {
  const user = params.user ?? ""
  const sent = basicCredentials(request.headers.authorization)
  if (sent === undefined || sent.user !== user || sent.password !== (params.password ?? "")) {
    const error =
      sent === undefined
        ? "this endpoint needs an Authorization: Basic header"
        : "the Authorization: Basic header names another user or password"
    return json({ authenticated: false, error }, 401, challenge)
  }
  return json({ authenticated: true, user })
}
