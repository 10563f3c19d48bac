import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { globalValue } from "effect/GlobalValue"
import * as Option from "effect/Option"
import * as HttpFailure from "../HttpFailure.js"
import { type Attempt, connectionError } from "./classify.js"
import { bodyReadTimeout, boundElsewhere, drain, drainWithin } from "./responseBody.js"
import * as timeout from "./timeout.js"

/*
 * An attempt's time limit without a fiber per attempt.
 *
 * `Effect.timeout` races the attempt in a forked fiber, which costs more than the rest of an
 * attempt put together. The platform offers a cheaper handle: a request registered in its
 * scoped-requests map (what `HttpClient.withScope` uses) is sent with that `AbortController`'s
 * signal. So an attempt registers a controller of its own, a plain timer aborts it when the limit
 * passes, and the transport fails the exchange at once: undici, node:http and fetch all honour
 * the signal. Such a response is also not wrapped nor registered for garbage collection by the
 * platform: its release is ours, and the attempt's controller ends it.
 *
 * Where that cannot be relied on, the forked race stays: a clock that is not the live one
 * (`TestClock` drives time by itself), a platform that does not read the map, a request value in
 * flight twice at once (the map is keyed by it), or a client whose exchange did not hand our
 * signal to its transport (something between it and the transport replaced the request): from
 * then on, that client times its attempts with the race.
 */

const scopedRequests = globalValue(
  "@effect/platform/HttpClient/scopedRequests",
  () => new WeakMap<HttpClientRequest.HttpClientRequest, AbortController>()
)

/** An `AbortController` that knows whether a transport took its signal. */
class AttemptController extends AbortController {
  signalTaken = false
  override get signal(): AbortSignal {
    this.signalTaken = true
    return super.signal
  }
}

// Whether the platform sends a registered request with the registered controller's signal:
// asked once, of a client that never sends anything.
let platformReadsScopedRequests: boolean | undefined

const probeRequest = HttpClientRequest.get("http://127.0.0.1/")

const probe: Effect.Effect<boolean> = Effect.suspend(() => {
  const controller = new AbortController()
  scopedRequests.set(probeRequest, controller)
  const client = HttpClient.make((request, _url, signal) =>
    Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: signal === controller.signal }))
  )
  return client.execute(probeRequest).pipe(
    Effect.flip,
    Effect.map((error) => error._tag === "RequestError" && error.cause === true),
    Effect.orElseSucceed(() => false),
    Effect.locally(HttpClient.currentTracerDisabledWhen, () => true),
    Effect.ensuring(Effect.sync(() => scopedRequests.delete(probeRequest))),
    Effect.tap((reads) =>
      Effect.sync(() => {
        platformReadsScopedRequests = reads
      })
    )
  )
})

/**
 * How one client times its attempts, shared by all its calls: whether its exchanges hand our
 * signal to the transport is learnt from a first attempt timed both ways, then relied on; an
 * exchange that shows otherwise (the signal not taken, or another request answering, as after
 * a redirect followed inside the exchange) puts the client back on the race for good.
 *
 * @internal
 */
export interface LimitState {
  signal: "unproven" | "reaches" | "lost"
}

/** @internal */
export const makeLimitState = (): LimitState => ({ signal: "unproven" })

// An abort without a reason builds a DOMException, stack trace and all: ending a request that is
// already complete, as most are, must cost nothing.
const released = new Error("released by effect-http-resilience")

const responseControllers = new WeakMap<HttpClientResponse.HttpClientResponse, AbortController>()

/**
 * Releases a response nobody will read: drained when small, aborted when large or slow, and
 * then its attempt's request ended, so nothing of it is left open whatever the server does.
 * With the attempt's controller at hand, a plain timer bounds the drain (aborting the request
 * ends the read) where a forked race would cost more than the rest of a retry.
 *
 * @internal
 */
export const release = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => {
  const controller = responseControllers.get(response)
  if (controller === undefined) return drain(response)
  return Effect.suspend(() => {
    const timer = setTimeout(() => controller.abort(released), Duration.toMillis(bodyReadTimeout))
    // If this is interrupted, the timer still ends the request.
    return Effect.map(drainWithin(response, boundElsewhere, true), (readToItsEnd) => {
      clearTimeout(timer)
      if (!readToItsEnd) controller.abort(released)
    })
  })
}

/**
 * Ends the request of a response whose body was read, or abandoned by its reader: a no-op for
 * a body read to its end.
 *
 * @internal
 */
export const endRequest = (response: HttpClientResponse.HttpClientResponse): void => {
  responseControllers.get(response)?.abort(released)
}

const holdsResponse = (cause: Cause.Cause<unknown>): boolean => {
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure) && HttpFailure.isTransientStatus(failure.value)
}

const timedOut = (attempt: Attempt, limitMillis: number): HttpFailure.ConnectionError =>
  connectionError(attempt, "Timeout", `no response within ${Duration.format(Duration.millis(limitMillis))}`)

/**
 * Bounds an attempt with the forked race: past `limitMillis` (`Infinity`: no limit), it is
 * interrupted (which aborts its request) and fails with a `ConnectionError` "Timeout". The
 * platform-typed client times every attempt this way: its final responses go to code without a
 * scope, and must keep the platform's own release on garbage collection.
 *
 * @internal
 */
export const raced = <A, E, R>(
  attempt: Attempt,
  limitMillis: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Number.isFinite(limitMillis)
    ? timeout.timeoutFail(effect, Duration.millis(limitMillis), () => timedOut(attempt, limitMillis))
    : effect

/**
 * Runs one attempt, `use(send)`, within `limitMillis` (`Infinity`: no limit): past it, the
 * exchange is aborted and fails with a `ConnectionError` "Timeout". `use` receives the send to
 * build on; the limit covers all of `use`, so a reader inside it (getJson) is bounded too.
 *
 * @internal
 */
export const limited = <A, E, R, E2, R2>(
  state: LimitState,
  attempt: Attempt,
  limitMillis: number,
  coversBody: boolean,
  send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>,
  use: (send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>) => Effect.Effect<A, E2, R2>
): Effect.Effect<A, E2 | HttpFailure.ConnectionError, R2> => {
  if (!Number.isFinite(limitMillis)) return use(send)
  const race = (effect: Effect.Effect<A, E2 | HttpFailure.ConnectionError, R2>) => raced(attempt, limitMillis, effect)
  return Effect.clockWith((clock) => {
    if (
      clock !== timeout.liveClock ||
      limitMillis > timeout.maxTimerMillis ||
      state.signal === "lost" ||
      platformReadsScopedRequests === false ||
      scopedRequests.has(attempt.request)
    ) {
      return race(use(send))
    }
    if (platformReadsScopedRequests === undefined) {
      return Effect.flatMap(probe, () => limited(state, attempt, limitMillis, coversBody, send, use))
    }
    const signalled = withSignal(state, attempt, limitMillis, coversBody, send, use)
    return state.signal === "reaches" ? signalled : race(signalled)
  })
}

const withSignal = <A, E, R, E2, R2>(
  state: LimitState,
  attempt: Attempt,
  limitMillis: number,
  coversBody: boolean,
  send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>,
  use: (send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>) => Effect.Effect<A, E2, R2>
): Effect.Effect<A, E2 | HttpFailure.ConnectionError, R2> =>
  Effect.suspend(() => {
    const request = attempt.request
    const controller = new AttemptController()
    scopedRequests.set(request, controller)
    let expired = false
    const timer = setTimeout(() => {
      expired = true
      controller.abort(new Error(`no response within ${limitMillis} ms`))
    }, limitMillis)
    let answeredByAnother = false
    const sent = Effect.map(send, (response) => {
      responseControllers.set(response, controller)
      // The transport may answer with a copy of our request (trace headers added): only another
      // URL means another request answered.
      answeredByAnother = response.request.url !== request.url
      // A limit on the headers alone ends with them: the body is the caller's.
      if (!coversBody) clearTimeout(timer)
      return response
    })
    const settle = (): void => {
      clearTimeout(timer)
      scopedRequests.delete(request)
      if (!controller.signalTaken || answeredByAnother) state.signal = "lost"
      else if (state.signal === "unproven") state.signal = "reaches"
    }
    // One uninterruptible frame, as the platform's own exchange has: an interruption, a failure
    // and a success all settle here.
    return Effect.uninterruptibleMask((restore) =>
      Effect.matchCauseEffect(restore(use(sent)), {
        onSuccess: (value) => {
          settle()
          return Effect.succeed(value)
        },
        onFailure: (cause): Effect.Effect<never, E2 | HttpFailure.ConnectionError> => {
          settle()
          // A failed or interrupted attempt leaves nothing open, but for a transient status's
          // response, held to be drained (and then ended) before the wait.
          if (!holdsResponse(cause)) controller.abort(released)
          // Past the limit, whatever the abort made of the exchange is a timeout.
          return expired && !Cause.isInterruptedOnly(cause)
            ? Effect.fail(timedOut(attempt, limitMillis))
            : Effect.failCause(cause)
        }
      })
    )
  })
