import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { RateLimitLog } from "../src/RateLimitLog.js"

/** Attempts that each want to go `gap` ms after the last one went, and are answered `rtt` ms after they go. */
interface Wanted {
  readonly gap: number
  readonly rtt: number
  /** Where between its send and its answer the server saw it (0: at the send, 1: at the answer). */
  readonly arrival: number
}

/** Plays the attempts through a log as the line does (answers recorded as time passes): when each went and arrived. */
const play = (capacity: number, windowMillis: number, wanted: ReadonlyArray<Wanted>) => {
  const log = new RateLimitLog(capacity, windowMillis)
  const pending: Array<{ readonly sent: number; readonly at: number }> = []
  const arrivals: Array<number> = []
  const sends: Array<number> = []
  let now = 0
  const answerUpTo = (time: number) => {
    for (const entry of pending.filter((p) => p.at <= time).sort((a, b) => a.at - b.at)) {
      log.ended(entry.sent, entry.at)
      pending.splice(pending.indexOf(entry), 1)
    }
  }
  for (const { gap, rtt, arrival } of wanted) {
    now += gap
    for (;;) {
      answerUpTo(now)
      const at = log.nextAt(now)
      if (at === now) break
      now = at ?? Math.min(...pending.map((p) => p.at))
    }
    pending.push({ sent: log.sent(), at: now + rtt })
    sends.push(now)
    arrivals.push(now + rtt * arrival)
  }
  answerUpTo(Number.POSITIVE_INFINITY)
  return { log, sends, arrivals, end: now }
}

// The most arrivals any span [t, t + window) holds.
const busiest = (arrivals: ReadonlyArray<number>, windowMillis: number): number => {
  const sorted = [...arrivals].sort((a, b) => a - b)
  return Math.max(0, ...sorted.map((start) => sorted.filter((at) => at >= start && at < start + windowMillis).length))
}

describe("RateLimitLog", () => {
  it("a late answer holds the send a capacity later until a window after it", () => {
    const { sends } = play(2, 1000, [
      { gap: 0, rtt: 300, arrival: 1 },
      { gap: 0, rtt: 0, arrival: 0 },
      { gap: 0, rtt: 0, arrival: 0 },
      { gap: 0, rtt: 0, arrival: 0 }
    ])
    // The second goes at once (a place is free), the third a window after the first's answer, the fourth after the second's.
    expect(sends).toEqual([0, 0, 1300, 1300])
  })

  it("an unanswered send holds the next: nextAt is undefined until its answer", () => {
    const log = new RateLimitLog(1, 1000)
    const first = log.sent()
    expect(log.nextAt(5000)).toBeUndefined()
    log.ended(first, 5200)
    expect(log.nextAt(5300)).toBe(6200)
    expect(log.nextAt(7000)).toBe(7000)
    // Its first end counts: an end told again is ignored.
    log.ended(first, 9000)
    expect(log.nextAt(7000)).toBe(7000)
  })

  it("is idle once every send was answered a window ago, and forgets what is past its capacity", () => {
    const log = new RateLimitLog(2, 1000)
    const sent = [log.sent(), log.sent()]
    expect(log.isIdle(0)).toBe(false)
    for (const number of sent) log.ended(number, 100)
    expect(log.isIdle(1099)).toBe(false)
    expect(log.isIdle(1100)).toBe(true)
    // Many sends two a window, each answered as it went: after each drop of the oldest (and the compactions), the
    // send two back is still the one that holds the next, a millisecond early is too early.
    for (let index = 0; index < 1000; index++) {
      const at = 1100 + index * 500
      if (index >= 2) expect(log.nextAt(at - 1)).toBe(at)
      expect(log.nextAt(at)).toBe(at)
      log.ended(log.sent(), at)
    }
  })

  it("no span of one window holds more than the capacity's arrivals, wherever between send and answer they land", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 700 }),
            rtt: fc.integer({ min: 0, max: 1500 }),
            arrival: fc.double({ min: 0, max: 1, noNaN: true })
          }),
          { maxLength: 40 }
        ),
        (capacity, windowMillis, wanted) => {
          const { arrivals, log, end } = play(capacity, windowMillis, wanted)
          expect(busiest(arrivals, windowMillis)).toBeLessThanOrEqual(capacity)
          // Every send answered: the log is idle a window and the longest answer after the last send.
          expect(log.isIdle(end + 1500 + windowMillis)).toBe(true)
        }
      )
    )
  })
})
