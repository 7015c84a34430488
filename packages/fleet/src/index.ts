/**
 * @account-bills/fleet: many accounts, many processes. Runners on `@effect/cluster` own the
 * accounts of a PostgreSQL database (one writer per account, a dead runner's accounts picked up
 * by the others) and keep each account's store current with `Sync.run`; a budget per source
 * address, shared in Redis, keeps every runner on one address under the exchange's IP limit.
 *
 * @since 0.1.0
 */

export { AddressBudget, type AddressBudgetOptions, type AddressBudgetShape } from "./AddressBudget.js"
/**
 * One pass of one account.
 *
 * @since 0.1.0
 * @category modules
 */
export * as AccountPass from "./AccountPass.js"
export { type FleetAccount, FleetAccounts, type FleetAccountsShape } from "./FleetAccounts.js"
export { FleetCipher, type FleetCipherShape } from "./FleetCipher.js"
export { AccountEntity, entityIdOf, entityType, PassRequest } from "./FleetEntity.js"
export {
  BudgetUnavailable,
  FleetAccountUnknown,
  FleetCredentialsUnreadable,
  type FleetError,
  FleetKeyInvalid,
  FleetKeyMismatch,
  FleetLabelInvalid,
  FleetNeedsPostgres,
  FleetNotFound,
  FleetPortUnavailable,
  FleetRekeyRefused,
  FleetUnavailable,
  isLabel,
  labelRule
} from "./FleetErrors.js"
/**
 * The fleet's metrics.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FleetMetrics from "./FleetMetrics.js"
/**
 * A runner seen from outside: `/metrics`, `/healthz`, `/readyz`, and OTLP export.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FleetObservability from "./FleetObservability.js"
/**
 * A runner as a layer.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FleetRunner from "./FleetRunner.js"
/**
 * The status of the fleet's accounts.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FleetStatus from "./FleetStatus.js"
/**
 * The fleet's database, as one layer.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FleetDatabase from "./FleetDatabase.js"
