/**
 * `pnpm bench` (the full run, a few minutes) or `pnpm bench -- --quick` (under a minute): markdown
 * tables to stdout, progress to stderr, and `latest.json`, `latest.md`, `throughput.svg` and
 * `contention.svg` under `packages/bench/results/` (a full run, committed) or
 * `packages/bench/results/quick/` (a quick run, git-ignored), or under `--out=<dir>`.
 */
import { runBench } from "./bench.js"
import { outDirOf, parseCommandLine } from "./cli.js"
import { fullConfig, quickConfig } from "./config.js"

const main = async (): Promise<void> => {
  const args = process.argv.slice(2).filter((arg) => arg !== "--")
  const commandLine = parseCommandLine(args)
  const { quick, sections } = commandLine
  const started = performance.now()
  const { files, markdown } = await runBench({
    config: quick ? quickConfig : fullConfig,
    sections,
    outDir: outDirOf(commandLine),
    command: ["pnpm bench", ...(args.length > 0 ? ["--", ...args] : [])].join(" "),
    log: (line) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1)}s] ${line}\n`)
  })
  process.stdout.write(markdown)
  process.stderr.write(`written: ${files.join(", ")}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
