// @generated from templates/test/failureStack.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A transient status is built without a stack (`classify`): the stack would be the fiber
 * runtime's frames and nobody reads it. What a caller sees keeps its own: the failure handed back
 * is a copy made where the call stops, with a stack; the failure an observer or a schedule sees
 * on the way keeps every field and its message; `Error.stackTraceLimit` is left as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const policy = { maxAttempts: 2, backoff: RetryPolicy.constant(0), retryBudget: "none" } as const

describe("a transient status's stack", () => {
  it.effect("the failure handed back has a stack of its own; the one observed on the way keeps its fields", () =>
    Effect.gen(function* () {
      const limit = Error.stackTraceLimit
      const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "0" } }])
      const observed: Array<ResilientHttpClient.Decision> = []
      const handedBack = yield* Effect.flip(
        Effect.scoped(ResilientHttpClient.withResilience(scripted.client, policy).get("http://stack.test/r")).pipe(
          ResilientHttpClient.observeDecisions((decision) => Effect.sync(() => observed.push(decision)))
        )
      )
      expect(Error.stackTraceLimit).toBe(limit)
      expect(handedBack).toMatchObject({ _tag: "TransientStatus", attempt: 2, giveUpReason: "attempts-exhausted" })
      expect(handedBack.stack).toMatch(/\n\s+at /)
      // The retry's failure, as the observer saw it: every field and its message, no stack frames.
      const decision = observed[0]
      expect(decision?._tag).toBe("Retry")
      const retried = decision?._tag === "Retry" ? decision.failure : undefined
      expect(HttpFailure.isTransientStatus(retried)).toBe(true)
      expect(retried).toMatchObject({ attempt: 1, status: 503 })
      expect(retried?.message).toBe("GET http://stack.test/r: status 503 on attempt 1")
      expect(retried?.stack).not.toMatch(/\n\s+at /)
    })
  )
})
