// @generated from templates/test/e2e/transientConnection.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * `isTransientConnectionError` over a real loopback socket (issue #44, item 3): a port that
 * refuses connections, through fetch. A predicate that names ECONNREFUSED retries it to
 * `maxAttempts`; one that does not ends the call at its first attempt, and says why.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Http from "node:http"
import { beforeAll } from "vitest"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { closeLoopback, listenOnLoopback } from "../support/loopback.js"

// A loopback port nothing listens on any more: connecting to it is refused.
let refusedUrl: string
beforeAll(async () => {
  const server = Http.createServer()
  refusedUrl = `${await listenOnLoopback(server)}/items`
  await closeLoopback(server)
})

const refused = (failure: HttpFailure.ConnectionError) => HttpFailure.causeCodes(failure).includes("ECONNREFUSED")
const policy = { maxAttempts: 3, backoff: RetryPolicy.constant(0), retryBudget: "none" } as const

const failureOf = (options: RetryPolicy.Options) =>
  ResilientHttpClient.make(RetryPolicy.make(options)).pipe(
    Effect.flatMap((client) => client.get(refusedUrl)),
    Effect.scoped,
    Effect.flip,
    Effect.provide(FetchHttpClient.layer)
  )

describe("Effect 4 isTransientConnectionError over a refused loopback port", () => {
  it.live("a predicate that names ECONNREFUSED retries it: 3 attempts", () =>
    Effect.gen(function* () {
      const failure = yield* failureOf({ ...policy, isTransientConnectionError: refused })
      expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 3 })
      expect(failure.giveUpReason).toBe("attempts-exhausted")
    })
  )

  it.live("one that does not name it stops at attempt 1, and the message names the code", () =>
    Effect.gen(function* () {
      const failure = yield* failureOf({ ...policy, isTransientConnectionError: (e) => !refused(e) })
      expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 1 })
      expect(failure.giveUpReason).toBe("not-retryable")
      expect(failure.message).toContain("isTransientConnectionError does not count ECONNREFUSED as transient")
    })
  )
})
