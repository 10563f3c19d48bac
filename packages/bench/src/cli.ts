/** The command line of `pnpm bench`. */
import { type SectionName, sectionNames } from "./bench.js"

export interface CommandLine {
  readonly quick: boolean
  readonly sections: ReadonlyArray<SectionName>
  /** Where to write the results; the package's `results/` when absent. */
  readonly outDir: string | undefined
}

export const usage = `usage: pnpm bench [-- [--quick] [--only=${sectionNames.join(",")}] [--out=<dir>]]`

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
