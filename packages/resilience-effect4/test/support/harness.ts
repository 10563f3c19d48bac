// @generated from templates/test/support/harness.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as HttpClient from "effect/http/HttpClient"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import type * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./ScriptedHttpClient.js"

export interface Run<A> {
  readonly exit: Exit.Exit<A, HttpFailure.HttpFailure>
  readonly scripted: ScriptedHttpClient.ScriptedHttpClient
  /** When each attempt was sent, in milliseconds since the call started. */
  readonly times: () => Array<number>
}

/**
 * Runs one call of the resilient client over a scripted transport, advancing the TestClock far
 * enough for every wait, and returns how it ended and what the transport saw.
 */
export const runScripted = <A>(
  script: ReadonlyArray<ScriptedHttpClient.Answer>,
  policy: ResilientHttpClient.PolicyInput | undefined,
  call: (
    client: ResilientHttpClient.ResilientHttpClient.Service
  ) => Effect.Effect<A, HttpFailure.HttpFailure, Scope.Scope>
) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make(script)
    const client = yield* ResilientHttpClient.make(policy).pipe(
      Effect.provideService(HttpClient.HttpClient, scripted.client)
    )
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(call(client))), { startImmediately: true })
    yield* TestClock.adjust("10 minutes")
    const exit = yield* Fiber.join(fiber)
    const times = () => scripted.times().map((at) => at - start)
    return { exit, scripted, times } satisfies Run<A>
  })

/** The failure of a run that must have failed. */
export const failureOf = <A>(run: Run<A>): HttpFailure.HttpFailure => {
  if (Exit.isSuccess(run.exit)) throw new Error("expected the call to fail, but it succeeded")
  const reason = run.exit.cause.reasons.find(Cause.isFailReason)
  if (reason === undefined) throw new Error(`expected a typed failure, got ${Cause.pretty(run.exit.cause)}`)
  return reason.error
}
