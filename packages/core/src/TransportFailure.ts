/**
 * What a transport failure means for a retry: whether sending the request again could cure it.
 *
 * @example
 * ```ts
 * import { TransportFailure } from "@effect-http-resilience/core"
 *
 * const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })
 * TransportFailure.isUnrecoverableCause(new Error("fetch failed", { cause: refused })) // false
 * TransportFailure.isUnrecoverableCause(new TypeError("fetch failed", { cause: new Error("redirect count exceeded") })) // true
 * ```
 *
 * @since 0.1.0
 */

/**
 * Whether a transport failure is one that sending again cannot cure (too many redirects, an
 * unsupported protocol, a TLS certificate that does not verify), found by error `code` or
 * `message` anywhere in its `cause` chain. The walk is bounded, so a cyclic chain cannot hang it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isUnrecoverableCause = (cause: unknown): boolean =>
  someCause(cause, (current) => {
    const code = "code" in current ? current.code : undefined
    if (typeof code === "string" && unrecoverableCodes.has(code)) return true
    const message = "message" in current ? current.message : undefined
    return typeof message === "string" && unrecoverableMessages.test(message)
  })

/**
 * Whether `test` holds for the failure or anything in its `cause` chain. The walk is bounded
 * (8 links), so a cyclic chain cannot hang it.
 *
 * @since 0.2.0
 * @category predicates
 */
export const someCause = (cause: unknown, test: (link: object) => boolean): boolean => {
  let current: unknown = cause
  for (let depth = 0; depth < maxCauseDepth && typeof current === "object" && current !== null; depth++) {
    if (test(current)) return true
    current = "cause" in current ? current.cause : undefined
  }
  return false
}

/**
 * The error `code`s (Node's `"ECONNRESET"`, undici's `"UND_ERR_SOCKET"` ...) found in a
 * failure's `cause` chain, outermost first, each once. The walk is bounded (8 links).
 *
 * @since 0.3.0
 * @category getters
 */
export const causeCodes = (cause: unknown): ReadonlyArray<string> => {
  const codes: Array<string> = []
  someCause(cause, (current) => {
    const code = "code" in current ? current.code : undefined
    if (typeof code === "string" && !codes.includes(code)) codes.push(code)
    return false
  })
  return codes
}

// Failures that another attempt cannot cure, as the transports report them somewhere in the
// cause chain: fetch's "redirect count exceeded", undici's and node's unsupported protocol
// (fetch says "not implemented... yet..." of a file: URL),
// and every TLS certificate error.
const unrecoverableCodes: ReadonlySet<string> = new Set([
  "ERR_INVALID_PROTOCOL",
  "ERR_INVALID_URL",
  "UND_ERR_INVALID_ARG",
  "UND_ERR_NOT_SUPPORTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_INVALID_PROTOCOL_VERSION",
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_TOO_MANY_REDIRECTS",
  "UND_ERR_MAX_REDIRECTIONS"
])
const unrecoverableMessages =
  /redirect count exceeded|max(?:imum)? redirect|unknown scheme|unsupported protocol|protocol .* not supported|^not implemented\.\.\. yet\.\.\.$/i

const maxCauseDepth = 8
