/**
 * Which kinds of an account a monitoring check watches: the ones whose failure or lag an operator
 * must hear of. Funding and spot always. The futures account too, except for a key that has no
 * futures account to read: the futures interface refuses it (no futures permission, no futures
 * account), so its walk never finished and it fails at every pass, for ever, and an alert on it
 * would only page. Once a contract walk has finished, the key reads futures bills: a failure of
 * the kind from then on (the contract host down, a permission taken away) is watched like the
 * other two. One rule for the status's exit codes, its summary line and the runner's gauges.
 */
import type { BillKind } from "@account-bills/core"

/**
 * True when a check watches `kind`, given whether its walk ever finished (`covered`) and whether
 * its passes fail now (`failing`).
 */
export const isWatched = (kind: BillKind, covered: boolean, failing: boolean): boolean =>
  kind !== "contract" || covered || !failing
