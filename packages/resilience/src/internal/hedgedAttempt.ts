// @generated from templates/src/internal/hedgedAttempt.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as HedgeRace from "@effect-http-resilience/core/HedgeRace"
import * as Hedging from "@effect-http-resilience/core/Hedging"
import * as Idempotency from "@effect-http-resilience/core/Idempotency"
import type { OriginTable } from "@effect-http-resilience/core/Origin"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HedgingModule from "../Hedging.js"
import { type Call, coolDownLeft, type Refusal, releaseHeld, type Send, tellCoolDown, withdraw } from "./attemptLoop.js"
import { type Attempt, limitRefusalOf } from "./classify.js"
import * as decisions from "./decisions.js"
import { latencyWindows } from "./latencyWindows.js"
import * as line from "./line.js"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as HttpFailure from "../HttpFailure.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { monotonicMillis } from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"

/**
 * Whether a request may be hedged: idempotent by method or `Idempotency-Key` (`retryNonIdempotent`
 * does not extend to hedges: a hedge duplicates a request that may still be running) and with a
 * body that can be sent again whole.
 *
 * @internal
 */
const isHedgeable = (request: HttpClientRequest.HttpClientRequest): boolean =>
  Idempotency.isIdempotent(request) && !Idempotency.hasOneShotBody(request)

// A response came back (of any status), or none within the time limit: the time is the
// origin's latency (at least, for a timeout).
const measured = (exit: Exit.Exit<unknown, unknown>): boolean => {
  if (Exit.isSuccess(exit)) return true
  const error = failureOf(exit.cause)
  return HttpFailure.isHttpFailure(error) && (error._tag !== "ConnectionError" || error.reason === "Timeout")
}

/**
 * A copy that records its latency in its origin's window when a response comes back or its time
 * limit passes; a copy interrupted because another won (how long it would have taken is unknown)
 * or failed fast without an answer says nothing of the origin's latency.
 */
const timed = <A, E, R>(
  copy: Effect.Effect<A, E, R>,
  windows: OriginTable<Hedging.LatencyWindow>,
  origin: string
): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) => {
    const startMillis = monotonicMillis(clock)
    return Effect.onExit(copy, (exit) =>
      measured(exit)
        ? Effect.sync(() => {
            const now = monotonicMillis(clock)
            windows.get(origin, now).record(now - startMillis, now)
          })
        : Effect.void
    )
  })

/**
 * How a copy's failure bears on its race: what must never be retried ends it; anything else
 * leaves it to the copies in flight, and a server's pushback (a 429, any `Retry-After`) stops
 * further ones. A hedge the circuit or the concurrency limit rejected (the circuit opened after
 * the copy was allowed) is pushback; the first copy's rejection ends the call.
 */
const outcomeOf = (error: unknown, copy: number, policy: ResolvedPolicy): HedgeRace.Outcome => {
  if (Predicate.isTagged(error, "CircuitOpen") || limitRefusalOf(error) !== undefined) {
    return copy === 1 ? { _tag: "Final" } : { _tag: "Transient", pushback: true }
  }
  if (!HttpFailure.isHttpFailure(error) || policy.refusal(error) !== undefined) return { _tag: "Final" }
  const pushback = error._tag === "TransientStatus" && (error.status === 429 || serverDelayMillis(error) !== undefined)
  return { _tag: "Transient", pushback }
}

/**
 * What the attempt loop brings to one hedged attempt.
 *
 * - `send`: copy `copy` (from 1), sent now.
 * - `mayHedge`: whether copy `copy` may go now (budget, circuit, cool-down, deadline); a yes is
 *   the copy's payment, so it is asked once per copy.
 * - `outcomeOf`: how a copy's failure bears on the race.
 * - `release`: frees a loser's success (a response body); a loser's failure is freed with
 *   `releaseFailure`.
 * - `won`: told the copy whose success ends the race.
 */
interface Copies<A, E, R> {
  readonly settings: { readonly maxCopies: number; readonly delayMillis: number }
  readonly send: (copy: number) => Effect.Effect<A, E, R>
  readonly mayHedge: (copy: number) => Effect.Effect<boolean>
  readonly outcomeOf: (error: E, copy: number) => HedgeRace.Outcome
  readonly release: (value: A) => Effect.Effect<void>
  readonly releaseFailure: (error: E) => Effect.Effect<void>
  readonly won: (copy: number) => Effect.Effect<void>
}

type Event<A, E> =
  // `timer`: which timer fired; one replaced after it fired, before it was heard, is stale.
  | { readonly _tag: "Timer"; readonly timer: number }
  | { readonly _tag: "Ended"; readonly copy: number; readonly exit: Exit.Exit<A, E> }

/** One hedged attempt's race as it runs, shared by the functions below. */
interface HedgedRun<A, E, R> {
  readonly copies: Copies<A, E, R>
  readonly events: Queue.Queue<Event<A, E>>
  readonly running: Map<number, Fiber.RuntimeFiber<boolean>>
  /** The transient failure that would be the race's outcome if every copy failed (held meanwhile). */
  readonly failures: Map<number, E>
  readonly exits: Map<number, Exit.Exit<A, E>>
  timer: Fiber.RuntimeFiber<boolean> | undefined
  timerId: number
}

const stopTimer = <A, E, R>(run: HedgedRun<A, E, R>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const pending = run.timer
    run.timer = undefined
    return pending === undefined ? Effect.void : Fiber.interrupt(pending)
  })

// A copy's exit, freed: its response when it succeeded, what its failure holds otherwise.
const releaseExit = <A, E, R>(run: HedgedRun<A, E, R>, exit: Exit.Exit<A, E>): Effect.Effect<void> =>
  Exit.isSuccess(exit)
    ? run.copies.release(exit.value)
    : Effect.forEach(failuresOf(exit.cause), run.copies.releaseFailure, { discard: true })

// Interrupts the copies still running and waits for them; what any of them got before the
// interruption reached it is in the queue (a copy reports its exit uninterruptibly), and is
// freed with every kept failure but `keep`'s.
const settle = <A, E, R>(run: HedgedRun<A, E, R>, keep: number | undefined): Effect.Effect<void> =>
  Effect.suspend(() => {
    const losers = [...run.running.values()]
    const kept = [...run.failures].flatMap(([copy, error]) => (copy === keep ? [] : [error]))
    run.running.clear()
    run.failures.clear()
    return stopTimer(run).pipe(
      Effect.zipRight(Fiber.interruptAll(losers)),
      Effect.zipRight(Queue.takeAll(run.events)),
      Effect.flatMap((pending) =>
        Effect.forEach(pending, (event) => (event._tag === "Ended" ? releaseExit(run, event.exit) : Effect.void), {
          discard: true
        })
      ),
      Effect.zipRight(Effect.forEach(kept, run.copies.releaseFailure, { discard: true }))
    )
  })

// How a copy (and the timer) is forked. On Effect 4 it runs at once, up to its first wait, so a
// copy whose request fails at once has told the race before it waits for the next event.
// Forked as usual it would start on a later scheduler turn, and Effect 4's `TestClock.adjust`
// gives work already running one turn, then waits only for what the sleeps it wakes set off:
// the copy sent after such a failure started once the clock had moved all the way (sent late;
// a wait it began, left for the next adjust). Live, each copy starts a scheduler turn sooner.
// Effect 3's `TestClock` waits for every fiber to suspend.
const forkNow = line.forkNow

const start = <A, E, R>(run: HedgedRun<A, E, R>, copy: number): Effect.Effect<void, never, R> =>
  Effect.map(
    forkNow(
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.exit(restore(run.copies.send(copy))), (exit) =>
          Queue.offer(run.events, { _tag: "Ended", copy, exit })
        )
      )
    ),
    (fiber) => {
      run.running.set(copy, fiber)
    }
  )

const setTimer = <A, E, R>(run: HedgedRun<A, E, R>, afterMillis: number): Effect.Effect<void> =>
  Effect.zipRight(
    stopTimer(run),
    Effect.map(
      forkNow(
        Effect.zipRight(
          Effect.sleep(Duration.millis(afterMillis)),
          Queue.offer(run.events, { _tag: "Timer", timer: ++run.timerId })
        )
      ),
      (fiber) => {
        run.timer = fiber
      }
    )
  )

// Carries out a step's actions in order, then waits for the next event.
const act = <A, E, R>(run: HedgedRun<A, E, R>, step: HedgeRace.Step): Effect.Effect<A, E, R> => {
  const [state, actions] = step
  const [action, ...rest] = actions
  if (action === undefined) return Effect.flatMap(Queue.take(run.events), (event) => heard(run, state, event))
  switch (action._tag) {
    case "Send":
      return Effect.zipRight(start(run, action.copy), act(run, [state, rest]))
    case "SetTimer":
      return Effect.zipRight(setTimer(run, action.afterMillis), act(run, [state, rest]))
    case "Ask":
      return Effect.flatMap(run.copies.mayHedge(state.sent + 1), (allowed) => {
        const [next, more] = HedgeRace.answered(state, allowed)
        return act(run, [next, [...rest, ...more]])
      })
    case "Finish":
      return finish(run, action.copy)
  }
}

const heard = <A, E, R>(run: HedgedRun<A, E, R>, state: HedgeRace.Race, event: Event<A, E>): Effect.Effect<A, E, R> => {
  if (event._tag === "Timer") return heardTimer(run, state, event)
  const { copy, exit } = event
  run.running.delete(copy)
  run.exits.set(copy, exit)
  const error = Exit.isSuccess(exit) ? undefined : failureOf(exit.cause)
  const outcome: HedgeRace.Outcome = Exit.isSuccess(exit)
    ? { _tag: "Won" }
    : error === undefined
      ? { _tag: "Final" }
      : run.copies.outcomeOf(error, copy)
  const step = HedgeRace.ended(state, copy, outcome)
  if (outcome._tag !== "Transient" || error === undefined) return act(run, step)
  // Only the race's would-be outcome (`lastFailed`) is held; any other failure is released now.
  let released: ReadonlyArray<E> = [error]
  if (step[0].lastFailed === copy) {
    released = [...run.failures.values()]
    run.failures.clear()
    run.failures.set(copy, error)
  }
  return Effect.zipRight(Effect.forEach(released, run.copies.releaseFailure, { discard: true }), act(run, step))
}

const heardTimer = <A, E, R>(
  run: HedgedRun<A, E, R>,
  state: HedgeRace.Race,
  event: Event<A, E> & { readonly _tag: "Timer" }
): Effect.Effect<A, E, R> => {
  if (event.timer !== run.timerId) return act(run, [state, []])
  // A copy's end queued with the timer is heard first: a hedge for an attempt that has just
  // answered is a request for nothing.
  return Effect.flatMap(Queue.poll(run.events), (pending) => {
    if (Option.isSome(pending)) {
      return Effect.zipRight(Queue.offer(run.events, event), heard(run, state, pending.value))
    }
    run.timer = undefined
    return act(run, HedgeRace.timerFired(state))
  })
}

// The race's outcome is one copy's exit, as it ended. The losers are settled whole, even if the
// call is interrupted meanwhile: what they hold must not be left behind.
const finish = <A, E, R>(run: HedgedRun<A, E, R>, copy: number): Effect.Effect<A, E, R> =>
  Effect.zipRight(
    Effect.uninterruptible(settle(run, copy)),
    Effect.suspend(() => {
      const exit = run.exits.get(copy)
      if (exit === undefined) return Effect.interrupt
      return Exit.isSuccess(exit) ? Effect.zipRight(run.copies.won(copy), exit) : exit
    })
  )

/**
 * One attempt raced as hedged copies, as core's `HedgeRace` says: the exit of the copy that
 * ends the run, the winner's response or the failure the retry policy hears. Losers are
 * interrupted (their requests aborted) and awaited, and whatever they or earlier failed copies
 * hold is released, before this returns; so is everything when the attempt itself is
 * interrupted.
 */
const race = <A, E, R>(copies: Copies<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Queue.unbounded<Event<A, E>>(), (events) => {
    const run: HedgedRun<A, E, R> = {
      copies,
      events,
      running: new Map(),
      failures: new Map(),
      exits: new Map(),
      timer: undefined,
      timerId: 0
    }
    return Effect.onInterrupt(
      Effect.suspend(() => act(run, HedgeRace.start(copies.settings))),
      () => settle(run, undefined)
    )
  })

// The one failure of a cause that holds exactly one (no defect, no interruption beside it).
const failureOf = <E>(cause: Cause.Cause<E>): E | undefined => {
  const failures = failuresOf(cause)
  return failures.length === 1 && !Cause.isDie(cause) ? failures[0] : undefined
}

const failuresOf = <E>(cause: Cause.Cause<E>): ReadonlyArray<E> => line.failures(cause)

/**
 * The hedging stage: around the attempt below it (permit, token, breaker, time limit, transport),
 * a request the policy hedges is raced as copies of that attempt. Copy 1 is the attempt as it
 * would go alone; each further copy goes when the delay passes and it may: within the deadline,
 * the origin not cooling down, its circuit closed, and the budget paying (a hedge is a retry
 * after a timeout). A copy that goes is a `Hedge` decision.
 *
 * @internal
 */
export const stage = (settings: Hedging.Resolved): HedgingStage => ({
  [StageTypeId]: "hedging",
  settings,
  hedges: isHedgeable,
  wrap: (next) => (call, attempt, limitMillis, kind) =>
    call.hedged
      ? hedged(call, settings, next, next(call, attempt, limitMillis, kind))
      : next(call, attempt, limitMillis, kind)
})

type HedgingStage = HedgingModule.Hedging

const hedged = <A, E, R>(
  call: Call<A, E, R>,
  settings: Hedging.Resolved,
  next: Send,
  first: Effect.Effect<A, E | Refusal, R>
): Effect.Effect<A, E | Refusal, R> =>
  Effect.suspend(() => {
    const { clock } = call
    const origin = call.origin.key
    const deadlineMillis = call.machine.deadlineMillis
    const windows = settings.delay._tag === "Percentile" ? latencyWindows(clock) : undefined
    const delayMillis = Hedging.delayMillis(settings, windows?.peek(origin), monotonicMillis(clock))
    const breaker = call.policy.circuitBreaker
    const circuitClosed = breaker === undefined ? Effect.succeed(true) : breaker.isClosed(call.store, origin)
    const paid = (copy: number): Effect.Effect<boolean> =>
      Effect.tap(withdraw(call, "timeout", false), (paid) =>
        paid
          ? decisions.report({
              _tag: "Hedge",
              request: call.request,
              attempt: call.lastSent + 1,
              copy,
              delay: Duration.millis(delayMillis)
            })
          : Effect.void
      )
    const mayHedge = (copy: number): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        if (deadlineMillis - monotonicMillis(clock) <= 0) return Effect.succeed(false)
        return Effect.flatMap(coolDownLeft(call), (coolDown) =>
          coolDown > 0
            ? Effect.succeed(false)
            : Effect.flatMap(circuitClosed, (closed) => (closed ? paid(copy) : Effect.succeed(false)))
        )
      })
    const copyOf = (copy: number): Effect.Effect<A, E | Refusal, R> => {
      if (copy === 1) return first
      return Effect.suspend(() => {
        const hedge: Attempt = { request: call.request, attempt: call.lastSent + 1 }
        const limitMillis = Math.min(call.policy.limits.attemptTimeoutMillis, deadlineMillis - monotonicMillis(clock))
        return Effect.annotateSpans(
          next(call, hedge, limitMillis, "hedge"),
          "http.request.resend_count",
          hedge.attempt - 1
        )
      })
    }
    return race<A, E | Refusal, R>({
      settings: { maxCopies: settings.maxCopies, delayMillis },
      send: (copy) => {
        const sent = Effect.tapError(copyOf(copy), (error) =>
          HttpFailure.isHttpFailure(error) ? tellCoolDown(call, error) : Effect.void
        )
        return windows === undefined ? sent : timed(sent, windows, origin)
      },
      mayHedge,
      outcomeOf: (error, copy) => outcomeOf(error, copy, call.policy),
      release: call.release,
      releaseFailure: (error) => (HttpFailure.isHttpFailure(error) ? releaseHeld(error) : Effect.void),
      won: (copy) => (copy === 1 ? Effect.void : call.origin.hedgeWon)
    })
  })
