/**
 * The files of the library (core included) that a call runs code in: V8's precise coverage
 * (call counts) over one call, after warm-up calls so that module loading is not counted. Each
 * line's `hotPathFiles.ts` (`pnpm bench:hot-path`) prints it for a plain call.
 */
import { Session } from "node:inspector/promises"

/** Prints, for each form of call, the files it ran code in and how many. */
export const printFilesRun = async (calls: ReadonlyArray<readonly [string, () => Promise<unknown>]>): Promise<void> => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true })
  for (const [name, run] of calls) {
    for (let i = 0; i < 20; i++) await run()
    await session.post("Profiler.takePreciseCoverage")
    await run()
    const { result } = await session.post("Profiler.takePreciseCoverage")
    // A function ran when its whole range counts a call; tsx's `__name` helper is not ours.
    const files = result
      .filter((script) => /packages\/(resilience[^/]*|core)\/src\//.test(script.url))
      .filter((script) => script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0 && f.functionName !== "__name"))
      .map((script) => script.url.replace(/.*packages\//, ""))
    console.log(`${name}: ${files.length} files`)
    for (const file of files) console.log(`  ${file}`)
  }
  session.disconnect()
}
