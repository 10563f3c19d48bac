/**
 * Parts of the READMEs that scripts check or run: the install blocks between
 * `<!-- install:start -->` and `<!-- install:end -->`, and tables found by their first header cell.
 * Used by `pnpm docs:check` (the package READMEs repeat the root README's install lines and tables
 * word for word) and by the consumer test (which installs with exactly those lines).
 *
 * A block can name the project it is for, `<!-- install:start effect4 -->`, where one README
 * shows the lines of projects that cannot be one (an Effect 3 and an Effect 4 project); the
 * consumer test then runs it only in a project of that name.
 */

export const installStart = "<!-- install:start -->"
export const installEnd = "<!-- install:end -->"
const installStartLine = /^<!-- install:start(?: ([\w-]+))? -->$/

/**
 * A block between the install markers: its text, the 1-based line of its first line, and the
 * project it is for (undefined: any).
 */
export interface InstallBlock {
  readonly line: number
  readonly text: string
  readonly label: string | undefined
}

/** Every install block of `markdown`, in order. Throws on an unclosed, nested or stray marker. */
export const installBlocks = (markdown: string, source: string): ReadonlyArray<InstallBlock> => {
  const lines = markdown.split("\n")
  const blocks: Array<InstallBlock> = []
  let start: { readonly index: number; readonly label: string | undefined } | undefined
  lines.forEach((line, index) => {
    const opening = installStartLine.exec(line.trim())
    if (opening !== null) {
      if (start !== undefined) throw new Error(`${source}:${index + 1}: ${installStart} inside an install block`)
      start = { index: index + 1, label: opening[1] }
    } else if (line.trim() === installEnd) {
      if (start === undefined) throw new Error(`${source}:${index + 1}: ${installEnd} without ${installStart}`)
      blocks.push({ line: start.index + 1, text: lines.slice(start.index, index).join("\n"), label: start.label })
      start = undefined
    }
  })
  if (start !== undefined) throw new Error(`${source}:${start.index}: ${installStart} is never closed`)
  return blocks
}

/** An `npm install` command of an install block, split into its arguments (after `npm`). */
export interface InstallCommand {
  readonly line: number
  readonly args: ReadonlyArray<string>
}

/**
 * The commands of an install block: a ```sh fence holding only `npm install ...` lines, each with
 * an optional `# comment`. Anything a shell would interpret (quotes, `$`, `;`, `&&`) is refused, so
 * running the arguments without a shell runs exactly what the reader would.
 */
export const installCommands = (block: InstallBlock, source: string): ReadonlyArray<InstallCommand> => {
  const lines = block.text.split("\n")
  const filled = lines.flatMap((line, index) => (line.trim() === "" ? [] : [index]))
  const first = filled[0] ?? -1
  const last = filled[filled.length - 1] ?? -1
  if (first === -1 || lines[first]?.trim() !== "```sh" || lines[last]?.trim() !== "```" || first === last) {
    throw new Error(`${source}:${block.line}: an install block must be one \`\`\`sh fence`)
  }
  const commands: Array<InstallCommand> = []
  lines.slice(first + 1, last).forEach((raw, index) => {
    const line = block.line + first + 1 + index
    const code = raw.replace(/(^|\s)#.*$/, "").trim()
    if (code === "") return
    if (/[^\w@/^~.=:<>+-\s]/.test(code)) {
      throw new Error(`${source}:${line}: an install line holds plain arguments only, got ${JSON.stringify(code)}`)
    }
    const [program, ...args] = code.split(/\s+/)
    if (program !== "npm" || args[0] !== "install") {
      throw new Error(`${source}:${line}: an install line must start with "npm install", got ${JSON.stringify(code)}`)
    }
    commands.push({ line, args })
  })
  if (commands.length === 0) throw new Error(`${source}:${block.line}: an install block without a command`)
  return commands
}

/**
 * The markdown table whose first header cell is `firstHeaderCell`, as its lines, or undefined.
 * Cells are trimmed and separator dashes shortened, so column widths do not matter when tables are compared.
 */
export const tableWithHeader = (markdown: string, firstHeaderCell: string): ReadonlyArray<string> | undefined => {
  const lines = markdown.split("\n")
  const start = lines.findIndex((line) => line.startsWith("|") && line.split("|")[1]?.trim() === firstHeaderCell)
  if (start === -1) return undefined
  const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"))
  return lines.slice(start, end === -1 ? undefined : end).map((line) =>
    line
      .split("|")
      .map((cell) => cell.trim().replace(/^(:?)-+(:?)$/, "$1-$2"))
      .join("|")
  )
}
