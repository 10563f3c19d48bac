/** The command line of `pnpm bench`. */
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type SectionName, sectionNames } from "./bench.js"

export interface CommandLine {
  readonly quick: boolean
  readonly sections: ReadonlyArray<SectionName>
  /** Where to write the results; {@link defaultOutDir} when absent. */
  readonly outDir: string | undefined
}

/** The package's `results/`: the committed results of the latest full run, which the README quotes. */
export const committedResultsDir = fileURLToPath(new URL("../results/", import.meta.url))

/**
 * Where a run writes without `--out`: a full run replaces the committed results; a quick run goes to
 * `results/quick/` (git-ignored), so trying the bench never overwrites the figures the README quotes.
 */
const defaultOutDir = (quick: boolean): string =>
  quick ? Path.join(committedResultsDir, "quick") : committedResultsDir

/** The directory a run described by `commandLine` writes to. */
export const outDirOf = (commandLine: CommandLine): string => commandLine.outDir ?? defaultOutDir(commandLine.quick)

const usage = `usage: pnpm bench [-- [--quick] [--only=${sectionNames.join(",")}] [--out=<dir>]]`

const isSection = (name: string): name is SectionName => sectionNames.some((section) => section === name)

/** Reads the options; a `--` (as pnpm may pass it through) is ignored. Throws on anything unknown. */
export const parseCommandLine = (args: ReadonlyArray<string>): CommandLine => {
  let quick = false
  let sections: ReadonlyArray<SectionName> = sectionNames
  let outDir: string | undefined
  for (const arg of args) {
    if (arg === "--") continue
    if (arg === "--quick") quick = true
    else if (arg.startsWith("--only=")) {
      const names = arg.slice("--only=".length).split(",")
      const unknown = names.filter((name) => !isSection(name))
      if (unknown.length > 0 || names.length === 0)
        throw new Error(`unknown section(s) ${unknown.join(", ")}; ${usage}`)
      sections = names.filter(isSection)
    } else if (arg.startsWith("--out=") && arg.length > "--out=".length) outDir = arg.slice("--out=".length)
    else throw new Error(`unknown option ${arg}; ${usage}`)
  }
  return { quick, sections, outDir }
}
