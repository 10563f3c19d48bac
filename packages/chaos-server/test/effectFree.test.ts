import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const sourceDirectory = fileURLToPath(new URL("../src", import.meta.url))

/**
 * Every module specifier a source file imports or re-exports, statically or dynamically. Comments go first:
 * the JSDoc examples import the Effect layers on purpose.
 */
const specifiers = (file: string): ReadonlyArray<string> => {
  const code = Fs.readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
  return Array.from(code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g), (match) => match[1] ?? "")
}

/** The files `entry` reaches through relative imports, itself included, with the packages they import. */
const reach = (entry: string) => {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const specifier of specifiers(file)) {
      if (specifier.startsWith(".")) visit(Path.resolve(Path.dirname(file), specifier.replace(/\.js$/, ".ts")))
      else packages.add(specifier)
    }
  }
  visit(Path.join(sourceDirectory, entry))
  return { files: [...files].map((file) => Path.relative(sourceDirectory, file)), packages: [...packages] }
}

describe("the Effect-free entry points", () => {
  // A user without `effect` installed imports the root and runs the CLI; nothing they load may need it.
  for (const entry of ["index.ts", "startChaosServer.ts", "bin.ts"]) {
    it(`${entry} reaches node's modules only`, () => {
      const { files, packages } = reach(entry)
      expect(files).toContain("internal/app.ts")
      expect(packages.filter((name) => !name.startsWith("node:"))).toEqual([])
    })
  }

  it("the Effect 3 layer is the one entry point that imports effect", () => {
    expect(
      reach("effect3.ts")
        .packages.filter((name) => !name.startsWith("node:"))
        .sort()
    ).toEqual(["effect/Context", "effect/Effect", "effect/Layer", "effect/Scope"])
  })
})
