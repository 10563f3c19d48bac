// One vitest project per package; each package's own vitest.config.ts names it.
export default ["packages/*/vitest.config.ts"]
