/**
 * The grammars of the wire's text fields, in one place: the schemas (`Amount`, `Bill`) and the
 * fast decoder (internal/fastDecode.ts) test the same patterns, so the two decoding paths
 * cannot drift apart on what they accept.
 */

/** A plain decimal: optional minus, digits, optionally a point and more digits. */
export const decimalPattern = /^-?\d+(\.\d+)?$/

/** A bill id: digits only. */
export const idPattern = /^\d+$/

/** Epoch milliseconds as text: up to 15 digits (past the year 33000, short of 2^53). */
export const millisPattern = /^\d{1,15}$/
