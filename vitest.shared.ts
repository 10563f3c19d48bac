// Limits every project shares. The machines are two shared cores that may be fully busy: a limit
// is there to end a hung test, never to measure speed (benchmarks do that), so it is generous.
export const sharedTestOptions = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  teardownTimeout: 30_000
} as const
