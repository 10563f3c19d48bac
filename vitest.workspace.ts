// The vitest 3 projects: each package's vitest.config.ts, and where a package has them, its
// vitest.e2e.config.ts and vitest.slow.config.ts. Projects named "slow-*" (the bench's tests,
// `pnpm demo` end to end) run in `pnpm test:slow`, the rest in `pnpm test` (scripts/test.sh picks
// them by name).
export default ["packages/*/vitest.config.ts", "packages/*/vitest.e2e.config.ts", "packages/*/vitest.slow.config.ts"]
