// @generated from templates/test/retryAfterBounds.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Header parsing is bounded on every path (issue #40, item 6): `RetryAfter.fromHeaders`, which a
 * 429 is read with, reads the `RateLimit` field to its first 16 members and a member to its
 * first 16 parts, as the rate limit's headers are read on a 200 (core's `StructuredField`). The
 * wait a 429 gets from such a field, on both lines: the conformance scenario
 * `rate-limit-field-read-to-16-members`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Option } from "effect"
import { Headers } from "effect/http"
import * as RetryAfter from "../src/RetryAfter.js"

const now = Date.UTC(2025, 0, 1)
const open = (i: number) => `"p${i}";r=5;t=1`
const fifteen = Array.from({ length: 15 }, (_, i) => open(i))
const fromField = (members: ReadonlyArray<string>) =>
  RetryAfter.fromHeaders(Headers.fromInput({ ratelimit: members.join(", ") }), now)

describe("Effect 4 RetryAfter.fromHeaders reads a bounded RateLimit field", () => {
  it("reads the 16th member, and not the 17th", () => {
    expect(fromField([...fifteen, '"day";r=0;t=60'])).toEqual(Option.some(Duration.seconds(60)))
    expect(fromField([...fifteen, open(15), '"day";r=0;t=60'])).toEqual(Option.some(Duration.seconds(1)))
    // Ten thousand members read as their first 16.
    const many = Array.from({ length: 10_000 }, (_, i) => (i < 16 ? open(i) : '"day";r=0;t=60'))
    expect(fromField(many)).toEqual(Option.some(Duration.seconds(1)))
  })

  it("reads a member's parameters to the same bound", () => {
    const params = Array.from({ length: 15 }, (_, i) => `x${i}=1`).join(";")
    expect(fromField([`"day";r=0;t=60;${params}`])).toEqual(Option.some(Duration.seconds(60)))
    expect(fromField([`"day";${params};r=0;t=60`])).toEqual(Option.none())
  })
})
