// @generated from templates/test/readme/readme.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The testing guide's examples run in CI: docs/testing.md shows, for this line, one ```ts block per
 * test file of this folder, each marked `<!-- example: tested by PATH -->` with PATH that file, and
 * each file ends with its block verbatim. This test fails when a block and its file drift apart,
 * or when a file is no longer shown. (The examples tests check the marker of every "tested by"
 * block of every README and guide too; this one checks that this line's files are all there.)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import * as DocExamples from "../../../../scripts/doc-examples.js"

const guide = "docs/testing.md"
const folder = "packages/resilience/test/readme/"
const files = ["exactWaits.test.ts", "chaosServer.e2e.test.ts"]

/** The guide's blocks tested by a file of this folder, in the guide's order: the file's name and the block. */
const blocks = DocExamples.readmeExamples().examples.flatMap((example) =>
  example.source === guide && example.marker?._tag === "TestedBy" && example.marker.path.startsWith(folder)
    ? [{ file: example.marker.path.slice(folder.length), code: example.code }]
    : []
)

describe("docs/testing.md, Testing your code (Effect 3)", () => {
  it("shows one example per test file of test/readme, in order", () => {
    expect(blocks.map((block) => block.file)).toEqual(files)
  })

  it.each(blocks.map((block, index) => [block.file, index] as const))("%s holds block %i verbatim", (file, index) => {
    const source = Fs.readFileSync(Path.join(import.meta.dirname, file), "utf8")
    expect(source.endsWith(`\n${blocks[index]?.code}\n`)).toBe(true)
  })
})
