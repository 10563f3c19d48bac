// Writes the files the two Effect lines share from one template each (templates/README.md says
// the syntax): every `templates/<path>.tmpl` gives `packages/resilience/<path>` (Effect 3) and
// `packages/resilience-effect4/<path>` (Effect 4), formatted by biome.
//
// usage: tsx scripts/generate-lines.ts           write the generated files
//        tsx scripts/generate-lines.ts --check   fail, naming them, where a file is not what its template gives
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const templatesDir = join(root, "templates")
const biome = join(root, "node_modules", ".bin", "biome")

const packages = { effect3: "packages/resilience", effect4: "packages/resilience-effect4" } as const
type Line = keyof typeof packages
const lineNames = Object.keys(packages) as ReadonlyArray<Line>

// `{{name}}` in a template: what each line writes there.
const names: Readonly<Record<string, Readonly<Record<Line, string>>>> = {
  package: { effect3: "effect-http-resilience", effect4: "effect-http-resilience-effect4" },
  http: { effect3: "@effect/platform", effect4: "effect/http" },
  line: { effect3: "Effect 3", effect4: "Effect 4" },
  // `@since {{0.2.0}}`: what Effect 3 added in 0.2.0 came with the Effect 4 line's first release.
  "0.2.0": { effect3: "0.2.0", effect4: "0.1.0" }
}

const generatedMarker = "@generated from templates/"

const isLine = (word: string | undefined): word is Line => lineNames.some((line) => line === word)

const walk = (dir: string): ReadonlyArray<string> =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]
      )
    : []

/** The text one line gets from a template, before formatting; throws, naming the place, on a malformed template. */
const render = (template: string, line: Line, templatePath: string): string => {
  const out: Array<string> = []
  // The open `//#if`, if any: the line it names, whether we are past its `//#else`, where it opened.
  let open: { readonly line: Line; readonly inElse: boolean; readonly at: number } | undefined
  const fail = (at: number, problem: string): never => {
    throw new Error(`${templatePath}:${at}: ${problem}`)
  }
  for (const [index, text] of template.split("\n").entries()) {
    const at = index + 1
    const directive = /^\s*\/\/#(if|else|endif)\b\s*(\S*)\s*$/.exec(text)
    if (directive !== null) {
      const [, keyword, argument] = directive
      if (keyword === "if") {
        if (open !== undefined) fail(at, `//#if inside the //#if of line ${open.at} (they do not nest)`)
        if (!isLine(argument)) return fail(at, `//#if takes one of ${lineNames.join(", ")}, not "${argument}"`)
        open = { line: argument, inElse: false, at }
      } else if (open === undefined) {
        fail(at, `//#${keyword} without an //#if`)
      } else if (keyword === "else") {
        if (open.inElse || argument !== "") fail(at, "one bare //#else for each //#if")
        open = { ...open, inElse: true }
      } else {
        open = undefined
      }
      continue
    }
    if (/\/\/#(if|else|endif)\b/.test(text)) fail(at, "a directive stands alone on its line")
    if (open !== undefined && (open.line === line) === open.inElse) continue
    out.push(
      text.replace(/\{\{([^{}|]*)(?:\|([^{}]*))?\}\}/g, (whole, first: string, second: string | undefined) => {
        if (second !== undefined) return line === "effect3" ? first : second
        const name = names[first.trim()]
        return name === undefined
          ? fail(at, `unknown name in ${whole} (known: ${Object.keys(names).join(", ")})`)
          : name[line]
      })
    )
  }
  if (open !== undefined) fail(open.at, "//#if without an //#endif")
  return out.join("\n")
}

const renderOrExit = (template: string, line: Line, templatePath: string): string => {
  try {
    return render(template, line, templatePath)
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    return process.exit(1)
  }
}

const format = (text: string, target: string): string =>
  execFileSync(biome, ["format", `--stdin-file-path=${target}`], { cwd: root, input: text, encoding: "utf8" })

const check = process.argv.includes("--check")
const templates = walk(templatesDir).filter((file) => file.endsWith(".tmpl"))
const expected = new Set<string>()
const stale: Array<string> = []
for (const templateFile of templates) {
  const path = relative(templatesDir, templateFile).slice(0, -".tmpl".length)
  const templatePath = relative(root, templateFile)
  const template = readFileSync(templateFile, "utf8")
  for (const line of lineNames) {
    const target = join(packages[line], path)
    expected.add(target)
    const header = `// ${generatedMarker}${path}.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.`
    const generated = format(`${header}\n${renderOrExit(template, line, templatePath)}`, target)
    const targetFile = join(root, target)
    const current = existsSync(targetFile) ? readFileSync(targetFile, "utf8") : undefined
    if (current === generated) continue
    if (check) stale.push(target)
    else {
      mkdirSync(dirname(targetFile), { recursive: true })
      writeFileSync(targetFile, generated)
    }
  }
}

// A generated file whose template is gone is stale too: delete it or bring its template back.
const orphans = lineNames
  .flatMap((line) => ["src", "test"].flatMap((dir) => walk(join(root, packages[line], dir))))
  .map((file) => relative(root, file))
  .filter((file) => /\.[cm]?tsx?$/.test(file) && !expected.has(file))
  .filter((file) => (readFileSync(join(root, file), "utf8").split("\n", 1)[0] ?? "").includes(generatedMarker))

if (orphans.length > 0) {
  console.error(`generated files without a template (delete them, or restore the template):\n  ${orphans.join("\n  ")}`)
}
if (stale.length > 0) {
  console.error(`generated files that differ from their templates (run pnpm generate):\n  ${stale.join("\n  ")}`)
}
if (orphans.length > 0 || stale.length > 0) process.exit(1)
console.log(`${templates.length} templates, ${expected.size} files: ${check ? "all as generated" : "written"}`)
