import * as Http from "node:http"
import { BadRequest, quote } from "./errors.js"

/** @internal */
export type StatusCategory = "informational" | "success" | "redirection" | "client-error" | "server-error"

/** @internal */
export const statusText = (status: number): string => Http.STATUS_CODES[status] ?? "Unknown"

/** @internal */
export const categoryOf = (status: number): StatusCategory =>
  status < 200
    ? "informational"
    : status < 300
      ? "success"
      : status < 400
        ? "redirection"
        : status < 500
          ? "client-error"
          : "server-error"

/**
 * Statuses whose response must not carry content (RFC 9110 15.3.5, 15.3.6, 15.4.5).
 *
 * @internal
 */
export const forbidsContent = (status: number): boolean => status === 204 || status === 205 || status === 304

/**
 * Parses a status code the way the fault endpoints accept it: three digits, inside `[min, max]`, and known to
 * node's status table (an unknown code such as 299 has no reason phrase and is almost always a typo). Throws
 * {@link BadRequest} otherwise.
 *
 * @internal
 */
export const parseStatus = (
  name: string,
  raw: string,
  range: { readonly min: number; readonly max: number }
): number => {
  const status = /^\d{3}$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isNaN(status) || status < range.min || status > range.max) {
    throw new BadRequest(`${name} must be an HTTP status code between ${range.min} and ${range.max}, got ${quote(raw)}`)
  }
  if (Http.STATUS_CODES[status] === undefined) {
    throw new BadRequest(`${name} ${status} is not a known HTTP status code`)
  }
  return status
}
