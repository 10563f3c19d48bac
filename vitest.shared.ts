import { fileURLToPath } from "node:url"

// Limits every project shares. The machines are two shared cores that may be fully busy: a limit
// is there to end a hung test, never to measure speed (benchmarks do that), so it is generous.
export const sharedTestOptions = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  teardownTimeout: 30_000
} as const

// The vitest 3 projects' (the Effect 3 line's @effect/vitest 0.x): vitest.setup.ts before each file.
export const vitest3TestOptions = {
  ...sharedTestOptions,
  setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]
}
