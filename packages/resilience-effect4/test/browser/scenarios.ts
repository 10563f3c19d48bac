// @generated from templates/test/browser/scenarios.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The browser scenarios of Effect 4, bundled for Chromium by `../support/browserPage.ts`: each
 * makes calls with this line's library over its `FetchHttpClient`, cross-origin to a chaos
 * server, and answers with plain data (the outcome, every decision, the debug logs) for the test
 * in Node to check against what the server counted.
 */
import { Cause, Duration, Effect, Exit, Logger, Option, References } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

/** A policy as plain data, in milliseconds. */
export interface PolicyInput {
  readonly maxAttempts: number
  readonly backoffMillis?: number
  readonly maxDelayMillis?: number
  readonly attemptTimeoutMillis?: number
}

export interface CallInput {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly idempotencyKey?: string
  readonly policy: PolicyInput
  /** Whether the platform adds its b3 and traceparent headers (its default: true). */
  readonly tracerPropagation?: boolean
  /** Whether to read the body (else the scope closes on it unread). */
  readonly readBody?: boolean
}

export interface FailureSeen {
  readonly tag: string
  readonly attempt: number
  readonly status: number | undefined
  readonly reason: string | undefined
  readonly giveUpReason: string | undefined
  readonly message: string
}

export type DecisionSeen =
  | {
      readonly tag: "Retry"
      readonly attempt: number
      readonly delayMillis: number
      readonly source: string
      readonly capped: boolean
    }
  | { readonly tag: "GiveUp"; readonly attempt: number; readonly reason: string }
  | { readonly tag: "Hedge"; readonly attempt: number; readonly delayMillis: number }

export interface CallResult {
  readonly status: number | undefined
  readonly body: string | undefined
  readonly failure: FailureSeen | undefined
  readonly decisions: ReadonlyArray<DecisionSeen>
  /** The debug log lines the calls wrote. */
  readonly logs: ReadonlyArray<string>
  readonly elapsedMillis: number
}

const policyOf = (input: PolicyInput): RetryPolicy.Options => ({
  maxAttempts: input.maxAttempts,
  jitter: "none",
  ...(input.backoffMillis === undefined
    ? {}
    : { backoff: RetryPolicy.exponential(Duration.millis(input.backoffMillis)) }),
  ...(input.maxDelayMillis === undefined ? {} : { maxDelay: Duration.millis(input.maxDelayMillis) }),
  ...(input.attemptTimeoutMillis === undefined ? {} : { attemptTimeout: Duration.millis(input.attemptTimeoutMillis) })
})

const failureSeen = (failure: HttpFailure.HttpFailure): FailureSeen => ({
  tag: failure._tag,
  attempt: failure.attempt,
  status: "status" in failure ? failure.status : undefined,
  reason: failure._tag === "ConnectionError" ? failure.reason : undefined,
  giveUpReason: failure.giveUpReason,
  message: failure.message
})

const decisionSeen = (decision: ResilientHttpClient.Decision): DecisionSeen =>
  decision._tag === "Hedge"
    ? { tag: "Hedge", attempt: decision.attempt, delayMillis: Duration.toMillis(decision.delay) }
    : decision._tag === "Retry"
      ? {
          tag: "Retry",
          attempt: decision.failure.attempt,
          delayMillis: Duration.toMillis(decision.delay),
          source: decision.source,
          capped: decision.capped
        }
      : { tag: "GiveUp", attempt: decision.failure.attempt, reason: decision.reason }

/** One call with the library, as the input says; every decision and debug log line kept. */
const call = (input: CallInput): Promise<CallResult> => {
  const decisions: Array<DecisionSeen> = []
  const logs: Array<string> = []
  const logger = Logger.make(({ message }) => {
    logs.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  const request =
    input.method === "POST"
      ? HttpClientRequest.post(input.url).pipe(
          HttpClientRequest.bodyJsonUnsafe({ item: "browser" }),
          input.idempotencyKey === undefined
            ? (r) => r
            : HttpClientRequest.setHeader("Idempotency-Key", input.idempotencyKey)
        )
      : HttpClientRequest.get(input.url)
  const program = Effect.gen(function* () {
    const client = (yield* HttpClient.HttpClient).pipe(ResilientHttpClient.withResilience(policyOf(input.policy)))
    return yield* Effect.scoped(
      Effect.flatMap(
        client.execute(request),
        (response): Effect.Effect<{ readonly status: number; readonly body: string | undefined }, unknown> =>
          input.readBody === false
            ? Effect.succeed({ status: response.status, body: undefined })
            : Effect.map(response.text, (body) => ({ status: response.status, body }))
      )
    )
  }).pipe(
    ResilientHttpClient.observeDecisions((decision) => Effect.sync(() => decisions.push(decisionSeen(decision)))),
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(HttpClient.TracerPropagationEnabled, input.tracerPropagation ?? true),
    Effect.provideService(References.MinimumLogLevel, "Debug"),
    Effect.provide(Logger.layer([logger]))
  )
  const started = performance.now()
  return Effect.runPromise(Effect.exit(program)).then((exit) => {
    const elapsedMillis = Math.round(performance.now() - started)
    if (Exit.isSuccess(exit)) return { ...exit.value, failure: undefined, decisions, logs, elapsedMillis }
    const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
    if (!HttpFailure.isHttpFailure(error)) throw new Error(`not an HttpFailure: ${Cause.pretty(exit.cause)}`)
    return { status: undefined, body: undefined, failure: failureSeen(error), decisions, logs, elapsedMillis }
  })
}

/** `fetch` alone, as a page would call without the library: the status, or the rejection's text. */
const plainFetch = async (input: {
  readonly url: string
}): Promise<{ status: number | undefined; error: string | undefined; retryAfter: string | null | undefined }> => {
  try {
    const response = await fetch(input.url)
    await response.body?.cancel()
    return { status: response.status, error: undefined, retryAfter: response.headers.get("retry-after") }
  } catch (error) {
    return { status: undefined, error: String(error), retryAfter: undefined }
  }
}

/** What the test calls by name. */
export const browserScenarios = { call, plainFetch }

export type BrowserScenarios = typeof browserScenarios

Reflect.set(globalThis, "browserScenarios", browserScenarios)
