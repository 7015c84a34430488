/**
 * A contract bill as the exchange's v3 interface sends it, decoded as the client decodes it: an
 * id past 2^53 (a digit string, as the client's lexer leaves it), amounts as text with their
 * trailing zeros, a symbol and a transfer reason.
 */
import { type ContractBill, ContractBillFromWire } from "@account-bills/core"
import * as Schema from "effect/Schema"

/** The record as sent. */
export const contractRecord = (billId: string, time: number, extra: Record<string, unknown> = {}) => ({
  billId,
  asset: "USDT",
  symbol: "cmt_btcusdt",
  income: "-12.50",
  incomeType: "transfer_out",
  balance: "987.500",
  fillFee: "0",
  time,
  transferReason: "USER_TRANSFER",
  ...extra
})

/** The record decoded. */
export const contractWire = (billId: string, time: number, extra: Record<string, unknown> = {}): ContractBill =>
  Schema.decodeUnknownSync(ContractBillFromWire)(contractRecord(billId, time, extra))
