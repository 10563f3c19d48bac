/**
 * Makes a built CLI file run with plain Node: replaces its first-line shebang (the sources use
 * `#!/usr/bin/env tsx` for development) with `#!/usr/bin/env node`, or adds one, and marks the
 * file executable.
 *
 * usage: tsx scripts/set-node-shebang.ts FILE...
 */
import * as Fs from "node:fs"

const shebang = "#!/usr/bin/env node"

const files = process.argv.slice(2)
if (files.length === 0) {
  console.error("usage: tsx scripts/set-node-shebang.ts FILE...")
  process.exit(2)
}

for (const file of files) {
  const text = Fs.readFileSync(file, "utf8")
  const body = text.startsWith("#!") ? text.slice(text.indexOf("\n") + 1) : text
  Fs.writeFileSync(file, `${shebang}\n${body}`)
  Fs.chmodSync(file, 0o755)
}
