/**
 * Which reason an exchange code and HTTP status mean, one table per interface version, for the
 * client and its tests.
 */
import type { BillsApiErrorReason } from "../Errors.js"

/** What an HTTP status says when the code says nothing. */
const reasonOfStatus = (status: number): BillsApiErrorReason => {
  if (status === 429) return "RateLimited"
  if (status >= 500) return "ServerError"
  if (status === 401) return "Authentication"
  if (status === 403) return "Permission"
  return "Unknown"
}

/**
 * Classifies a v2 envelope code and HTTP status into a reason.
 */
export const reasonOf = (code: string, status: number): BillsApiErrorReason => {
  switch (code) {
    case "40001":
    case "40002":
    case "40003":
    case "40006":
    case "40009":
    case "40011":
    case "40012":
      return "Authentication"
    case "40005":
    case "40008":
      return "TimestampExpired"
    case "40014":
    case "40018":
      return "Permission"
    case "40017":
    case "40707":
      return "InvalidParameter"
    case "40704":
      return "HistoryLimit"
    case "40200":
      return "Maintenance"
    case "429":
      return "RateLimited"
  }
  return reasonOfStatus(status)
}

/**
 * Classifies a v3 error code (a negative integer, as text) and HTTP status into a reason. A 429
 * is rate limiting whatever the body says.
 */
export const reasonOfV3 = (code: string, status: number): BillsApiErrorReason => {
  if (status === 429) return "RateLimited"
  switch (code) {
    case "-1040": // ACCESS_KEY header missing
    case "-1041": // ACCESS_SIGN header missing
    case "-1042": // ACCESS_TIMESTAMP header missing
    case "-1044": // invalid ACCESS_KEY
    case "-1047": // API authentication failed: the signature
    case "-1049": // API key or passphrase incorrect
      return "Authentication"
    case "-1043": // invalid ACCESS_TIMESTAMP
    case "-1046": // timestamp expired
      return "TimestampExpired"
    case "-1050":
    case "-1051":
    case "-1052":
    case "-1053":
    case "-1056": // illegal IP
    case "-1057": // user locked
      return "Permission"
    case "-1045": // Content-Type not JSON
    case "-1121": // invalid symbol (the futures docs' "Error Codes" page)
    case "-1150": // request method not supported (ccxt's notes on the v3 batch endpoints)
    case "-1140":
    case "-1141":
    case "-1142":
    case "-1171": // start after end
      return "InvalidParameter"
    case "-1170": // query time out of range: the history horizon, or a window too wide
      return "HistoryLimit"
    case "-1054": // system error, retry later
      return "ServerError"
    case "-1000":
      return "Unknown"
  }
  return reasonOfStatus(status)
}
