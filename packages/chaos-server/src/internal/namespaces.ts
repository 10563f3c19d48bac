/**
 * Namespaces: every path works under `/__ns/NAME`, where retry keys, idempotency keys and orders are kept apart
 * from those of other namespaces and of requests outside any, so that tests sharing one server do not see each
 * other's attempts, and one test's reset leaves the others' alone.
 *
 * @internal
 */
import { quote } from "./errors.js"

/**
 * The namespace of requests outside any `/__ns/NAME` prefix. No valid name is empty, so it cannot collide.
 *
 * @internal
 */
export const defaultNamespace = ""

const pathPrefix = "/__ns/"

const maxNameLength = 64

// Unreserved URL characters only, so that a name goes into a URL as it is, with no encoding to disagree on; "."
// and ".." are left out because clients resolve them as path steps.
const namePattern = new RegExp(`^[A-Za-z0-9._~-]{1,${maxNameLength}}$`)

/**
 * Why `name` cannot name a namespace, or undefined when it can.
 *
 * @internal
 */
export const nameProblem = (name: string): string | undefined =>
  namePattern.test(name) && name !== "." && name !== ".."
    ? undefined
    : `a namespace name must have 1 to ${maxNameLength} of the characters A-Z a-z 0-9 . _ ~ - (and not be "." or ".."), got ${quote(name)}`

/**
 * The path under which a namespace's endpoints answer: `/__ns/NAME`, or "" for the default namespace.
 *
 * @internal
 */
export const prefixOf = (namespace: string): string =>
  namespace === defaultNamespace ? "" : `${pathPrefix}${namespace}`

/**
 * A request path split into its namespace and the endpoint's path under it.
 *
 * @internal
 */
export type ScopedPath =
  | { readonly _tag: "Scoped"; readonly namespace: string; readonly path: string }
  | { readonly _tag: "InvalidName"; readonly message: string }

/**
 * Splits `/__ns/NAME/rest` into `NAME` and `/rest` (`/__ns/NAME` alone is the path `/`); any other path is the
 * default namespace's, unchanged. The name is taken as sent, never percent-decoded.
 *
 * @internal
 */
export const splitPath = (path: string): ScopedPath => {
  if (!path.startsWith(pathPrefix)) return { _tag: "Scoped", namespace: defaultNamespace, path }
  const rest = path.slice(pathPrefix.length)
  const slash = rest.indexOf("/")
  const name = slash === -1 ? rest : rest.slice(0, slash)
  const problem = nameProblem(name)
  if (problem !== undefined) return { _tag: "InvalidName", message: problem }
  return { _tag: "Scoped", namespace: name, path: slash === -1 ? "/" : rest.slice(slash) }
}
