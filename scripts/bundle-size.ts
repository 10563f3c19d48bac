/**
 * `pnpm size`: what `effect-http-resilience` adds to a bundle, and a tree-shaking check.
 *
 * Bundles the built package (`packages/resilience/dist`, so run `pnpm build` first) with esbuild,
 * `effect` and every `@effect/*` package external (an Effect program has them already), and
 * `redis` (node-redis, the optional peer of the Redis store, which a user installs for it), minified,
 * and reports the bytes minified and gzipped. The shared core (`@effect-http-resilience/core`, which
 * `@effect/*` does not match) is bundled and counted: a user's bundle carries it. Then bundles programs that import only `RetryAfter`
 * (from the root and from its subpath) and fails if the client came along: its service key, its
 * body-draining code, or an import of `@effect/platform/HttpClient`. Warns when the figures in the
 * README's "Bundle size" table are more than 5% off.
 *
 * usage: tsx scripts/bundle-size.ts
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Zlib from "node:zlib"
import * as esbuild from "esbuild"

const root = Path.resolve(import.meta.dirname, "..")
const dist = Path.join(root, "packages/resilience/dist")

if (!Fs.existsSync(Path.join(dist, "index.js"))) {
  console.error(`size: ${Path.relative(root, dist)}/index.js is missing; run \`pnpm build\` first`)
  process.exit(1)
}

const distPath = (module: string): string => JSON.stringify(Path.join(dist, module).split(Path.sep).join("/"))

const bundle = async (contents: string): Promise<string> => {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: root, sourcefile: "entry.js", loader: "js" },
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["effect", "effect/*", "@effect/*", "redis", "@redis/*"],
    logLevel: "warning"
  })
  const output = result.outputFiles[0]
  if (output === undefined) throw new Error("esbuild produced no output")
  return output.text
}

const sizes = (code: string) => ({
  minified: Buffer.byteLength(code),
  gzipped: Zlib.gzipSync(code, { level: 9 }).byteLength
})

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`

const full = await bundle(`export * from ${distPath("index.js")}`)
const retryAfterFromRoot = await bundle(
  `import { RetryAfter } from ${distPath("index.js")}\nconsole.log(RetryAfter.parse("120", Date.now()))`
)
const retryAfterFromSubpath = await bundle(
  `import * as RetryAfter from ${distPath("RetryAfter.js")}\nconsole.log(RetryAfter.parse("120", Date.now()))`
)

const rows = [
  ["effect-http-resilience (everything)", sizes(full)],
  ['only { RetryAfter } from "effect-http-resilience"', sizes(retryAfterFromRoot)],
  ['only "effect-http-resilience/RetryAfter"', sizes(retryAfterFromSubpath)]
] as const

console.log("bundle size (esbuild, minified, effect, @effect/* and redis external):")
for (const [name, { minified, gzipped }] of rows) {
  console.log(
    `  ${name.padEnd(52)} ${String(minified).padStart(7)} B minified (${kib(minified)}), ${String(gzipped).padStart(6)} B gzipped (${kib(gzipped)})`
  )
}

// The README's figures (section "Bundle size") should stay close to the measured ones.
const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
const documented = [
  /^\| everything\s*\| ([\d.]+) KiB\s*\| ([\d.]+) KiB/m,
  /^\| `import \{ RetryAfter \} from "effect-http-resilience"`\s*\| ([\d.]+) KiB\s*\| ([\d.]+) KiB/m,
  /^\| `import \* as RetryAfter from "effect-http-resilience\/RetryAfter"`\s*\| ([\d.]+) KiB\s*\| ([\d.]+) KiB/m
]
rows.forEach(([name, measured], index) => {
  const match = documented[index]?.exec(readme)
  const stale = (kibText: string | undefined, bytes: number) =>
    kibText === undefined || Math.abs(Number(kibText) * 1024 - bytes) > Math.max(0.05 * bytes, 0.1 * 1024)
  if (
    match === null ||
    match === undefined ||
    stale(match[1], measured.minified) ||
    stale(match[2], measured.gzipped)
  ) {
    console.warn(
      `size: warning: the README's figures for "${name}" are out of date; put ${kib(measured.minified)} and ${kib(measured.gzipped)} in its "Bundle size" table`
    )
  }
})

// The client must not come along with RetryAfter.
const clientMarkers: ReadonlyArray<readonly [string, RegExp]> = [
  ["the ResilientHttpClient service key", /ResilientHttpClient/],
  ["an import of @effect/platform/HttpClient", /["']@effect\/platform\/HttpClient["']/],
  ["the retry policy schedule", /InvalidRetryPolicy/],
  ["the response draining code", /runFoldWhile/]
]
const failures: Array<string> = []
for (const [name, code] of [
  ["{ RetryAfter } from the root", retryAfterFromRoot],
  ["the RetryAfter subpath", retryAfterFromSubpath]
] as const) {
  for (const [what, marker] of clientMarkers) {
    if (marker.test(code)) failures.push(`importing ${name} pulls in ${what}`)
  }
}
// And the check must be able to see the client when it is there.
for (const [what, marker] of clientMarkers) {
  if (!marker.test(full)) failures.push(`the full bundle has no trace of ${what}: the check is blind`)
}

if (failures.length > 0) {
  for (const failure of failures) console.error(`size: ${failure}`)
  process.exit(1)
}
console.log("tree-shaking: a program importing only RetryAfter does not include the client")
