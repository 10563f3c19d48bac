// One vitest project per package; each package's own vitest.config.ts names it. Projects named
// "slow-*" (the bench's tests, `pnpm demo` end to end) run in `pnpm test:slow`, the rest in
// `pnpm test` (scripts/test.sh picks them by name).
export default ["packages/*/vitest.config.ts", "packages/*/vitest.slow.config.ts"]
