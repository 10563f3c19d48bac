import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "chaos-server",
    include: ["test/**/*.test.ts"]
  }
})
