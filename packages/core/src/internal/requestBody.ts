/**
 * The JSON bodies the client signs and sends, built from checked parameters.
 */
import type { ApiVersion } from "../BillsConfig.js"
import type { ValidContractBillsParams, ValidFundingBillsParams, ValidSpotBillsParams } from "../Params.js"

const jsonBody = (fields: ReadonlyArray<readonly [string, string | number | undefined]>): string =>
  JSON.stringify(Object.fromEntries(fields.filter(([, value]) => value !== undefined)))

const digits = (millis: number | undefined): string | undefined => (millis === undefined ? undefined : String(millis))

/**
 * The JSON body text of a funding request: time bounds as digit strings, absent fields left
 * out, keys in a fixed order so the signed bytes are reproducible.
 */
export const fundingBody = (params: ValidFundingBillsParams): string =>
  jsonBody([
    ["coinId", params.coinId],
    ["bizType", params.bizType],
    ["startTime", digits(params.startTime)],
    ["endTime", digits(params.endTime)],
    ["pageIndex", params.pageIndex],
    ["pageSize", params.pageSize]
  ])

/**
 * The JSON body text of a spot request, like `fundingBody`.
 */
export const spotBody = (params: ValidSpotBillsParams): string =>
  jsonBody([
    ["coinId", params.coinId],
    ["bizType", params.bizType],
    ["after", digits(params.after)],
    ["before", digits(params.before)],
    ["limit", params.limit]
  ])

/**
 * The JSON body text of a contract request: v3's names (`asset`, `incomeType`), or v2's (`coin`,
 * `businessType`) on v2; time bounds as epoch-ms numbers, which the docs type as Long. v3's
 * cursor goes as the answer gave it: the id as a digit string (an id above 2^53 has no exact JS
 * number), its time as a number.
 */
export const contractBody = (params: ValidContractBillsParams, version: ApiVersion): string =>
  jsonBody([
    [version === "v2" ? "coin" : "asset", params.asset],
    ["symbol", params.symbol],
    [version === "v2" ? "businessType" : "incomeType", params.incomeType],
    ["startTime", params.startTime],
    ["endTime", params.endTime],
    ["limit", params.limit],
    ["nextKeyId", params.nextKeyId],
    ["nextKeyTime", params.nextKeyTime]
  ])
