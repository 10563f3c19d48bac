/**
 * The README's "Testing your code" examples run in CI: each ```ts block of that section is a test
 * file of this folder, verbatim. This test fails when a block and its file drift apart.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"

/** The ```ts blocks of a README's "Testing your code" section. */
const testingExamples = (path: string) => {
  const readme = Fs.readFileSync(Path.join(import.meta.dirname, path), "utf8")
  const section = readme.slice(readme.indexOf("## Testing your code"))
  return [...section.slice(0, section.indexOf("\n## ", 1)).matchAll(/```ts\n([\s\S]*?)\n```/g)].map(
    (match) => match[1] ?? ""
  )
}
const blocks = testingExamples("../../README.md")
// The repository's README shows the first of them.
const rootBlocks = testingExamples("../../../../README.md")
const files = ["exactWaits.test.ts", "chaosServer.e2e.test.ts"]

describe("README, Testing your code", () => {
  it("has one example per test file of test/readme", () => {
    expect(blocks).toHaveLength(files.length)
  })

  it("the repository's README shows the TestClock example as it is here", () => {
    expect(rootBlocks).toEqual([blocks[0]])
  })

  it.each(files.map((file, index) => [file, index] as const))(
    "%s holds block %i of the section verbatim",
    (file, index) => {
      const source = Fs.readFileSync(Path.join(import.meta.dirname, file), "utf8")
      expect(source.endsWith(`\n${blocks[index]}\n`)).toBe(true)
    }
  )
})
