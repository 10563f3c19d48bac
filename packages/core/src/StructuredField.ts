/**
 * The lists of the rate-limit header fields (`RateLimit`, `RateLimit-Policy`: RFC 8941 lists of
 * items with parameters), read with a bound: at most {@link maxMembers} members of a list, and
 * as many parts of a member, however many a response sends. A real field has a handful; a
 * hostile one could list thousands, and every response's headers are read on the call's path,
 * a `200`'s and a `429`'s alike.
 *
 * @example
 * ```ts
 * import { StructuredField } from "@effect-http-resilience/core"
 *
 * StructuredField.split('"day";r=0;t=60, "minute";r=5', ",") // ['"day";r=0;t=60', ' "minute";r=5']
 * StructuredField.parseMember('"day";r=0;t=60').params.get("t") // "60"
 * ```
 *
 * @since 0.2.0
 */

/**
 * The most members of a list, and parts of a member (its item and parameters), that are read:
 * the rest is ignored.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxMembers = 16

/**
 * Splits at `separator` outside quoted strings (which may hold it, escaped quotes included), into
 * at most {@link maxMembers} parts: the text after the last one read is ignored, unscanned.
 *
 * @since 0.2.0
 * @category parsing
 */
export const split = (value: string, separator: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  let quoted = false
  for (let i = 0; i < value.length && parts.length < maxMembers; i++) {
    const char = value[i]
    if (quoted && char === "\\") i++
    else if (char === '"') quoted = !quoted
    else if (!quoted && char === separator) {
      parts.push(value.slice(start, i))
      start = i + 1
    }
  }
  if (parts.length < maxMembers) parts.push(value.slice(start))
  return parts
}

/**
 * One member of a list: its item (a policy's name, say) and its parameters, by name.
 *
 * @since 0.2.0
 * @category models
 */
export interface Member {
  readonly item: string
  readonly params: ReadonlyMap<string, string>
}

/**
 * A member as its item and parameters (`"day";r=0;t=60`), trimmed; a parameter without `=` is
 * left out, and a repeated one is the last given.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseMember = (text: string): Member => {
  const [item = "", ...rest] = split(text, ";")
  const params = new Map<string, string>()
  for (const param of rest) {
    const equals = param.indexOf("=")
    if (equals > 0) params.set(param.slice(0, equals).trim(), param.slice(equals + 1).trim())
  }
  return { item: item.trim(), params }
}
