/**
 * The ledger an export built on events reads: the accounts `--account` names, where `all` is the
 * three (funding, spot and the futures account).
 *
 * @since 0.2.0
 */
import type { BillsApi, BillsError } from "@account-bills/core"
import { Ledger } from "@account-bills/books"
import * as Stream from "effect/Stream"
import { accountsOf, type ExportAccount } from "./BillFormat.js"

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
  Stream.flatMap(Stream.fromIterable(accountsOf(request.account)), (account) =>
    Ledger.stream({ account, from: request.from, to: request.to })
  )
