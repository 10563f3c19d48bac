/**
 * The consumer test's install step: runs the `npm install` lines of the READMEs' install blocks
 * (between `<!-- install:start -->` and `<!-- install:end -->`) exactly as written, in order, in a
 * fresh project, with our package names replaced by the packed tarballs (they are not on the
 * registry before release). Everything else on the lines, version ranges included, is what a
 * reader types, so the test breaks when the README's lines break.
 *
 * usage: tsx scripts/install-from-readme.ts --cwd <dir> [--project <name>] [--tarball <name>=<file>]...
 *          [--same-as-first <readme>]... <readme>...
 *
 * `--project` names the project being installed: a block labelled for another project
 * (`<!-- install:start effect4 -->` in an Effect 3 project) is skipped; unlabelled blocks always run.
 * `--same-as-first` names a README whose install blocks must equal those of the first README
 * (the package README that npm shows repeats the repository's lines); it is checked, not run.
 * Every `--tarball` name must appear on some line, so a tarball cannot silently go untested.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { installBlocks, installCommands } from "./readme-sections.js"

const usage =
  "usage: tsx scripts/install-from-readme.ts --cwd <dir> [--project <name>] [--tarball <name>=<file>]... [--same-as-first <readme>]... <readme>..."

const fail = (message: string): never => {
  console.error(`install-from-readme: ${message}`)
  process.exit(1)
}

let cwd: string | undefined
let project: string | undefined
const tarballs = new Map<string, string>()
const sameAsFirst: Array<string> = []
const readmes: Array<string> = []
const args = process.argv.slice(2)
for (let index = 0; index < args.length; index++) {
  const arg = args[index]!
  const value = () => args[++index] ?? fail(`${arg} needs a value; ${usage}`)
  if (arg === "--cwd") cwd = value()
  else if (arg === "--project") project = value()
  else if (arg === "--tarball") {
    const [name, file] = value().split(/=(.*)/s)
    if (name === undefined || name === "" || file === undefined || !Fs.existsSync(file))
      fail(`--tarball takes <name>=<existing file>; ${usage}`)
    else tarballs.set(name, file)
  } else if (arg === "--same-as-first") sameAsFirst.push(value())
  else if (arg.startsWith("-")) fail(`unknown option ${arg}; ${usage}`)
  else readmes.push(arg)
}
if (cwd === undefined || readmes.length === 0) fail(usage)

/** Runs `parse`; a README that breaks the install-block rules ends the run with the reason. */
const orFail = <A>(parse: () => A): A => {
  try {
    return parse()
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
}

const blocksOf = (readme: string) => orFail(() => installBlocks(Fs.readFileSync(readme, "utf8"), readme))

const first = readmes[0]!
const firstTexts = blocksOf(first).map((block) => block.text)
for (const readme of sameAsFirst) {
  const texts = blocksOf(readme).map((block) => block.text)
  if (JSON.stringify(texts) !== JSON.stringify(firstTexts)) {
    fail(`the install blocks of ${readme} differ from those of ${first}; copy them word for word`)
  }
  console.log(`install-from-readme: ${readme} has the same install lines as ${first}`)
}

const used = new Set<string>()
const asRun = (arg: string, source: string): string => {
  const tarball = tarballs.get(arg)
  if (tarball !== undefined) {
    used.add(arg)
    return tarball
  }
  for (const name of tarballs.keys()) {
    if (arg.startsWith(`${name}@`))
      fail(`${source}: ${arg} names a version of ${name}, which is tested from its tarball`)
  }
  return arg
}

for (const readme of readmes) {
  for (const block of blocksOf(readme)) {
    if (block.label !== undefined && block.label !== project) {
      console.log(`== ${readme}:${block.line}: skipped, its lines are for a project "${block.label}"`)
      continue
    }
    for (const command of orFail(() => installCommands(block, readme))) {
      const where = `${readme}:${command.line}`
      const [install, ...rest] = command.args
      // Quieter output only; none of these flags changes what npm resolves.
      const run = [install!, "--no-audit", "--no-fund", "--loglevel=error", ...rest.map((arg) => asRun(arg, where))]
      console.log(`== ${where}: npm ${command.args.join(" ")}`)
      const result = ChildProcess.spawnSync("npm", run, { cwd: cwd!, stdio: "inherit", timeout: 300_000 })
      if (result.status !== 0) {
        fail(`${where}: npm ${run.join(" ")} failed (${result.error?.message ?? `status ${result.status}`})`)
      }
    }
  }
}

const unused = [...tarballs.keys()].filter((name) => !used.has(name))
if (unused.length > 0) fail(`no install line of ${readmes.join(", ")} installs ${unused.join(", ")}`)
