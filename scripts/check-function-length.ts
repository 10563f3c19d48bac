/**
 * `pnpm check:functions`: no function in a line's `src` is over 80 lines (issue #33).
 *
 * Parses every `.ts` file of `packages/resilience/src`, `packages/resilience-effect4/src` and
 * `packages/core/src` (generated files included: they are what ships) with the TypeScript
 * compiler, and measures every function-like node: function declarations and expressions, arrow
 * functions, methods, constructors and accessors, nested ones too (a closure's inner functions
 * are counted on their own, and inside their outer function's length). A function's length is
 * its source lines, from the line its declaration starts on (after its JSDoc) to the line it ends
 * on. Prints each function over the limit as `path:line name lines`, longest first, then how
 * many there are; fails (exit 1) when there is any. `--report` prints the same and exits 0.
 *
 * A name is the function's path through what encloses it, joined by dots: `make.resolve` for a
 * function `resolve` inside `make`, `Table.get` for a method; a callback is named after what it
 * is passed to (`<Effect.gen>`), any other unnamed function `<anonymous>`.
 *
 * usage: tsx scripts/check-function-length.ts [--report]   (or pnpm check:functions [--report])
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"

const maxLines = 80
const sourceDirectories = ["packages/resilience/src", "packages/resilience-effect4/src", "packages/core/src"]
const root = Path.resolve(import.meta.dirname, "..")

const args = process.argv.slice(2)
const reportOnly = args.includes("--report")
// `pnpm check:functions -- --report` hands the script the `--` too.
const unknown = args.filter((arg) => arg !== "--report" && arg !== "--")
if (unknown.length > 0) {
  console.error(`unknown argument(s) ${unknown.join(" ")}; usage: tsx scripts/check-function-length.ts [--report]`)
  process.exit(2)
}

interface Measured {
  readonly path: string
  readonly line: number
  readonly name: string
  readonly lines: number
}

/** What a callee is called in a name: its text when short and on one line, else nothing. */
const calleeName = (callee: ts.Expression, file: ts.SourceFile): string | undefined => {
  const text = callee.getText(file)
  return text.length <= 40 && /^[\w$.]+$/.test(text) ? text : undefined
}

/** Skips what wraps an expression without naming it: parentheses, `as`, `satisfies`, `!`. */
const namingParent = (node: ts.Node): ts.Node => {
  let parent = node.parent
  while (
    ts.isParenthesizedExpression(parent) ||
    ts.isAsExpression(parent) ||
    ts.isSatisfiesExpression(parent) ||
    ts.isNonNullExpression(parent)
  ) {
    parent = parent.parent
  }
  return parent
}

/** The name of a function-like node alone (not qualified by what encloses it). */
const ownName = (node: ts.SignatureDeclaration, file: ts.SourceFile): string => {
  if (ts.isConstructorDeclaration(node)) return "constructor"
  if (node.name !== undefined) return node.name.getText(file)
  const parent = namingParent(node)
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(file)
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    return calleeName(parent.left, file) ?? "<anonymous>"
  }
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = calleeName(parent.expression, file)
    return callee === undefined ? "<callback>" : `<${callee}>`
  }
  return "<anonymous>"
}

const isFunctionLike = (node: ts.Node): node is ts.SignatureDeclaration & { readonly body?: ts.Node } =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

/** Every function-like node with a body in the file, with its qualified name and length. */
const measure = (path: string, file: ts.SourceFile): Array<Measured> => {
  const found: Array<Measured> = []
  const lineOf = (position: number): number => file.getLineAndCharacterOfPosition(position).line
  const visit = (node: ts.Node, scope: ReadonlyArray<string>): void => {
    let inner = scope
    if (ts.isClassLike(node)) {
      inner = [...scope, node.name?.getText(file) ?? "<class>"]
    } else if (isFunctionLike(node) && node.body !== undefined) {
      inner = [...scope, ownName(node, file)]
      const start = lineOf(node.getStart(file))
      found.push({ path, line: start + 1, name: inner.join("."), lines: lineOf(node.getEnd()) - start + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, inner))
  }
  visit(file, [])
  return found
}

const files = sourceDirectories.flatMap((directory) =>
  Fs.readdirSync(Path.join(root, directory), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => Path.posix.join(directory, name.split(Path.sep).join("/")))
)
const measured = files.flatMap((path) => {
  const text = Fs.readFileSync(Path.join(root, path), "utf8")
  return measure(path, ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS))
})
const offenders = measured
  .filter((fn) => fn.lines > maxLines)
  .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path) || a.line - b.line)

for (const fn of offenders) console.log(`${fn.path}:${fn.line} ${fn.name} ${fn.lines}`)
console.log(
  `${offenders.length} function${offenders.length === 1 ? "" : "s"} over ${maxLines} lines ` +
    `(of ${measured.length} in ${files.length} files of ${sourceDirectories.join(", ")})`
)
if (offenders.length > 0 && !reportOnly) process.exit(1)
