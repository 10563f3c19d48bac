/**
 * The examples of the READMEs, of the guides (`docs/*.md`) and of the JSDoc that run against a
 * live chaos server: which they are, and the module each becomes. Used by the tests that run them, one per Effect line:
 * `packages/resilience/test/readme/examples.test.ts` (Effect 3, vitest 3) and
 * `packages/resilience-effect4/test/readme/examples.test.ts` (Effect 4, vitest 5). Effect-free.
 *
 * Every ```ts block of a README is classified by a marker, an HTML comment on the line before it
 * (npm and GitHub do not show it):
 *
 *     <!-- example ID: run NAME -->                the Effect bound to NAME at the block's top level
 *     <!-- example ID: run its last statement -->  the Effect the block ends with (`program.pipe(Effect.provide(Live))`),
 *                                                  a closing `NodeRuntime.runMain` left to the test's runner
 *     <!-- example ID: run as a module -->         the block runs when imported (top-level await)
 *     <!-- example: tested by PATH -->             a test file (PATH from the repository root) that ends with the block
 *     <!-- example: not run: REASON -->            nothing to run against a chaos server (no HTTP call, or an external one)
 *
 * A block without a marker, a block aimed at a chaos server marked "not run", and a "tested by"
 * file that does not hold its block are problems: a runnable example cannot be skipped silently.
 * The tests check what each run (`ID` names it) promises. A JSDoc `@example` has no marker: each
 * test lists the ones it runs, and every one that names port 8080 must be listed, run or not.
 *
 * A runnable example is written as a module into a directory inside its package (so that its
 * imports resolve as the package's own tests' do), with `http://127.0.0.1:8080` and
 * `http://localhost:8080` replaced by the live server's URL and its Effect exported as `example`.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"

export const root = Path.resolve(import.meta.dirname, "..")

/** The guides: every markdown file of `docs/`, in order. */
export const guides: ReadonlyArray<string> = Fs.readdirSync(Path.join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => `docs/${name}`)

/**
 * Markdown files whose ```ts blocks are examples: the repository's README, the guides of `docs/`
 * and each publishable package's README. ("README" below means any of them.)
 */
export const readmes: ReadonlyArray<string> = [
  "README.md",
  ...guides,
  "packages/resilience/README.md",
  "packages/core/README.md",
  "packages/chaos-server/README.md",
  "packages/resilience-effect4/README.md"
]

/** Source folders of the public modules whose JSDoc examples are examples (`internal/` left out). */
const sourceDirs = [
  "packages/resilience/src",
  "packages/core/src",
  "packages/chaos-server/src",
  "packages/chaos-server/effect4/src",
  "packages/resilience-effect4/src"
]

export type EffectLine = "effect3" | "effect4"

/** Where an example's imports resolve, as `pnpm docs:check` type-checks it. */
export const packageOf: Record<EffectLine, string> = {
  effect3: "packages/resilience",
  effect4: "packages/resilience-effect4"
}

const effect4Sources = ["packages/resilience-effect4/", "packages/chaos-server/effect4/"]
const effect4Import =
  /from\s+"(effect-http-resilience-effect4|@effect-http-resilience\/chaos-server\/effect4)(\/[^"]*)?"/

const effectLineOf = (source: string, code: string): EffectLine =>
  effect4Sources.some((prefix) => source.startsWith(prefix)) || effect4Import.test(code) ? "effect4" : "effect3"

/** What a run executes. */
export type Target =
  | { readonly _tag: "Binding"; readonly name: string }
  | { readonly _tag: "LastStatement" }
  | { readonly _tag: "Module" }

export type Marker =
  | { readonly _tag: "Run"; readonly id: string; readonly target: Target }
  | { readonly _tag: "TestedBy"; readonly path: string }
  | { readonly _tag: "NotRun"; readonly reason: string }

export interface Example {
  /** `README.md#ID` for a README example marked to run, `README.md:LINE` for another; `FILE#Name` for JSDoc. */
  readonly key: string
  /** Its file, from the repository root, and the 1-based line of its first code line. */
  readonly source: string
  readonly line: number
  readonly code: string
  readonly effectLine: EffectLine
}

export interface ReadmeExample extends Example {
  readonly marker: Marker | undefined
}

const markerLine = /^<!--\s*example\b(.*?)-->$/

const parseMarker = (text: string): Marker | string => {
  const run = /^ ([\w-]+): run (.+)$/.exec(text.trimEnd())
  if (run !== null) {
    const [, id = "", what = ""] = run
    if (what === "its last statement") return { _tag: "Run", id, target: { _tag: "LastStatement" } }
    if (what === "as a module") return { _tag: "Run", id, target: { _tag: "Module" } }
    if (/^[A-Za-z_$][\w$]*$/.test(what)) return { _tag: "Run", id, target: { _tag: "Binding", name: what } }
    return `"run ${what}": run NAME, run its last statement or run as a module`
  }
  const testedBy = /^: tested by (\S+)$/.exec(text.trimEnd())
  if (testedBy !== null) return { _tag: "TestedBy", path: testedBy[1] ?? "" }
  const notRun = /^: not run: (.*\S.*)$/.exec(text.trimEnd())
  if (notRun !== null) return { _tag: "NotRun", reason: (notRun[1] ?? "").trim() }
  return `"<!-- example${text}-->" is not a marker: <!-- example ID: run ... -->, <!-- example: tested by PATH --> or <!-- example: not run: REASON -->`
}

/**
 * Every ```ts block of the READMEs with its marker, and the problems of their classification
 * (a block without a marker, a marker that cannot be read, an ID used twice).
 */
export const readmeExamples = (): {
  readonly examples: ReadonlyArray<ReadmeExample>
  readonly problems: Array<string>
} => {
  const examples: Array<ReadmeExample> = []
  const problems: Array<string> = []
  for (const readme of readmes) {
    const lines = Fs.readFileSync(Path.join(root, readme), "utf8").split("\n")
    let index = 0
    while (index < lines.length) {
      const open = /^(\s*)```\s*(\S*)/.exec(lines[index] ?? "")
      if (open === null) {
        index++
        continue
      }
      const indent = (open[1] ?? "").length
      const lang = open[2] ?? ""
      const start = index
      let end = index + 1
      while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? "")) end++
      index = end + 1
      if (lang !== "ts" && lang !== "typescript") continue
      const code = lines
        .slice(start + 1, end)
        .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
        .join("\n")
      let previous = start - 1
      while (previous >= 0 && (lines[previous] ?? "").trim() === "") previous--
      const found = markerLine.exec((lines[previous] ?? "").trim())
      const where = `${readme}:${start + 1}`
      let marker: Marker | undefined
      if (found === null) {
        problems.push(
          `${where}: a \`\`\`ts block without a marker on the line before it (<!-- example ID: run ... -->, <!-- example: tested by PATH --> or <!-- example: not run: REASON -->)`
        )
      } else {
        const parsed = parseMarker(found[1] ?? "")
        if (typeof parsed === "string") problems.push(`${where}: ${parsed}`)
        else marker = parsed
      }
      examples.push({
        key: marker?._tag === "Run" ? `${readme}#${marker.id}` : where,
        source: readme,
        line: start + 2,
        code,
        effectLine: effectLineOf(readme, code),
        marker
      })
    }
  }
  const keys = examples.map((example) => example.key)
  for (const key of new Set(keys.filter((key, position) => keys.indexOf(key) !== position))) {
    problems.push(`${key}: two examples of one README are marked with the same ID`)
  }
  return { examples, problems }
}

/** Whether an example calls, or starts, a chaos server. Such an example runs, or is tested. */
export const aimedAtChaosServer = (code: string): boolean =>
  /\b(127\.0\.0\.1|localhost)\b|\bChaosServer\b|\bstartChaosServer\b/.test(code)

/** The problems of a README example's marker that only its content shows. */
export const markerProblems = (example: ReadmeExample): ReadonlyArray<string> => {
  const where = `${example.source}:${example.line - 1}`
  const marker = example.marker
  if (marker?._tag === "NotRun" && aimedAtChaosServer(example.code)) {
    return [`${where}: marked "not run" (${marker.reason}), but it calls or starts a chaos server: run it`]
  }
  if (marker?._tag === "TestedBy") {
    const file = Path.join(root, marker.path)
    if (!Fs.existsSync(file)) return [`${where}: tested by ${marker.path}, which does not exist`]
    if (!Fs.readFileSync(file, "utf8").endsWith(`\n${example.code}\n`)) {
      return [`${where}: tested by ${marker.path}, which does not end with the block verbatim`]
    }
  }
  return []
}

// ---------------------------------------------------------------------------------------------
// JSDoc examples.

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(Path.join(root, dir), { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? entry.name === "internal"
          ? []
          : sourceFiles(`${dir}/${entry.name}`)
        : entry.name.endsWith(".ts")
          ? [`${dir}/${entry.name}`]
          : []
    )
    .sort()

/** The ```ts blocks of a JSDoc comment's text, with the 0-based line of each first code line. */
const commentBlocks = (comment: string): ReadonlyArray<{ readonly code: string; readonly lineOffset: number }> => {
  const lines = comment.split("\n").map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ""))
  const blocks: Array<{ code: string; lineOffset: number }> = []
  let current: { lines: Array<string>; lineOffset: number; indent: number } | undefined
  lines.forEach((line, index) => {
    const fence = /^(\s*)```\s*(\S*)/.exec(line)
    if (current === undefined) {
      if (fence !== null && (fence[2] === "ts" || fence[2] === "typescript"))
        current = { lines: [], lineOffset: index + 1, indent: (fence[1] ?? "").length }
      return
    }
    if (fence !== null && fence[2] === "") {
      blocks.push({ code: current.lines.join("\n"), lineOffset: current.lineOffset })
      current = undefined
      return
    }
    const indent = current.indent
    current.lines.push(line.slice(Math.min(indent, line.length - line.trimStart().length)))
  })
  return blocks
}

const declarationName = (statement: ts.Statement): string | undefined => {
  if (ts.isVariableStatement(statement)) {
    const name = statement.declarationList.declarations[0]?.name
    return name !== undefined && ts.isIdentifier(name) ? name.text : undefined
  }
  if (ts.isExportDeclaration(statement)) {
    return statement.exportClause !== undefined && ts.isNamespaceExport(statement.exportClause)
      ? statement.exportClause.name.text
      : undefined
  }
  if (
    (ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement) ||
      ts.isModuleDeclaration(statement)) &&
    statement.name !== undefined &&
    ts.isIdentifier(statement.name)
  ) {
    return statement.name.text
  }
  return undefined
}

/**
 * Every ```ts block of the JSDoc of the public modules: their module comments, keyed `FILE#module`,
 * and their declarations' (namespace members included), keyed `FILE#Name` (`FILE#Namespace.Name`;
 * `#2` and on for a name's further blocks).
 */
export const jsdocExamples = (): ReadonlyArray<Example> => {
  const examples: Array<Example> = []
  for (const source of sourceDirs.flatMap(sourceFiles)) {
    const text = Fs.readFileSync(Path.join(root, source), "utf8")
    const file = ts.createSourceFile(source, text, ts.ScriptTarget.Latest, true)
    const seen = new Map<string, number>()
    // The module comment (one example per entry point): the first JSDoc of the file when an import
    // follows it, or when another JSDoc (the first declaration's own) comes between.
    const first = file.statements[0]
    const leading = (first === undefined ? [] : (ts.getLeadingCommentRanges(text, first.pos) ?? [])).filter((range) =>
      text.startsWith("/**", range.pos)
    )
    const moduleDoc =
      first !== undefined && (leading.length >= 2 || (leading.length === 1 && ts.isImportDeclaration(first)))
        ? leading[0]
        : undefined
    if (moduleDoc !== undefined) {
      commentBlocks(text.slice(moduleDoc.pos, moduleDoc.end)).forEach((block, index) => {
        examples.push({
          key: `${source}#module${index === 0 ? "" : `#${index + 1}`}`,
          source,
          line: file.getLineAndCharacterOfPosition(moduleDoc.pos).line + 1 + block.lineOffset,
          code: block.code,
          effectLine: effectLineOf(source, block.code)
        })
      })
    }
    const visit = (statements: ts.NodeArray<ts.Statement>, prefix: string): void => {
      for (const statement of statements) {
        const name = declarationName(statement)
        if (name === undefined) continue
        const comments = (ts.getLeadingCommentRanges(text, statement.pos) ?? []).filter((range) =>
          text.startsWith("/**", range.pos)
        )
        // The module comment, when it is there, is another comment before the first statement.
        const range = comments[comments.length - 1]
        if (range !== undefined) {
          for (const block of commentBlocks(text.slice(range.pos, range.end))) {
            const qualified = prefix + name
            const count = (seen.get(qualified) ?? 0) + 1
            seen.set(qualified, count)
            examples.push({
              key: `${source}#${qualified}${count === 1 ? "" : `#${count}`}`,
              source,
              line: file.getLineAndCharacterOfPosition(range.pos).line + 1 + block.lineOffset,
              code: block.code,
              effectLine: effectLineOf(source, block.code)
            })
          }
        }
        if (ts.isModuleDeclaration(statement) && statement.body !== undefined && ts.isModuleBlock(statement.body)) {
          visit(statement.body.statements, `${prefix}${name}.`)
        }
      }
    }
    visit(file.statements, "")
  }
  return examples
}

/** Whether an example names port 8080: it must be listed by the test of its line, run or not. */
export const namesPort8080 = (code: string): boolean => /\b8080\b/.test(code)

// ---------------------------------------------------------------------------------------------
// Runnable modules.

/** The runner a README's last statement may end with; the test's own runner takes its place. */
const runMain = "NodeRuntime.runMain"

/**
 * The text of the Effect a block's last statement holds: `program.pipe(a, b)` for
 * `program.pipe(a, b, NodeRuntime.runMain)`, `program` for `NodeRuntime.runMain(program)`.
 */
const lastEffect = (file: ts.SourceFile): string => {
  const last = file.statements[file.statements.length - 1]
  if (last === undefined || !ts.isExpressionStatement(last)) {
    throw new Error("its last statement is not an expression to run")
  }
  const expression = last.expression
  const text = (node: ts.Node) => node.getText(file)
  if (ts.isCallExpression(expression)) {
    const args = expression.arguments
    if (text(expression.expression) === runMain) {
      const [effect] = args
      if (effect === undefined) throw new Error(`its last statement calls ${runMain} without an effect`)
      return text(effect)
    }
    const lastArg = args[args.length - 1]
    if (
      ts.isPropertyAccessExpression(expression.expression) &&
      expression.expression.name.text === "pipe" &&
      lastArg !== undefined &&
      text(lastArg) === runMain
    ) {
      const kept = args.slice(0, -1).map(text)
      const self = text(expression.expression.expression)
      return kept.length === 0 ? self : `${self}.pipe(\n${kept.join(",\n")}\n)`
    }
  }
  const source = text(expression)
  if (/\brun(Main|Promise|PromiseExit|Fork|Sync|Callback)\b/.test(source)) {
    throw new Error(`its last statement runs its program in a way the test cannot take over: ${source}`)
  }
  return source
}

const topLevelNames = (file: ts.SourceFile): ReadonlySet<string> =>
  new Set(
    file.statements.flatMap((statement) =>
      ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.flatMap((declaration) =>
            ts.isIdentifier(declaration.name) ? [declaration.name.text] : []
          )
        : (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined
          ? [statement.name.text]
          : []
    )
  )

/** The example's code with the chaos server at port 8080 replaced by `baseUrl`. */
export const aimedAt = (code: string, baseUrl: string): string =>
  code.replaceAll("http://127.0.0.1:8080", baseUrl).replaceAll("http://localhost:8080", baseUrl)

/**
 * Writes the example as a module into `dir` (inside its package), aimed at `baseUrl`, and returns
 * its path. The module exports what the target names as `example` (a `Module` target exports
 * nothing more: importing it runs it). Throws when the target cannot be found or the example would
 * still use port 8080: a test never takes a fixed port.
 */
export const writeRunnable = (example: Example, target: Target, baseUrl: string, dir: string): string => {
  const code = aimedAt(example.code, baseUrl)
  const fail = (reason: string): never => {
    throw new Error(`${example.source}:${example.line}: example ${example.key}: ${reason}`)
  }
  if (namesPort8080(code)) fail("it still names port 8080 once its URLs are replaced; a test never takes a fixed port")
  const file = ts.createSourceFile("example.ts", code, ts.ScriptTarget.Latest, true)
  let module: string
  switch (target._tag) {
    case "Binding":
      if (!topLevelNames(file).has(target.name)) fail(`it declares no ${target.name} at its top level`)
      module = `${code}\nexport { ${target.name} as example }\n`
      break
    case "LastStatement": {
      const last = file.statements[file.statements.length - 1]
      let effect = ""
      try {
        effect = lastEffect(file)
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error))
      }
      module = `${code.slice(0, last?.getStart(file) ?? 0)}export const example = ${effect}\n`
      break
    }
    case "Module":
      module = `${code}\nexport {}\n`
      break
  }
  Fs.mkdirSync(dir, { recursive: true })
  const path = Path.join(dir, `${example.key.replace(/[^\w.-]+/g, "_")}.ts`)
  Fs.writeFileSync(path, module)
  return path
}

/** A fresh directory for the runnable modules of `line`, inside its package; remove it when done. */
export const runnableDir = (line: EffectLine): string =>
  Fs.mkdtempSync(Path.join(root, packageOf[line], ".doc-examples-run-"))
