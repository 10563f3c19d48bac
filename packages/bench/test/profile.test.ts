/**
 * `pnpm bench:profile` runs and its output is well formed: its command line, then a tiny run of
 * both lines (the Effect 4 one in its child process under Node 22) and the shape of every table.
 * No figure is compared with a threshold; only what follows from the definitions is checked
 * exactly (a baseline is 1.00× itself, the outage's requests per call are its count over the
 * calls, and lie between one and the three attempts of the default policy).
 */
import { execFile } from "node:child_process"
import * as Fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseProfileArgs, profileArgs } from "../src/profile.js"

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
const entry = fileURLToPath(new URL("../src/inProcess.ts", import.meta.url))
const outageCalls = 40

describe("the bench:profile command line", () => {
  it("reads --quick, --calls, --rounds, --outage-calls, --ablations and --effect3-only, and rejects anything else", () => {
    expect(parseProfileArgs([])).toEqual({
      calls: 3_000,
      rounds: 5,
      outageCalls: 2_000,
      ablations: false,
      effect3Only: false
    })
    const given = parseProfileArgs(["--", "--quick", "--rounds=2", "--ablations", "--effect3-only"])
    expect(given).toEqual({ calls: 1_000, rounds: 2, outageCalls: 1_000, ablations: true, effect3Only: true })
    // What the Effect 4 process is handed reads back as the same options, for its own line.
    expect(parseProfileArgs(profileArgs(given))).toEqual({ ...given, effect3Only: false })
    const profiled = parseProfileArgs(["--quick", "--cpu-prof-dir=profiles"])
    expect(profiled.cpuProfileDir).toBe(Path.resolve("profiles"))
    expect(parseProfileArgs(profileArgs(profiled))).toEqual(profiled)
    for (const bad of ["--calls=0", "--rounds=1.5", "--calls", "--fast", "--quick=1", "--cpu-prof-dir="]) {
      expect(() => parseProfileArgs([bad]), bad).toThrow(/unknown option/)
    }
  })
})

/** The lines after the first line of `section` that contains `title`, up to a blank line. */
const tableAfter = (section: string, title: string): Array<string> => {
  const lines = section.split("\n")
  const start = lines.findIndex((line) => line.includes(title))
  expect(start, `no "${title}" in the output`).toBeGreaterThanOrEqual(0)
  const end = lines.findIndex((line, index) => index > start && line.trim() === "")
  return lines.slice(start + 1, end === -1 ? undefined : end)
}

const rowName = (line: string) => line.trim().split(/\s{2,}/)[0]

const number = String.raw`-?\d+\.\d`
const ratio = String.raw`\d+\.\d\d×`

describe("pnpm bench:profile, a tiny run of both lines", () => {
  let output = ""
  let profileDir = ""
  // From the line's first table on: its own tables come before any of the other line's.
  const sectionOf = (line: string) => output.slice(output.indexOf(`${line} (Node v`))
  beforeAll(async () => {
    profileDir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "bench-profile-test-"))
    output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          "--import",
          tsxLoader,
          entry,
          "--calls=20",
          "--rounds=2",
          `--outage-calls=${outageCalls}`,
          "--ablations",
          `--cpu-prof-dir=${profileDir}`
        ],
        { timeout: 240_000, maxBuffer: 1 << 20 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
      )
    })
  }, 300_000)
  afterAll(async () => {
    if (profileDir !== "") await Fs.rm(profileDir, { recursive: true, force: true })
  })

  for (const line of ["Effect 3", "Effect 4"]) {
    it(`${line}: the happy path at 1 and 64 in flight, every form next to its bare client and retryTransient`, () => {
      for (const concurrency of [1, 64]) {
        const table = tableAfter(sectionOf(line), `happy path, c=${concurrency} `)
        expect(table[0]).toMatch(/µs CPU\s+× bare\s+× rT CPU\s+KiB\s+× rT KiB/)
        expect(table.slice(1, -1).map(rowName)).toEqual([
          "bare HttpClient",
          "retryTransient",
          "ours, built once",
          "ours, per call",
          "bare, in a Scope",
          "once, no time limits",
          "once, no retry budget"
        ])
        for (const text of table.slice(1, -1)) {
          expect(text).toMatch(new RegExp(`${number}\\s+${ratio}\\s+${ratio}\\s+${number}\\s+${ratio}$`))
        }
        expect(table[1]).toMatch(/\s1\.00×\s+\d+\.\d\d×\s+\d+\.\d\s+\d+\.\d\d×$/)
        expect(table[2]).toMatch(/\s1\.00×\s+\d+\.\d\s+1\.00×$/)
        expect(table.at(-1)).toMatch(new RegExp(`^  per call / once: CPU ${ratio}, allocation ${ratio}$`))
      }
    })

    it(`${line}: one retry, next to retryTransient's, and what a retry adds`, () => {
      const table = tableAfter(sectionOf(line), "one retry (a 503 then a 200), c=1")
      expect(table[0]).toMatch(/µs CPU\s+× rT CPU\s+KiB\s+× rT KiB/)
      expect(table.slice(1, 4).map(rowName)).toEqual([
        "retryTransient, one retry",
        "ours once, one retry",
        "ours per call, one retry"
      ])
      expect(table[1]).toMatch(/\s1\.00×\s+\d+\.\d\s+1\.00×$/)
      expect(table[4]).toMatch(new RegExp(`^  per call / once: CPU ${ratio}, allocation ${ratio}$`))
      expect(table[5]).toMatch(/^Per retry/)
      for (const text of table.slice(6, 9)) expect(text).toMatch(new RegExp(`${number} µs CPU\\s+${number} KiB$`))
    })

    it(`${line}: the outage figure, per call and through one shared layer`, () => {
      const table = tableAfter(
        sectionOf(line),
        `total outage (every answer a 503 with Retry-After: 0), ${outageCalls} calls`
      )
      expect(table.map(rowName)).toEqual(["ours, per call", "ours, one shared layer"])
      for (const text of table) {
        const [, perCall, requests] = /(\d+\.\d\d)\s+\((\d+) requests\)$/.exec(text) ?? []
        expect(Number(perCall)).toBeCloseTo(Number(requests) / outageCalls, 2)
        expect(Number(requests)).toBeGreaterThanOrEqual(outageCalls)
        expect(Number(requests)).toBeLessThanOrEqual(3 * outageCalls)
      }
    })
  }

  it("with --cpu-prof-dir, writes a CPU profile of each row of each line: 7 forms at 1 and 64 in flight, 3 retried", async () => {
    const files = (await Fs.readdir(profileDir)).sort()
    for (const line of ["effect-3", "effect-4"]) {
      const own = files.filter((file) => file.startsWith(`${line}-`))
      expect(own).toHaveLength(2 * 7 + 3)
      expect(own).toContain(`${line}-ours-built-once-c1.cpuprofile`)
      expect(own).toContain(`${line}-retrytransient-one-retry-c1.cpuprofile`)
    }
    const profile: unknown = JSON.parse(
      await Fs.readFile(Path.join(profileDir, "effect-4-ours-built-once-c64.cpuprofile"), "utf8")
    )
    expect(profile).toMatchObject({ nodes: expect.any(Array), samples: expect.any(Array) })
  })

  it("prints the Effect 3 line, then the Effect 4 one under Node 22", () => {
    const effect3 = output.indexOf(`Effect 3 (Node ${process.version})`)
    const effect4 = /Effect 4 \(Node v(\d+)\.(\d+)/.exec(output)
    expect(effect3).toBeGreaterThanOrEqual(0)
    expect(effect4?.index).toBeGreaterThan(effect3)
    const [major = 0, minor = 0] = [Number(effect4?.[1]), Number(effect4?.[2])]
    expect(major > 22 || (major === 22 && minor >= 19)).toBe(true)
    expect(output).not.toMatch(/NaN|undefined/)
  })
})
