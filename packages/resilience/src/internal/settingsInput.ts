// Moved to invalidOption.ts, which both lines generate from one template; this module stays
// until its importers (retryPolicy, retryBudgetService, circuitBreakerService) import from there.
export { durationCodec, fromChecked, type Validated } from "./invalidOption.js"
