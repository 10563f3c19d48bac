/**
 * One call's timeline drawn in SVG: a time axis, each attempt as a bar while it was in flight and a
 * mark where its answer came (red when it failed, green when it succeeded), each wait as a bar
 * labelled with its length and why, and where the call gave up. The words are the terminal demo's
 * (`src/demo/Timeline.ts`), so the page and `pnpm demo` say the same things.
 */
import type { Outcome } from "../src/demo/Scenarios.js"
import {
  type DecisionView,
  describeGiveUp,
  describeWaitReason,
  type FailureView,
  seconds
} from "../src/demo/Timeline.js"

/**
 * A decision and when it was taken, in milliseconds since the call started.
 */
export interface RecordedDecision {
  readonly decision: DecisionView
  readonly atMillis: number
}

/**
 * How the call ended, once it has.
 */
export interface Ending {
  readonly outcome: Outcome
  readonly elapsedMillis: number
}

const svgNamespace = "http://www.w3.org/2000/svg"

const width = 1100
const margin = { left: 14, right: 14 }
const barHeight = 18
/** Rows of labels above the marks (their results) and under the bars (waits too short to hold theirs). */
const labelRowHeight = 13
/** Every timeline shows at least this many seconds, so that the scenarios share one scale. */
const shortestAxisSeconds = 6
/** The width of one character of the 11px labels, to tell whether a label fits where it goes. */
const characterWidth = 6.6
const labelGap = 6

const svg = <K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string | number>>,
  text?: string
): SVGElementTagNameMap[K] => {
  const element = document.createElementNS(svgNamespace, tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  if (text !== undefined) element.textContent = text
  return element
}

/** A tooltip: the whole story of a mark or a bar, for when its label had to be short. */
const withTooltip = <E extends SVGElement>(element: E, tooltip: string): E => {
  element.append(svg("title", {}, tooltip))
  return element
}

/** A word or a status above an attempt's mark: there is rarely room for more between marks. */
const shortResult = (failure: FailureView): string => {
  switch (failure._tag) {
    case "ConnectionError":
      return "no answer"
    case "DecodeError":
      return "undecodable"
    case "TransientStatus":
    case "PermanentStatus":
      return String(failure.status ?? "")
  }
}

interface AttemptSpan {
  readonly number: number
  readonly sentMillis: number
  readonly answeredMillis: number
  readonly succeeded: boolean
  readonly label: string
  readonly tooltip: string
}

/**
 * Each attempt from when it was sent to when its answer came: the first at the start, each next
 * one when the wait before it ended; the last, when it did not fail with a decision of its own,
 * ends with the call.
 */
const attemptSpans = (records: ReadonlyArray<RecordedDecision>, ending: Ending | undefined): Array<AttemptSpan> => {
  let sentMillis = 0
  const spans = records.map(({ atMillis, decision }): AttemptSpan => {
    const span = {
      number: decision.failure.attempt,
      sentMillis,
      answeredMillis: atMillis,
      succeeded: false,
      label: shortResult(decision.failure),
      tooltip: `attempt ${decision.failure.attempt}: ${decision.failure.message}`
    }
    if (decision._tag === "Retry") sentMillis = atMillis + decision.delayMillis
    return span
  })
  const last = records.at(-1)?.decision
  if (ending === undefined || last?._tag === "GiveUp") return spans
  const { outcome, elapsedMillis } = ending
  const number = (last?.failure.attempt ?? 0) + 1
  spans.push(
    outcome._tag === "Success"
      ? { number, sentMillis, answeredMillis: elapsedMillis, succeeded: true, label: "ok", tooltip: outcome.value }
      : {
          number: outcome.failure?.attempt ?? number,
          sentMillis,
          answeredMillis: elapsedMillis,
          succeeded: false,
          label: outcome.failure === undefined ? "failed" : shortResult(outcome.failure),
          tooltip: outcome.text
        }
  )
  return spans
}

const textWidth = (text: string): number => text.length * characterWidth

/**
 * Puts each label, left to right, in the first row where it clears the labels already there: the
 * row numbers, from 0.
 */
const placeInRows = (labels: ReadonlyArray<{ readonly left: number; readonly right: number }>): Array<number> => {
  const rowEnds: Array<number> = []
  return labels.map(({ left, right }) => {
    const free = rowEnds.findIndex((end) => end + labelGap <= left)
    const row = free === -1 ? rowEnds.length : free
    rowEnds[row] = right
    return row
  })
}

interface ResultLabel {
  readonly text: string
  readonly centre: number
  readonly left: number
  readonly right: number
}

/**
 * The results above the attempts' marks, centred but never cut by the left edge. Attempts too close
 * for their labels that ended alike share one, `no answer ×3`, rather than stacking up.
 */
const resultLabels = (attempts: ReadonlyArray<{ readonly label: string; readonly at: number }>): Array<ResultLabel> => {
  const groups: Array<{ readonly label: string; readonly firstAt: number; lastAt: number; count: number }> = []
  for (const { at, label } of attempts) {
    const group = groups.at(-1)
    if (group !== undefined && group.label === label && at - group.lastAt < textWidth(label) + labelGap) {
      group.lastAt = at
      group.count++
    } else {
      groups.push({ label, firstAt: at, lastAt: at, count: 1 })
    }
  }
  return groups.map(({ count, firstAt, label, lastAt }) => {
    const text = count === 1 ? label : `${label} ×${count}`
    const half = textWidth(text) / 2
    const centre = Math.max((firstAt + lastAt) / 2, margin.left / 2 + half)
    return { text, centre, left: centre - half, right: centre + half }
  })
}

const rowCount = (rows: ReadonlyArray<number | undefined>): number =>
  Math.max(0, ...rows.map((row) => (row === undefined ? 0 : row + 1)))

/**
 * The drawing of one call so far; `ending` once it has ended.
 */
export const drawTimeline = (records: ReadonlyArray<RecordedDecision>, ending: Ending | undefined): SVGSVGElement => {
  const lastMillis = Math.max(
    ending?.elapsedMillis ?? 0,
    ...records.map(({ atMillis, decision }) => atMillis + (decision._tag === "Retry" ? decision.delayMillis : 0))
  )
  // Room after the last mark for why the call gave up.
  const axisSeconds = Math.max(shortestAxisSeconds, Math.ceil(lastMillis / 1000 + 1.2))
  const pixelsPerMilli = (width - margin.left - margin.right) / (axisSeconds * 1000)
  const x = (millis: number): number => margin.left + millis * pixelsPerMilli

  const attempts = attemptSpans(records, ending).map((span) => ({
    ...span,
    from: x(span.sentMillis),
    at: x(span.answeredMillis)
  }))
  const results = resultLabels(attempts)
  const resultRows = placeInRows(results)

  // Each wait's length and why inside its bar when they fit, otherwise under it.
  const waits = records.flatMap(({ atMillis, decision }) => {
    if (decision._tag !== "Retry") return []
    const from = x(atMillis)
    const to = x(atMillis + decision.delayMillis)
    const text = `${seconds(decision.delayMillis)} ${describeWaitReason(decision)}`
    return [{ retry: decision, from, to, text, inside: from + 14 + textWidth(text) + labelGap <= to }]
  })
  const under = waits.filter((wait) => !wait.inside)
  const underRows = placeInRows(under.map(({ from, text }) => ({ left: from, right: from + textWidth(text) })))
  const underRowOf = new Map(under.map((wait, index) => [wait, underRows[index] ?? 0]))

  const laneY = 16 + Math.max(1, rowCount(resultRows)) * labelRowHeight
  const barBottom = laneY + barHeight / 2
  const axisY = barBottom + 10 + rowCount(underRows) * labelRowHeight
  const height = axisY + 18

  const drawing = svg("svg", {
    class: "timeline",
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": "timeline of the call's attempts and waits"
  })

  // The axis, with a tick every half second and a label every second.
  drawing.append(svg("line", { class: "axis", x1: x(0), x2: x(axisSeconds * 1000), y1: axisY, y2: axisY }))
  for (let half = 0; half <= axisSeconds * 2; half++) {
    const tickX = x(half * 500)
    const whole = half % 2 === 0
    drawing.append(svg("line", { class: "tick", x1: tickX, x2: tickX, y1: axisY, y2: axisY + (whole ? 5 : 3) }))
    if (whole) drawing.append(svg("text", { class: "tick-label", x: tickX, y: axisY + 15 }, `${half / 2}s`))
  }

  // The waits, behind the attempts' marks. A capped Retry-After also shows, dashed, how long the
  // server asked for.
  for (const wait of waits) {
    const { from, retry, text, to } = wait
    const asked = retry.failure.retryAfterMillis
    if (retry.capped && asked !== undefined && asked > retry.delayMillis) {
      const y = barBottom + 2
      drawing.append(
        withTooltip(
          svg("line", { class: "asked", x1: to, x2: to + (asked - retry.delayMillis) * pixelsPerMilli, y1: y, y2: y }),
          `the server asked for ${seconds(asked)}`
        )
      )
    }
    const source = retry.source === "backoff" ? "backoff" : "retry-after"
    const bar = svg("rect", {
      class: `wait ${source}`,
      x: from,
      y: laneY - barHeight / 2,
      width: Math.max(to - from, 1),
      height: barHeight,
      rx: 3
    })
    drawing.append(withTooltip(bar, `wait ${text}`))
    const row = underRowOf.get(wait)
    drawing.append(
      row === undefined
        ? svg("text", { class: "wait-label inside", x: from + 14, y: laneY + 4 }, text)
        : svg("text", { class: `wait-label under ${source}`, x: from, y: barBottom + 12 + row * labelRowHeight }, text)
    )
  }

  // The attempts: in flight, then their answer.
  for (const attempt of attempts) {
    drawing.append(
      svg("rect", {
        class: "in-flight",
        x: attempt.from,
        y: laneY - 3,
        width: Math.max(attempt.at - attempt.from, 0),
        height: 6
      })
    )
    const mark = withTooltip(svg("g", { class: attempt.succeeded ? "attempt ok" : "attempt failed" }), attempt.tooltip)
    mark.append(svg("circle", { cx: attempt.at, cy: laneY, r: 8 }))
    mark.append(svg("text", { class: "attempt-number", x: attempt.at, y: laneY + 3.5 }, String(attempt.number)))
    drawing.append(mark)
  }
  results.forEach(({ centre, text }, index) => {
    const y = laneY - 13 - (resultRows[index] ?? 0) * labelRowHeight
    drawing.append(svg("text", { class: "attempt-result", x: centre, y }, text))
  })

  // Where the call stopped retrying, and why.
  const last = records.at(-1)
  if (last?.decision._tag === "GiveUp") {
    drawing.append(
      svg(
        "text",
        { class: "give-up", x: x(last.atMillis) + 14, y: laneY + 4 },
        `gave up: ${describeGiveUp(last.decision.reason)}`
      )
    )
  }
  return drawing
}
