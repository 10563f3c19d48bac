// The consumer test's check that the Redis store is an entry point of its own, shared by the Effect 3
// and Effect 4 programs (scripts/consumer-test.sh copies it beside each). Plain ESM JavaScript.
import * as Assert from "node:assert/strict"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * The URLs of every module Node loads to import `specifier` in a fresh process (a `load` hook
 * appends each to a file): what a program that imports it pays at startup.
 */
const modulesLoadedBy = (specifier) => {
  const log = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "consumer-loaded-")), "loaded.txt")
  const hooks = `import { appendFileSync } from "node:fs"
export const load = (url, context, next) => { appendFileSync(${JSON.stringify(log)}, url + "\\n"); return next(url, context) }`
  const register = `import { register } from "node:module"
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})`
  ChildProcess.execFileSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(specifier)})`
    ],
    { stdio: "inherit" }
  )
  return Fs.readFileSync(log, "utf8").trim().split("\n")
}

const isRedis = (url) =>
  /\/dist\/(internal\/redis\w*|ResilienceStoreRedis)\.js$|\/node_modules\/(redis|@redis)\//.test(url)

/**
 * Importing the package `name` loads none of the Redis store's modules (nor node-redis), its
 * `/redis` entry point does and holds `layerRedis`, and `ResilienceStore` no longer has it.
 */
export const checkRedisEntryPoint = async (name) => {
  const main = modulesLoadedBy(name)
  Assert.ok(
    main.some((url) => url.includes(`/${name}/dist/index.js`)),
    "the hook saw the main entry point"
  )
  Assert.deepEqual(main.filter(isRedis), [], `importing ${name} loads the Redis store`)
  Assert.ok(modulesLoadedBy(`${name}/redis`).some(isRedis), "the /redis entry point loads the Redis store")
  const Redis = await import(`${name}/redis`)
  Assert.equal(typeof Redis.layerRedis, "function")
  const { ResilienceStore } = await import(name)
  Assert.equal("layerRedis" in ResilienceStore, false)
}
