/**
 * The conformance suite of effect-http-resilience: scenarios as plain data, and the record a
 * line's runner keeps of one, to compare with what the scenario expects. No Effect here: each
 * line's `test/conformance.test.ts` runs the scenarios through its own public API.
 */
export * from "./Recorder.js"
export * from "./Scenario.js"
export { scenarios } from "./scenarios.js"
