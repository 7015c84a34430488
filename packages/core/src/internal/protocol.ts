/**
 * Facts of the wire protocol that only the client's plumbing and the fake exchange need:
 * paths as they enter the signature, the server-time endpoint, the success code, per version.
 */
import type { ApiVersion } from "../BillsConfig.js"
import type { OperationName } from "../Operation.js"

/**
 * Request path of each v2 operation, exactly as it enters the signature.
 */
export const operationPath: Readonly<Record<OperationName, string>> = {
  fundingBills: "/api/v2/account/fundingBills",
  spotBills: "/api/v2/account/bills",
  // On the contract interface's own host (`BillsConfig.contractBaseUrl`).
  contractBills: "/capi/v2/account/bills"
}

/**
 * Path of the v2 public server-time endpoint used to measure clock skew.
 */
export const serverTimePath = "/api/v2/public/time"

/**
 * The success code of the v2 envelope; any other code is a failure.
 */
export const successCode = "00000"

/**
 * The paths of one interface version.
 */
export interface VersionPaths {
  readonly operationPath: Readonly<Record<OperationName, string>>
  readonly serverTimePath: string
  /** The futures host's own time endpoint (its market interface's). */
  readonly contractServerTimePath: string
}

/**
 * The paths of each interface version; v3 takes the same bodies and the same signature.
 */
export const versionPaths: Readonly<Record<ApiVersion, VersionPaths>> = {
  v2: { operationPath, serverTimePath, contractServerTimePath: "/capi/v2/market/time" },
  v3: {
    operationPath: {
      fundingBills: "/api/v3/account/fundingBills",
      spotBills: "/api/v3/account/bills",
      contractBills: "/capi/v3/account/income"
    },
    serverTimePath: "/api/v3/time",
    contractServerTimePath: "/capi/v3/market/time"
  }
}
