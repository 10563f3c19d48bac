import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as HedgeRace from "../src/HedgeRace.js"

const won: HedgeRace.Outcome = { _tag: "Won" }
const final: HedgeRace.Outcome = { _tag: "Final" }
const transient: HedgeRace.Outcome = { _tag: "Transient", pushback: false }
const pushback: HedgeRace.Outcome = { _tag: "Transient", pushback: true }

describe("HedgeRace", () => {
  it("sends copy 1 at once, and the next one when the timer fires and it may go", () => {
    const [race, first] = HedgeRace.start({ maxCopies: 3, delayMillis: 100 })
    expect(first).toEqual([
      { _tag: "Send", copy: 1 },
      { _tag: "SetTimer", afterMillis: 100 }
    ])
    const [asking, ask] = HedgeRace.timerFired(race)
    expect(ask).toEqual([{ _tag: "Ask" }])
    const [two, second] = HedgeRace.answered(asking, true)
    expect(second).toEqual([
      { _tag: "Send", copy: 2 },
      { _tag: "SetTimer", afterMillis: 100 }
    ])
    const [three, third] = HedgeRace.answered(HedgeRace.timerFired(two)[0], true)
    // The last copy: no timer after it.
    expect(third).toEqual([{ _tag: "Send", copy: 3 }])
    expect(HedgeRace.timerFired(three)[1]).toEqual([])
    expect(three.inFlight).toEqual([1, 2, 3])
  })

  it("one copy at most: no timer, no hedge", () => {
    const [race, actions] = HedgeRace.start({ maxCopies: 1, delayMillis: 100 })
    expect(actions).toEqual([{ _tag: "Send", copy: 1 }])
    expect(HedgeRace.timerFired(race)[1]).toEqual([])
    expect(HedgeRace.ended(race, 1, transient)[1]).toEqual([{ _tag: "Finish", copy: 1, interrupt: [] }])
  })

  it("a delay of 0 asks for every copy at once", () => {
    const [race, actions] = HedgeRace.start({ maxCopies: 3, delayMillis: 0 })
    expect(actions).toEqual([{ _tag: "Send", copy: 1 }, { _tag: "Ask" }])
    const [two, second] = HedgeRace.answered(race, true)
    expect(second).toEqual([{ _tag: "Send", copy: 2 }, { _tag: "Ask" }])
    expect(HedgeRace.answered(two, true)[1]).toEqual([{ _tag: "Send", copy: 3 }])
  })

  it("the first acceptable response wins, and the others are interrupted", () => {
    const [race] = HedgeRace.start({ maxCopies: 2, delayMillis: 100 })
    const [racing] = HedgeRace.answered(HedgeRace.timerFired(race)[0], true)
    const [done, finish] = HedgeRace.ended(racing, 2, won)
    expect(finish).toEqual([{ _tag: "Finish", copy: 2, interrupt: [1] }])
    // The loser's end, after the race, changes nothing.
    expect(HedgeRace.ended(done, 1, won)).toEqual([done, []])
  })

  it("a final failure ends the race at once, though another copy is in flight", () => {
    const [race] = HedgeRace.start({ maxCopies: 2, delayMillis: 100 })
    const [racing] = HedgeRace.answered(HedgeRace.timerFired(race)[0], true)
    expect(HedgeRace.ended(racing, 1, final)[1]).toEqual([{ _tag: "Finish", copy: 1, interrupt: [2] }])
  })

  it("a transient failure ends nothing while another copy is in flight, and asks for the next at once", () => {
    const [race] = HedgeRace.start({ maxCopies: 3, delayMillis: 100 })
    const [racing] = HedgeRace.answered(HedgeRace.timerFired(race)[0], true)
    const [waiting, actions] = HedgeRace.ended(racing, 1, transient)
    expect(actions).toEqual([{ _tag: "Ask" }])
    const [three, sent] = HedgeRace.answered(waiting, true)
    expect(sent).toEqual([{ _tag: "Send", copy: 3 }])
    const [lastOne] = HedgeRace.ended(three, 3, transient)
    // Every copy failed: the outcome is the latest sent, whichever failed last.
    expect(HedgeRace.ended(lastOne, 2, transient)[1]).toEqual([{ _tag: "Finish", copy: 3, interrupt: [] }])
  })

  it("pushback stops further copies; the race waits for those in flight", () => {
    const [race] = HedgeRace.start({ maxCopies: 3, delayMillis: 100 })
    const [racing] = HedgeRace.answered(HedgeRace.timerFired(race)[0], true)
    const [stopped, none] = HedgeRace.ended(racing, 1, pushback)
    expect(none).toEqual([])
    expect(HedgeRace.timerFired(stopped)[1]).toEqual([])
    // The failure with pushback is the outcome: the retry policy hears the server's delay.
    expect(HedgeRace.ended(stopped, 2, transient)[1]).toEqual([{ _tag: "Finish", copy: 1, interrupt: [] }])
  })

  it("a refused copy stops further ones; with nothing in flight, the race ends with the last failure", () => {
    const [race] = HedgeRace.start({ maxCopies: 3, delayMillis: 100 })
    const [asking] = HedgeRace.ended(race, 1, transient)
    expect(asking.asking).toBe(true)
    expect(HedgeRace.answered(asking, false)[1]).toEqual([{ _tag: "Finish", copy: 1, interrupt: [] }])
  })

  it("never more copies than maxCopies, one finish at most, and the losers are exactly those in flight", () => {
    const event = fc.oneof(
      fc.constant({ _tag: "timer" } as const),
      fc.record({ _tag: fc.constant("answer" as const), allowed: fc.boolean() }),
      fc.record({
        _tag: fc.constant("end" as const),
        pick: fc.nat(),
        outcome: fc.constantFrom(won, final, transient, pushback)
      })
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(0, 100),
        fc.array(event, { maxLength: 40 }),
        (maxCopies, delayMillis, events) => {
          let [race, actions] = HedgeRace.start({ maxCopies, delayMillis })
          const all: Array<HedgeRace.Action> = [...actions]
          const inFlight = new Set<number>([1])
          for (const happened of events) {
            ;[race, actions] =
              happened._tag === "timer"
                ? HedgeRace.timerFired(race)
                : happened._tag === "answer"
                  ? HedgeRace.answered(race, happened.allowed)
                  : HedgeRace.ended(
                      race,
                      [...inFlight][happened.pick % Math.max(1, inFlight.size)] ?? 1,
                      happened.outcome
                    )
            if (happened._tag === "end" && actions.every((action) => action._tag !== "Finish")) {
              inFlight.delete([...inFlight][happened.pick % Math.max(1, inFlight.size)] ?? 1)
            }
            for (const action of actions) {
              if (action._tag === "Send") inFlight.add(action.copy)
              if (action._tag === "Finish") {
                for (const loser of action.interrupt) expect(inFlight.has(loser)).toBe(true)
                expect(action.interrupt).not.toContain(action.copy)
              }
            }
            all.push(...actions)
            expect(race.inFlight.length).toBeLessThanOrEqual(maxCopies)
          }
          const sends = all
            .filter((action) => action._tag === "Send")
            .map((action) => ("copy" in action ? action.copy : 0))
          expect(sends).toEqual(sends.map((_, index) => index + 1))
          expect(sends.length).toBeLessThanOrEqual(maxCopies)
          const finishes = all.filter((action) => action._tag === "Finish")
          expect(finishes.length).toBeLessThanOrEqual(1)
          if (finishes.length === 1) expect(all.at(-1)?._tag).toBe("Finish")
        }
      )
    )
  })
})
