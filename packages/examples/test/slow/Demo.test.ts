/**
 * `pnpm demo` end to end, as a newcomer runs it: the Effect 3 scenarios in the demo's own process,
 * and `pnpm demo -- --line effect4`, where that process runs the chaos server and starts the
 * Effect 4 demo under Node 22 through scripts/node22.sh; its output and exit code are the demo's.
 * Each run takes its real waits (about 20 s), so these run in `pnpm test:slow`.
 */
import * as ChildProcess from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import * as Driver from "../../src/demo/Driver.js"

const demo = fileURLToPath(new URL("../../src/demo.ts", import.meta.url))
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/** Runs `pnpm demo -- <args>` as the root script does (tsx on this Node), without colour. */
const runDemo = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = ChildProcess.spawn(process.execPath, ["--import", tsxLoader, demo, "--", ...args], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 240_000
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The demo exited 0 with every scenario behaving; its stdout's lines. */
const expectEveryScenarioPassed = (run: {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}) => {
  expect(run.stderr).toBe("")
  expect(run.code).toBe(0)
  const lines = run.stdout.split("\n")
  // The timeline of the unkeyed POST, whatever the time it took.
  expect(
    lines.filter((line) =>
      /^ {2}\+\d+\.\d\ds {2}attempt 1 {2}503 Service Unavailable {2}-> give up \(not idempotent\)$/.test(line)
    )
  ).toHaveLength(1)
  expect(lines.filter((line) => line.startsWith("   ok  "))).toHaveLength(10)
  expect(run.stdout.trimEnd().endsWith("all 10 scenarios behaved as expected")).toBe(true)
  return lines
}

describe("pnpm demo", () => {
  it("runs every scenario on the Effect 3 line and exits 0", async () => {
    expectEveryScenarioPassed(await runDemo([]))
  }, 240_000)

  it("runs every scenario on the Effect 4 line, under Node 22, with the same timeline and exit code", async () => {
    const lines = expectEveryScenarioPassed(await runDemo(["--line", "effect4"]))
    const [, major] =
      /^chaos server on http:\/\/127\.0\.0\.1:\d+, effect-http-resilience-effect4 on Effect 4 \(Node v(\d+)\./.exec(
        lines[0] ?? ""
      ) ?? []
    expect(Number(major), lines[0]).toBeGreaterThanOrEqual(22)
  }, 240_000)

  it("exits with 1 and the usage on an unknown line", async () => {
    const { code, stderr, stdout } = await runDemo(["--line", "effect5"])
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr.trim()).toBe(Driver.usage)
  }, 60_000)
})
