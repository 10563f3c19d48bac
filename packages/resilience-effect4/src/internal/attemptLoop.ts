import * as CallMachine from "@effect-http-resilience/core/CallMachine"
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Predicate from "effect/Predicate"
import * as Pull from "effect/Pull"
import * as Schedule from "effect/Schedule"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import { type Attempt, connectionError, takeHeldResponse } from "./classify.js"
import * as decisions from "./decisions.js"
import * as hedgedAttempt from "./hedgedAttempt.js"
import * as overload from "./overload.js"
import * as ResilienceStore from "../ResilienceStore.js"
import * as resilienceStore from "./resilienceStore.js"
import { monotonicMillis } from "./retryBudgetService.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { drain } from "./responseBody.js"
import { serverDelayMillis } from "./retryPolicy.js"

/**
 * One attempt of a call, given its number and its time limit in milliseconds (`Infinity`:
 * none). A transient status fails with its response held (see `classify`).
 *
 * @internal
 */
export type AttemptOnce<A, E, R> = (attempt: Attempt, limitMillis: number) => Effect.Effect<A, E, R>

/**
 * How a call ends when it stops retrying: the failure (with its response still held, if any)
 * and why.
 *
 * @internal
 */
export type GiveUp<A, E, R> = (
  failure: HttpFailure.HttpFailure,
  reason: RetryPolicy.GiveUpReason
) => Effect.Effect<A, E, R>

/**
 * Bounds an attempt: past `limitMillis` it is interrupted (for an unscoped request the
 * platform's client then aborts it) and fails with a `ConnectionError` "Timeout". Effect 4's
 * client keeps the handle that would abort a request without a fiber to itself (`withScope`'s
 * map is private), so this is `Effect.timeoutOrElse`, a forked race.
 *
 * @internal
 */
export const limitTime = <A, E, R>(
  attempt: Attempt,
  limitMillis: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Number.isFinite(limitMillis)
    ? Effect.timeoutOrElse(effect, {
        duration: Duration.millis(limitMillis),
        orElse: () =>
          Effect.fail(
            connectionError(attempt, "Timeout", `no response within ${Duration.format(Duration.millis(limitMillis))}`)
          )
      })
    : effect

/**
 * Releases the response behind a failure, if one is held: before any wait, and before a
 * failure is handed back.
 *
 * @internal
 */
export const releaseHeld = (failure: HttpFailure.HttpFailure): Effect.Effect<void> => {
  const response = takeHeldResponse(failure)
  return response === undefined ? Effect.void : drain(response)
}

/**
 * The failure, now carrying why the call stopped: a copy with every field and `giveUpReason`.
 *
 * @internal
 */
export const withGiveUpReason = (
  failure: HttpFailure.HttpFailure,
  giveUpReason: RetryPolicy.GiveUpReason
): HttpFailure.HttpFailure => {
  switch (failure._tag) {
    case "ConnectionError":
      return new HttpFailure.ConnectionError({ ...failure, cause: failure.cause, giveUpReason })
    case "TransientStatus":
      return new HttpFailure.TransientStatus({ ...failure, giveUpReason })
    case "PermanentStatus":
      return new HttpFailure.PermanentStatus({ ...failure, giveUpReason })
    case "DecodeError":
      return new HttpFailure.DecodeError({ ...failure, cause: failure.cause, giveUpReason })
  }
}

const isRetryDecision = (out: unknown): out is RetryPolicy.RetryDecision =>
  Predicate.isTagged(out, "Retry") || Predicate.isTagged(out, "GiveUp")

const giveUpReasonOf = (out: unknown): RetryPolicy.GiveUpReason =>
  isRetryDecision(out) && out._tag === "GiveUp" ? out.reason : "attempts-exhausted"

// A policy's own decision says where its wait came from, unless the origin's cool-down
// stretched it; any other schedule's is inferred.
const retryDecisionOf = (
  out: unknown,
  failure: HttpFailure.HttpFailure,
  answer: Extract<CallMachine.Answer, { _tag: "Send" }>,
  coolDownMillis: number
): decisions.Decision => {
  const waitMillis = answer.waitMillis
  if (answer.coolDownMillis > 0) {
    return {
      _tag: "Retry",
      failure,
      delay: Duration.millis(waitMillis),
      source: "retry-after",
      capped: waitMillis < coolDownMillis
    }
  }
  return isRetryDecision(out) && out._tag === "Retry"
    ? { _tag: "Retry", failure, delay: out.delay, source: out.source, capped: out.capped }
    : {
        _tag: "Retry",
        failure,
        delay: Duration.millis(waitMillis),
        ...RetrySchedule.inferSource(serverDelayMillis(failure), waitMillis)
      }
}

const isCircuitOpen = (error: unknown): error is CircuitBreaker.CircuitOpen => Predicate.isTagged(error, "CircuitOpen")

const isOtherError = <E>(
  error: E | HttpFailure.HttpFailure | CircuitBreaker.CircuitOpen
): error is Exclude<E, HttpFailure.HttpFailure> => !isCircuitOpen(error) && !HttpFailure.isHttpFailure(error)

const coolDownOf = (failure: HttpFailure.HttpFailure): number =>
  failure._tag === "TransientStatus" ? CallMachine.coolDownAsked(failure.status, serverDelayMillis(failure)) : 0

const noCoolDown = Effect.succeed(0)

// What an attempt answers: nothing (the first), a retry's failure, or a hedged copy's wait.
type SentAfter = HttpFailure.HttpFailure | "hedge" | undefined

const sleep = (millis: number): Effect.Effect<void> =>
  millis > 0 ? Effect.sleep(Duration.millis(millis)) : Effect.void

/**
 * The attempt loop, the pipeline's retry stage: total deadline -> retry (schedule, cool-down,
 * retry budget) -> circuit breaker -> attempt time limit -> transport. What to do next is the
 * core's `CallMachine`'s answer; this sends, sleeps, releases and reports as it says.
 *
 * With `hedging`, each attempt of a request that may be hedged is raced as copies
 * (`hedgedAttempt`): what follows here hears the race's outcome as one attempt's.
 *
 * The first attempt runs with nothing around it but its time limit (and the breaker, when there
 * is one), after the origin's cool-down if another call's 429 started one; only a failure builds
 * the retry machinery (the schedule's step). After each failure the machine hears what must
 * never be retried, the schedule's answer and the cool-down; a retry it plans still needs the
 * origin's retry budget; then the decision is reported, the discarded response released, and
 * the wait begins. An open circuit ends the call at once, with no wait: with the last real
 * failure, or with the breaker's rejection as a `ConnectionError` "CircuitOpen" when nothing
 * was sent yet.
 *
 * @internal
 */
export const run = <A, E, R, E2, R2>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: AttemptOnce<A, HttpFailure.HttpFailure | E, R>,
  giveUp: GiveUp<A, E2, R2>,
  release: (value: A) => Effect.Effect<void>
): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> =>
  Effect.flatMap(ResilienceStore.ResilienceStore, (given) =>
    Effect.clockWith((clock) => {
      const store = resilienceStore.concrete(given, clock)
      const startMillis = monotonicMillis(clock)
      const call = CallMachine.start(policy.limits, startMillis)
      const { budget, breaker } = overload.guardsFor(store, policy)
      const origin = overload.originFor(request.url, request.method)
      const coolDownLeft = policy.shareRetryAfter ? store.coolDownLeft(origin.key) : noCoolDown
      const hedging = policy.hedging !== undefined && hedgedAttempt.isHedgeable(request) ? policy.hedging : undefined
      // The number of the last request sent: hedged copies take numbers of their own.
      let lastSent = 0
      type Outcome = Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2>
      // The schedule's step, made at the first failure: its state is this call's.
      let step:
        | ((now: number, failure: HttpFailure.HttpFailure) => Pull.Pull<[unknown, Duration.Duration], never, unknown>)
        | undefined

      // The decision's failure says why, as the one handed back does; `giveUp` gets the failure
      // as it came, the key to its held response.
      const stop = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason): Outcome =>
        Effect.andThen(
          Effect.andThen(
            origin.giveUp(reason),
            decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason })
          ),
          giveUp(failure, reason)
        )

      // An attempt through the breaker, if there is one, which may reject it unsent. `sentAfter`:
      // what it answers, for the budget's refund and the counters (a retry's failure, a hedge).
      const guarded = (
        attempt: Attempt,
        limitMillis: number,
        sentAfter: SentAfter
      ): Effect.Effect<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R> => {
        lastSent = attempt.attempt
        const retriedAfter =
          sentAfter === undefined
            ? undefined
            : sentAfter === "hedge"
              ? "timeout"
              : RetryBudgetCore.failureKindOf(sentAfter)
        const sent = Effect.tap(attemptOnce(attempt, limitMillis), () => budget.onSuccess(origin.key, retriedAfter))
        // Counted once the breaker lets it through: a rejected attempt is never sent.
        const counted = Effect.andThen(
          sentAfter === undefined ? origin.attempts : sentAfter === "hedge" ? origin.hedged : origin.resent,
          sent
        )
        if (breaker === undefined) return counted
        // The breaker hears the attempt's time limit: a probe keeps its slot while within it.
        return Effect.flatMap(breaker, (circuits) =>
          Effect.provideService(
            circuits.execute(counted, origin.key, overload.breakerOutcome),
            circuitBreakerService.ProbeTimeLimit,
            limitMillis
          )
        )
      }

      // What follows an attempt's failure: an open circuit ends the call at once; any other
      // failure goes to the machine; anything else is the caller's.
      const onAttemptFailure =
        (attempt: Attempt, previous: HttpFailure.HttpFailure | undefined) =>
        (error: HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen): Outcome => {
          if (isCircuitOpen(error))
            return stop(previous ?? connectionError(attempt, "CircuitOpen", error), "circuit-open")
          if (HttpFailure.isHttpFailure(error)) return afterFailure(error)
          return isOtherError(error) ? Effect.fail(error) : Effect.die(error) // not reached
        }

      // Records the failure with the budget and asks it for a retry: false is a refusal.
      const askBudget = (failure: HttpFailure.HttpFailure): Effect.Effect<boolean> => {
        const kind = RetryBudgetCore.failureKindOf(failure)
        if (kind === undefined) return Effect.succeed(true)
        return Effect.andThen(budget.onFailure(origin.key, kind), budget.tryRetry(origin.key, kind))
      }

      // A 429's Retry-After, told to every call sharing the store before this one plans its wait.
      const tellCoolDown = (failure: HttpFailure.HttpFailure): Effect.Effect<number> => {
        const asked = policy.shareRetryAfter ? coolDownOf(failure) : 0
        return asked > 0 ? Effect.andThen(store.coolDown(origin.key, asked), coolDownLeft) : coolDownLeft
      }

      // Hedged copies of an attempt, when the policy hedges this request.
      const hedges:
        | hedgedAttempt.CallHedges<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R>
        | undefined =
        hedging === undefined
          ? undefined
          : {
              settings: hedging,
              policy,
              request,
              clock,
              origin: origin.key,
              deadlineMillis: call.deadlineMillis,
              hedge: (attempt, limitMillis) => guarded(attempt, limitMillis, "hedge"),
              lastSent: () => lastSent,
              pay: budget.tryRetry(origin.key, "timeout"),
              coolDownLeft,
              breaker,
              tellCoolDown,
              release,
              releaseFailure: releaseHeld,
              hedgeWon: origin.hedgeWon
            }

      // One attempt: alone, or raced as hedged copies.
      const attemptWith = (
        attempt: Attempt,
        limitMillis: number,
        sentAfter: SentAfter
      ): Effect.Effect<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R> => {
        const sent = guarded(attempt, limitMillis, sentAfter)
        return hedges === undefined ? sent : hedgedAttempt.attempt(hedges, sent)
      }

      const decide = (
        failure: HttpFailure.HttpFailure,
        now: number
      ): Effect.Effect<readonly [unknown, CallMachine.ScheduleAnswer]> =>
        Effect.suspend(() => {
          const stepNow = step!
          return Pull.matchEffect(stepNow(now, failure), {
            onSuccess: ([out, delay]) =>
              Effect.succeed([out, { _tag: "Delay", millis: Duration.toMillis(delay) }] as const),
            onFailure: Effect.failCause,
            onDone: (out) => Effect.succeed([out, { _tag: "Done", reason: giveUpReasonOf(out) }] as const)
          })
        })

      // A 429 cools its origin down even when this call does not retry it (a hedged copy's was
      // told as it came).
      const afterFailure = (failure: HttpFailure.HttpFailure): Outcome =>
        Effect.flatMap(hedges === undefined ? tellCoolDown(failure) : coolDownLeft, (coolDown): Outcome => {
          const refusal = policy.refusal(failure)
          if (refusal !== undefined) return stop(failure, refusal)
          const stepped =
            step === undefined
              ? Effect.map(Schedule.toStep(policy.schedule), (made) => {
                  step = made
                })
              : Effect.void
          const now = monotonicMillis(clock)
          return Effect.andThen(
            stepped,
            Effect.flatMap(decide(failure, now), ([out, scheduled]): Outcome => {
              // After the last request sent: a hedged attempt's failure may be an earlier copy's.
              const answer = CallMachine.afterFailure(
                call,
                Math.max(lastSent, failure.attempt),
                now,
                undefined,
                scheduled,
                coolDown
              )
              if (answer._tag === "Stop") return stop(failure, answer.reason)
              return Effect.flatMap(askBudget(failure), (allowed): Outcome => {
                const confirmed = CallMachine.afterBudget(answer, allowed)
                if (confirmed._tag === "Stop") return stop(failure, confirmed.reason)
                const attempt: Attempt = { request, attempt: answer.attempt }
                const resend = Effect.catch(
                  Effect.annotateSpans(
                    attemptWith(attempt, answer.limitMillis, failure),
                    "http.request.resend_count",
                    answer.attempt - 1
                  ),
                  onAttemptFailure(attempt, failure)
                )
                return decisions
                  .report(retryDecisionOf(out, failure, answer, coolDown))
                  .pipe(
                    Effect.andThen(releaseHeld(failure)),
                    Effect.andThen(sleep(answer.waitMillis)),
                    Effect.andThen(resend)
                  )
              })
            })
          )
        })

      const firstAttempt: Attempt = { request, attempt: 1 }
      const first = Effect.flatMap(coolDownLeft, (coolDown): Outcome => {
        const answer = CallMachine.first(call, startMillis, coolDown)
        if (answer._tag === "Stop") return stop(connectionError(firstAttempt, "CoolingDown", undefined), answer.reason)
        return Effect.andThen(
          sleep(answer.waitMillis),
          Effect.catch(
            attemptWith(firstAttempt, answer.limitMillis, undefined),
            onAttemptFailure(firstAttempt, undefined)
          )
        )
      })
      return Effect.andThen(budget.onRequest(origin.key), first)
    })
  )
