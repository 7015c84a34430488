/**
 * The ledger an export built on events reads: the accounts `--account` names, where `all` is the
 * accounts the command line serves (funding and spot, as the store's `export --db`; the futures
 * account joins when the command line takes it in).
 *
 * @since 0.2.0
 */
import { type BillsApi, type BillsError, Ledger } from "@account-bills/core"
import * as Stream from "effect/Stream"
import type { Account, ExportAccount } from "./BillFormat.js"

/**
 * What `--account all` reads.
 *
 * @since 0.2.0
 * @category constants
 */
export const allAccounts: ReadonlyArray<Account> = ["funding", "spot"]

/**
 * The entries of the accounts in the window, account after account: the events sort them, so
 * no merge in time order is needed.
 *
 * @since 0.2.0
 * @category utils
 */
export const accountsLedger = (request: {
  readonly account: ExportAccount
  readonly from?: number | undefined
  readonly to?: number | undefined
}): Stream.Stream<Ledger.LedgerEntry, BillsError, BillsApi> =>
  Stream.flatMap(Stream.fromIterable(request.account === "all" ? allAccounts : [request.account]), (account) =>
    Ledger.stream({ account, from: request.from, to: request.to })
  )
