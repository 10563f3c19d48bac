/**
 * `pnpm docs:check`: the API reference cannot rot.
 *
 * 1. Every public module (the `.ts` targets of the `exports` map of each publishable package, and
 *    the modules they re-export as a namespace) has a module comment with a summary, `@since` and
 *    an `@example` holding a ```ts block: one example per entry point, as `@effect/platform`
 *    writes them. Every export of it has a JSDoc comment with a one-line summary, `@since` (a
 *    version) and `@category`; an export may have an `@example` of its own, which is checked too.
 * 2. Every ```ts block of those `@example`s, of the READMEs (the root one and each publishable
 *    package's own, which npm shows) and of the guides (`docs/*.md`) is written as a file into `packages/resilience/.doc-examples/`
 *    (inside the workspace, so `effect-http-resilience`, the chaos server and the peers resolve
 *    as they do for the package's own tests), or for the Effect 4 line into
 *    `packages/resilience-effect4/.doc-examples/` (Effect 4 resolves there): the examples of the
 *    Effect 4 packages' sources and READMEs, and any example that imports the Effect 4 line or
 *    the chaos server's Effect 4 layer. Each is type-checked with the strict base config
 *    (unused names allowed: examples often declare a value just to show it). Errors are reported
 *    at the line of the example in its source file.
 * 3. The package READMEs stand alone on npm: every link is an absolute URL or an anchor of the
 *    same page (no repository URL is known, so a repository path would lead nowhere), and no
 *    workspace command (`pnpm demo`, `pnpm chaos`, ...) appears. The library's README repeats the
 *    root README's install blocks, options table and failures table word for word.
 * 4. Every other link leads somewhere: a relative link of the README, of a guide or of
 *    BENCHMARKS.md names a file of the repository, and its anchor (`FILE.md#heading`, or `#heading`
 *    of the same page, in the package READMEs too) a heading of that file, as GitHub makes the
 *    anchors.
 *
 * An example that refers to things it does not define should `declare const` them. A README
 * block that must not be checked can use the info string `ts no-check`.
 *
 * usage: tsx scripts/check-doc-examples.ts [--keep]   (--keep leaves the generated files)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import ts from "typescript"
import { guides } from "./doc-examples.js"
import { installBlocks, tableWithHeader } from "./readme-sections.js"

const root = Path.resolve(import.meta.dirname, "..")
const publishable = ["packages/resilience", "packages/core", "packages/chaos-server", "packages/resilience-effect4"]
/** Sources whose examples are written for Effect 4. */
const effect4Sources = ["packages/resilience-effect4/", "packages/chaos-server/effect4/"]
/** Imports that make an example an Effect 4 one wherever it is written (a README can show both lines). */
const effect4Import =
  /from\s+"(effect-http-resilience-effect4|@effect-http-resilience\/chaos-server\/effect4)(\/[^"]*)?"/
/**
 * Where an example is type-checked, so that its imports resolve as its users' do: the Effect 4
 * line's against Effect 4, everything else against the Effect 3 library's dependencies.
 */
const examplesPackageOf = (example: Example): string =>
  effect4Sources.some((prefix) => example.source.startsWith(prefix)) || effect4Import.test(example.code)
    ? "packages/resilience-effect4"
    : "packages/resilience"
const examplesPackages = ["packages/resilience", "packages/resilience-effect4"]
const outDirName = ".doc-examples"
const keep = process.argv.includes("--keep")
/** The README of each publishable package: what npm shows. */
const packageReadmes = publishable.map((pkg) => `${pkg}/README.md`)
/** READMEs and guides whose ```ts blocks are checked. */
const readmes = ["README.md", ...guides, ...packageReadmes]
/** The library's README repeats these parts of the root README word for word. */
const libraryReadme = "packages/resilience/README.md"
const sharedTables = ["option", "failure"]

interface Example {
  /** Where it comes from, relative to the root, and the 1-based line of its first code line. */
  readonly source: string
  readonly line: number
  readonly label: string
  readonly code: string
}

const problems: Array<string> = []
const examples: Array<Example> = []

const rel = (file: string): string => Path.relative(root, file)

// ---------------------------------------------------------------------------------------------
// Public modules: the TypeScript targets of each publishable package's exports map.

/**
 * The public modules of a package: the `.ts` targets of its exports map, and the modules they
 * re-export as a namespace (`export * as X from "./X.js"`), whose exports are public through it.
 */
const publicModules = (pkgDir: string): ReadonlyArray<string> => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(root, pkgDir, "package.json"), "utf8")) as {
    readonly exports: Record<string, string | null>
  }
  const files = new Set<string>()
  const add = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const [, target] of Fs.readFileSync(file, "utf8").matchAll(/^export \* as \w+ from "(\.[^"]+)\.js"/gm)) {
      add(Path.join(Path.dirname(file), `${target}.ts`))
    }
  }
  for (const target of Object.values(manifest.exports)) {
    if (typeof target === "string" && target.endsWith(".ts")) add(Path.join(root, pkgDir, target))
  }
  return [...files].sort()
}

// ---------------------------------------------------------------------------------------------
// JSDoc, parsed from the raw comment text (TypeScript's own JSDoc parser would read the `@` of
// `"@effect/platform"` inside an example as the start of a tag).

interface Tag {
  readonly name: string
  readonly text: string
  /** 0-based offset of the tag's first line within the comment's lines. */
  readonly lineOffset: number
}

interface Doc {
  readonly summary: string
  readonly tags: ReadonlyArray<Tag>
  /** 1-based line of the comment's first line in its file. */
  readonly line: number
}

const parseDoc = (sourceFile: ts.SourceFile, range: ts.CommentRange): Doc => {
  const raw = sourceFile.text.slice(range.pos, range.end)
  const lines = raw
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, "").replace(/^\s+$/, ""))
  const summaryLines: Array<string> = []
  const tags: Array<{ name: string; lines: Array<string>; lineOffset: number }> = []
  let inFence = false
  lines.forEach((line, index) => {
    const tag = inFence ? null : /^@(\w+)\s?(.*)$/.exec(line.trim())
    if (tag !== null) {
      tags.push({ name: tag[1] ?? "", lines: [tag[2] ?? ""], lineOffset: index })
    } else {
      const current = tags[tags.length - 1]
      if (current === undefined) summaryLines.push(line)
      else current.lines.push(line)
    }
    if (/^\s*```/.test(line)) inFence = !inFence
  })
  return {
    summary: summaryLines.join("\n").trim(),
    tags: tags.map((tag) => ({ name: tag.name, text: tag.lines.join("\n"), lineOffset: tag.lineOffset })),
    line: sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1
  }
}

const docComments = (sourceFile: ts.SourceFile, node: ts.Node): ReadonlyArray<ts.CommentRange> =>
  (ts.getLeadingCommentRanges(sourceFile.text, node.pos) ?? []).filter(
    (range) => range.kind === ts.SyntaxKind.MultiLineCommentTrivia && sourceFile.text.startsWith("/**", range.pos)
  )

/** The ```ts blocks of a text, with the 0-based line of each block's first code line. */
const tsBlocks = (
  text: string,
  options: { readonly allowNoCheck: boolean }
): ReadonlyArray<{ readonly code: string; readonly lineOffset: number }> => {
  const blocks: Array<{ code: string; lineOffset: number }> = []
  const lines = text.split("\n")
  let current: { lines: Array<string>; lineOffset: number; check: boolean } | undefined
  let fenceIndent = 0
  lines.forEach((line, index) => {
    const fence = /^(\s*)```\s*(\S*)\s*(.*)$/.exec(line)
    if (current === undefined) {
      if (fence !== null) {
        const lang = fence[2] ?? ""
        const isTs = lang === "ts" || lang === "typescript"
        const noCheck = options.allowNoCheck && (fence[3] ?? "").split(/\s+/).includes("no-check")
        fenceIndent = (fence[1] ?? "").length
        current = { lines: [], lineOffset: index + 1, check: isTs && !noCheck }
      }
      return
    }
    if (fence !== null && (fence[2] ?? "") === "" && (fence[3] ?? "") === "") {
      if (current.check) blocks.push({ code: current.lines.join("\n"), lineOffset: current.lineOffset })
      current = undefined
      return
    }
    current.lines.push(line.slice(Math.min(fenceIndent, line.length - line.trimStart().length)))
  })
  return blocks
}

// ---------------------------------------------------------------------------------------------
// 1. Every export documented.

interface Declaration {
  readonly name: string
  readonly node: ts.Node
}

/** Whether a function declaration is the implementation of overloads (declarations of its name without a body). */
const isOverloadImplementation = (
  statements: ts.NodeArray<ts.Statement>,
  declaration: ts.FunctionDeclaration
): boolean =>
  declaration.body !== undefined &&
  statements.some(
    (statement) =>
      ts.isFunctionDeclaration(statement) &&
      statement.body === undefined &&
      statement.name?.text === declaration.name?.text
  )

const exportedDeclarations = (statements: ts.NodeArray<ts.Statement>, prefix: string, ambient: boolean) => {
  const result: Array<Declaration> = []
  for (const statement of statements) {
    const exported =
      ambient ||
      (ts.canHaveModifiers(statement) &&
        ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
    if (ts.isExportDeclaration(statement)) {
      // `export * as X from "./X.js"` is documented here; `export { a } from "./a.js"` where `a` is declared.
      if (statement.exportClause !== undefined && ts.isNamespaceExport(statement.exportClause)) {
        result.push({ name: prefix + statement.exportClause.name.text, node: statement })
      }
      continue
    }
    if (!exported) continue
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) result.push({ name: prefix + declaration.name.text, node: statement })
      }
    } else if (
      // An overloaded function's implementation is not part of its type: its overloads are what
      // callers see, and each is documented.
      ((ts.isFunctionDeclaration(statement) && !isOverloadImplementation(statements, statement)) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      result.push({ name: prefix + statement.name.text, node: statement })
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) {
      const name = prefix + statement.name.text
      result.push({ name, node: statement })
      if (statement.body !== undefined && ts.isModuleBlock(statement.body)) {
        const isAmbient = ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword) ?? false
        result.push(...exportedDeclarations(statement.body.statements, `${name}.`, isAmbient))
      }
    }
  }
  return result
}

/** Adds the ```ts blocks of `doc`'s `@example`s to `examples`; returns how many it found. */
const collectExamples = (file: string, doc: Doc, label: string, where: string): number => {
  let found = 0
  doc.tags
    .filter((tag) => tag.name === "example")
    .forEach((tag, index) => {
      const blocks = tsBlocks(tag.text, { allowNoCheck: false })
      if (blocks.length === 0) problems.push(`${where}: an @example without a \`\`\`ts block`)
      blocks.forEach((block, blockIndex) => {
        found++
        examples.push({
          source: rel(file),
          line: doc.line + tag.lineOffset + block.lineOffset,
          label: `${label}${index + blockIndex === 0 ? "" : `.${index + blockIndex + 1}`}`,
          code: block.code
        })
      })
    })
  return found
}

const checkModule = (file: string): void => {
  const sourceFile = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const first = sourceFile.statements[0]
  let moduleDoc: ts.CommentRange | undefined
  if (first !== undefined) {
    const comments = docComments(sourceFile, first)
    // The module comment is the first JSDoc of the file when an import follows it, or when another
    // JSDoc (the first export's own) comes between it and the first statement.
    if (comments.length >= 2 || (comments.length === 1 && ts.isImportDeclaration(first))) moduleDoc = comments[0]
  }
  if (moduleDoc === undefined) {
    problems.push(`${rel(file)}: no module comment (a summary and @since before the first statement)`)
  } else {
    const doc = parseDoc(sourceFile, moduleDoc)
    if (doc.summary === "") problems.push(`${rel(file)}:${doc.line}: the module comment has no summary`)
    if (!doc.tags.some((tag) => tag.name === "since")) {
      problems.push(`${rel(file)}:${doc.line}: the module comment has no @since`)
    }
    if (collectExamples(file, doc, Path.basename(file, ".ts"), `${rel(file)}:${doc.line}: the module comment`) === 0) {
      problems.push(`${rel(file)}:${doc.line}: the module comment has no @example`)
    }
  }

  const byName = new Map<string, Array<{ readonly doc: Doc | undefined; readonly line: number }>>()
  for (const { name, node } of exportedDeclarations(sourceFile.statements, "", false)) {
    const comments = docComments(sourceFile, node)
    const range = comments[comments.length - 1]
    const doc = range !== undefined && range !== moduleDoc ? parseDoc(sourceFile, range) : undefined
    const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1
    byName.set(name, [...(byName.get(name) ?? []), { doc, line }])
  }

  for (const [name, declarations] of byName) {
    let hasSummary = false
    for (const { doc, line } of declarations) {
      const where = `${rel(file)}:${line}: ${name}`
      if (doc === undefined) {
        problems.push(`${where}: no JSDoc comment`)
        continue
      }
      if (doc.summary !== "") hasSummary = true
      const since = doc.tags.find((tag) => tag.name === "since")
      if (since === undefined) problems.push(`${where}: no @since`)
      else if (!/^\d+\.\d+\.\d+$/.test(since.text.trim()))
        problems.push(`${where}: @since "${since.text.trim()}" is not a version`)
      const category = doc.tags.find((tag) => tag.name === "category")
      if (category === undefined || category.text.trim() === "") problems.push(`${where}: no @category`)
      collectExamples(file, doc, `${Path.basename(file, ".ts")}.${name}`, where)
    }
    const where = `${rel(file)}:${declarations[0]?.line ?? 0}: ${name}`
    if (!hasSummary) problems.push(`${where}: no one-line summary`)
  }
}

for (const pkg of publishable) {
  for (const file of publicModules(pkg)) checkModule(file)
}

// ---------------------------------------------------------------------------------------------
// 3. Package READMEs stand alone.

const readText = (file: string): string | undefined => {
  const path = Path.join(root, file)
  if (Fs.existsSync(path)) return Fs.readFileSync(path, "utf8")
  problems.push(`${file}: missing`)
  return undefined
}

/** Each line of `markdown` with fenced blocks blanked out and inline code removed: the prose links live in. */
const proseLines = (markdown: string): ReadonlyArray<string> => {
  let fenced = false
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return ""
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, "")
  })
}

const workspaceScripts = Object.keys(
  (JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { readonly scripts: object }).scripts
)

for (const readme of packageReadmes) {
  const text = readText(readme)
  if (text === undefined) continue
  proseLines(text).forEach((line, index) => {
    for (const [, target] of line.matchAll(/\]\(\s*<?([^)\s>]*)/g)) {
      if (!/^(https?:|mailto:|#)/.test(target ?? ""))
        problems.push(`${readme}:${index + 1}: link to "${target}": npm shows this README alone; use an absolute URL`)
    }
  })
  text.split("\n").forEach((line, index) => {
    for (const [command, script] of line.matchAll(/\bpnpm(?:@[\w.]+)?\s+(?:run\s+)?([\w:-]+)/g)) {
      if (workspaceScripts.includes(script ?? ""))
        problems.push(
          `${readme}:${index + 1}: "${command}" is a command of this repository, not of the package's users`
        )
    }
  })
}

const rootText = readText("README.md") ?? ""
const libraryText = readText(libraryReadme)
if (libraryText !== undefined) {
  try {
    const texts = (markdown: string, source: string) => installBlocks(markdown, source).map((block) => block.text)
    if (JSON.stringify(texts(libraryText, libraryReadme)) !== JSON.stringify(texts(rootText, "README.md")))
      problems.push(`${libraryReadme}: its install blocks differ from README.md's; copy them word for word`)
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error))
  }
  for (const header of sharedTables) {
    const expected = tableWithHeader(rootText, header)
    if (expected === undefined) problems.push(`README.md: no table starting with a "${header}" column`)
    else if (JSON.stringify(tableWithHeader(libraryText, header)) !== JSON.stringify(expected))
      problems.push(`${libraryReadme}: its "${header}" table differs from README.md's; copy it word for word`)
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Links lead somewhere.

/** The anchors GitHub gives the headings of `markdown`: lower case, punctuation dropped, each space a hyphen. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    for (const [, id] of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id ?? "")
    if (heading === null) continue
    const text = (heading[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-")
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

/** Markdown files whose relative links and anchors are checked. */
const linkedDocs = ["README.md", ...guides, "BENCHMARKS.md", ...packageReadmes]
const anchorCache = new Map<string, ReadonlySet<string>>()
const anchorsOfFile = (file: string): ReadonlySet<string> => {
  const cached = anchorCache.get(file)
  if (cached !== undefined) return cached
  const anchors = anchorsOf(Fs.readFileSync(Path.join(root, file), "utf8"))
  anchorCache.set(file, anchors)
  return anchors
}

for (const doc of linkedDocs) {
  const text = readText(doc)
  if (text === undefined) continue
  proseLines(text).forEach((line, index) => {
    for (const [, target = ""] of line.matchAll(/\]\(\s*<?([^)\s>]*)/g)) {
      if (/^[a-z][\w+.-]*:/i.test(target)) continue
      const where = `${doc}:${index + 1}: link to "${target}"`
      const hash = target.indexOf("#")
      const path = hash === -1 ? target : target.slice(0, hash)
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
      const file = path === "" ? doc : Path.relative(root, Path.resolve(Path.dirname(Path.join(root, doc)), path))
      if (file.startsWith("..") || !Fs.existsSync(Path.join(root, file))) {
        problems.push(`${where}: ${file} does not exist`)
        continue
      }
      if (anchor === undefined) continue
      if (!file.endsWith(".md")) problems.push(`${where}: an anchor into a file that is not markdown`)
      else if (!anchorsOfFile(file).has(anchor)) problems.push(`${where}: ${file} has no heading with that anchor`)
    }
  })
}

// README ```ts blocks.
for (const readme of readmes) {
  const file = Path.join(root, readme)
  if (!Fs.existsSync(file)) continue
  tsBlocks(Fs.readFileSync(file, "utf8"), { allowNoCheck: true }).forEach((block, index) => {
    examples.push({
      source: readme,
      line: block.lineOffset + 1,
      label: `${readme.replace(/[/.]/g, "_")}.${index + 1}`,
      code: block.code
    })
  })
}

// ---------------------------------------------------------------------------------------------
// 2. Type-check every example, in the package its imports resolve from.

const typeCheck = (examplesPackage: string, packageExamples: ReadonlyArray<Example>): void => {
  const outDir = Path.join(root, examplesPackage, outDirName)
  Fs.rmSync(outDir, { recursive: true, force: true })
  Fs.mkdirSync(outDir, { recursive: true })

  const generated = new Map<string, Example>()
  packageExamples.forEach((example, index) => {
    const fileName = `${String(index + 1).padStart(3, "0")}_${example.label.replace(/[^\w.-]/g, "_")}.ts`
    const file = Path.join(outDir, fileName)
    // Each example is its own module; `export {}` keeps one without imports from sharing globals.
    const isModule = /^\s*(import|export)\s/m.test(example.code)
    Fs.writeFileSync(file, `${example.code}\n${isModule ? "" : "export {}\n"}`)
    generated.set(Path.normalize(file), example)
  })

  const tsconfigFile = Path.join(outDir, "tsconfig.json")
  Fs.writeFileSync(
    tsconfigFile,
    `${JSON.stringify(
      {
        extends: Path.relative(outDir, Path.join(root, "tsconfig.base.json")),
        compilerOptions: { noEmit: true, noUnusedLocals: false, noUnusedParameters: false },
        include: ["*.ts"]
      },
      null,
      2
    )}\n`
  )

  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfigFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
      }
    }
  )
  if (config === undefined) throw new Error(`cannot read ${tsconfigFile}`)
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options })
  const diagnostics = ts.getPreEmitDiagnostics(program)

  for (const diagnostic of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
    if (diagnostic.file === undefined) {
      problems.push(`TS${diagnostic.code}: ${message}`)
      continue
    }
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    const example = generated.get(Path.normalize(diagnostic.file.fileName))
    problems.push(
      example === undefined
        ? `${rel(diagnostic.file.fileName)}:${line + 1}:${character + 1}: TS${diagnostic.code}: ${message}`
        : `${example.source}:${example.line + line}: example ${example.label}: TS${diagnostic.code}: ${message}`
    )
  }

  if (!keep) Fs.rmSync(outDir, { recursive: true, force: true })
}

for (const examplesPackage of examplesPackages) {
  typeCheck(
    examplesPackage,
    examples.filter((example) => examplesPackageOf(example) === examplesPackage)
  )
}

const modules = publishable.reduce((n, pkg) => n + publicModules(pkg).length, 0)
if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  console.error(
    `docs:check: ${problems.length} problem(s) in ${modules} public modules and ${examples.length} examples`
  )
  process.exit(1)
}
console.log(`docs:check: ${modules} public modules documented, ${examples.length} examples type-check`)
