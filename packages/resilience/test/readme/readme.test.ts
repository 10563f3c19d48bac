/**
 * The README's "Testing your code" examples run in CI: each ```ts block of that section is a test
 * file of this folder, verbatim. This test fails when a block and its file drift apart.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"

const readme = Fs.readFileSync(Path.join(import.meta.dirname, "../../README.md"), "utf8")
const section = readme.slice(readme.indexOf("## Testing your code"))
const blocks = [...section.slice(0, section.indexOf("\n## ", 1)).matchAll(/```ts\n([\s\S]*?)\n```/g)].map(
  (match) => match[1] ?? ""
)
const files = ["exactWaits.test.ts", "chaosServer.e2e.test.ts"]

describe("README, Testing your code", () => {
  it("has one example per test file of test/readme", () => {
    expect(blocks).toHaveLength(files.length)
  })

  it.each(files.map((file, index) => [file, index] as const))(
    "%s holds block %i of the section verbatim",
    (file, index) => {
      const source = Fs.readFileSync(Path.join(import.meta.dirname, file), "utf8")
      expect(source.endsWith(`\n${blocks[index]}\n`)).toBe(true)
    }
  )
})
