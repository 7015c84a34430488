/**
 * Facts of the wire protocol that only the client's plumbing and the fake exchange need:
 * paths as they enter the signature, the server-time endpoint, the success code.
 */
import type { OperationName } from "../Operation.js"

/**
 * Request path of each operation, exactly as it enters the signature.
 */
export const operationPath: Readonly<Record<OperationName, string>> = {
  fundingBills: "/api/v2/account/fundingBills",
  spotBills: "/api/v2/account/bills"
}

/**
 * Path of the public server-time endpoint used to measure clock skew.
 */
export const serverTimePath = "/api/v2/public/time"

/**
 * The success code of the envelope; any other code is a failure.
 */
export const successCode = "00000"
