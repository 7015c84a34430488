/**
 * Which reason an exchange code and HTTP status mean; one table for the client and its tests.
 */
import type { BillsApiErrorReason } from "../Errors.js"

/**
 * Classifies an exchange code and HTTP status into a reason.
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
  if (status === 429) return "RateLimited"
  if (status >= 500) return "ServerError"
  if (status === 401) return "Authentication"
  if (status === 403) return "Permission"
  return "Unknown"
}
