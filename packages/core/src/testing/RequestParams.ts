/**
 * Decodes the JSON bodies of the two operations as the fake exchange understands the contract:
 * everything optional, unknown fields ignored, `null` treated as absent, and anything outside the
 * contract rejected with `40017` (or `40707` when the start bound is after the end bound).
 *
 * Deliberately independent of the client's own schemas, so the fake catches the client's bugs.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ApiVersion } from "../BillsConfig.js"
import { bizTypePattern, contractMaxSpanMillis, maxPageSize } from "../Operation.js"
import { type Rejection, rejections } from "./FakeProtocol.js"

/**
 * A rejected body: the rejection and a detail for the message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParamRejection {
  readonly rejection: Rejection
  readonly detail?: string | undefined
}

/**
 * Decoded funding-bills parameters; time bounds as epoch ms.
 *
 * @since 0.1.0
 * @category models
 */
export interface FundingParams {
  readonly coinId: number | undefined
  readonly bizType: string | undefined
  readonly start: number | undefined
  readonly end: number | undefined
  readonly pageIndex: number
  readonly pageSize: number
}

/**
 * Decoded spot-bills parameters; time bounds as epoch ms.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotParams {
  readonly coinId: number | undefined
  readonly bizType: string | undefined
  readonly start: number | undefined
  readonly end: number | undefined
  readonly limit: number
}

// 15 digits keeps every accepted bound exact as a JS number.
const TimeBound = Schema.Union(
  Schema.String.pipe(Schema.pattern(/^\d{1,15}$/)),
  Schema.Int.pipe(Schema.between(0, 999_999_999_999_999))
)
const PageSize = Schema.Int.pipe(Schema.between(1, maxPageSize))
const nullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })
// Any business type of the right shape filters, documented or not: the records carry types the
// docs do not list, and filtering by one is assumed to work as for the listed ones.
const BizType = Schema.String.pipe(Schema.pattern(bizTypePattern))

const FundingBody = Schema.parseJson(
  Schema.Struct({
    coinId: nullable(Schema.Int),
    bizType: nullable(BizType),
    startTime: nullable(TimeBound),
    endTime: nullable(TimeBound),
    pageIndex: nullable(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    pageSize: nullable(PageSize)
  })
)

const SpotBody = Schema.parseJson(
  Schema.Struct({
    coinId: nullable(Schema.Int),
    bizType: nullable(BizType),
    after: nullable(TimeBound),
    before: nullable(TimeBound),
    limit: nullable(PageSize)
  })
)

const decodeFunding = Schema.decodeUnknownEither(FundingBody)
const decodeSpot = Schema.decodeUnknownEither(SpotBody)

const toMillis = (bound: string | number | undefined): number | undefined =>
  bound === undefined ? undefined : Number(bound)

const parameterError = (error: ParseResult.ParseError): ParamRejection => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue === undefined || issue.path.length === 0 ? "body" : issue.path.join(".")
  return { rejection: rejections.parameter, detail: `${path}: ${issue?.message ?? "invalid"}` }
}

const checkWindow = (start: number | undefined, end: number | undefined): ParamRejection | undefined =>
  start !== undefined && end !== undefined && start > end ? { rejection: rejections.startAfterEnd } : undefined

/**
 * Decodes a funding-bills body.
 *
 * @since 0.1.0
 * @category utils
 */
export const fundingParams = (body: string): Either.Either<FundingParams, ParamRejection> =>
  Either.flatMap(Either.mapLeft(decodeFunding(body), parameterError), (raw) => {
    const params: FundingParams = {
      coinId: raw.coinId,
      bizType: raw.bizType,
      start: toMillis(raw.startTime),
      end: toMillis(raw.endTime),
      pageIndex: raw.pageIndex ?? 1,
      pageSize: raw.pageSize ?? 10
    }
    const bad = checkWindow(params.start, params.end)
    return bad === undefined ? Either.right(params) : Either.left(bad)
  })

/**
 * Decodes a spot-bills body.
 *
 * @since 0.1.0
 * @category utils
 */
export const spotParams = (body: string): Either.Either<SpotParams, ParamRejection> =>
  Either.flatMap(Either.mapLeft(decodeSpot(body), parameterError), (raw) => {
    const params: SpotParams = {
      coinId: raw.coinId,
      bizType: raw.bizType,
      start: toMillis(raw.after),
      end: toMillis(raw.before),
      limit: raw.limit ?? 10
    }
    const bad = checkWindow(params.start, params.end)
    return bad === undefined ? Either.right(params) : Either.left(bad)
  })

/**
 * Decoded contract-bills parameters, under v3's names whichever version sent them.
 *
 * @since 0.2.0
 * @category models
 */
export interface ContractParams {
  readonly asset: string | undefined
  readonly symbol: string | undefined
  readonly incomeType: string | undefined
  readonly start: number | undefined
  readonly end: number | undefined
  readonly limit: number
  /** v3's cursor: continue after the bill with this id at this time. */
  readonly nextKey: { readonly id: string; readonly time: number } | undefined
}

/**
 * The default `limit` of the contract operation (the v2 docs: 20; assumed for v3 too).
 *
 * @since 0.2.0
 * @category constants
 */
export const contractDefaultLimit = 20

const Name = Schema.String.pipe(Schema.minLength(1))

const ContractBodyV3 = Schema.parseJson(
  Schema.Struct({
    asset: nullable(Name),
    symbol: nullable(Name),
    incomeType: nullable(BizType),
    startTime: nullable(TimeBound),
    endTime: nullable(TimeBound),
    limit: nullable(PageSize),
    nextKeyId: nullable(Schema.Union(Schema.String.pipe(Schema.pattern(/^\d+$/)), Schema.NonNegativeInt)),
    nextKeyTime: nullable(TimeBound)
  })
)

const ContractBodyV2 = Schema.parseJson(
  Schema.Struct({
    coin: nullable(Name),
    symbol: nullable(Name),
    businessType: nullable(BizType),
    startTime: nullable(TimeBound),
    endTime: nullable(TimeBound),
    limit: nullable(PageSize)
  })
)

const decodeContractV3 = Schema.decodeUnknownEither(ContractBodyV3)
const decodeContractV2 = Schema.decodeUnknownEither(ContractBodyV2)

/** The other version's field names: strict, so a client that mixes them up fails here first. */
const foreignFields: Readonly<Record<ApiVersion, ReadonlyArray<string>>> = {
  v2: ["asset", "incomeType", "nextKeyId", "nextKeyTime"],
  v3: ["coin", "businessType"]
}

/**
 * Decodes a contract-bills body as `version` documents it, strictly: the two time bounds only
 * together, at most 100 days apart, the start not after the end; `limit` 1 to 100; on v3 the
 * cursor's two fields only together; the other version's field names refused.
 *
 * @since 0.2.0
 * @category utils
 */
export const contractParams = (body: string, version: ApiVersion): Either.Either<ContractParams, ParamRejection> => {
  const decoded: Either.Either<ContractParams, ParamRejection> =
    version === "v3"
      ? Either.map(Either.mapLeft(decodeContractV3(body), parameterError), (raw) => ({
          asset: raw.asset,
          symbol: raw.symbol,
          incomeType: raw.incomeType,
          start: toMillis(raw.startTime),
          end: toMillis(raw.endTime),
          limit: raw.limit ?? contractDefaultLimit,
          nextKey:
            raw.nextKeyId === undefined || raw.nextKeyTime === undefined
              ? undefined
              : { id: String(raw.nextKeyId), time: Number(raw.nextKeyTime) },
          halfKey: (raw.nextKeyId === undefined) !== (raw.nextKeyTime === undefined)
        }))
      : Either.map(Either.mapLeft(decodeContractV2(body), parameterError), (raw) => ({
          asset: raw.coin,
          symbol: raw.symbol,
          incomeType: raw.businessType,
          start: toMillis(raw.startTime),
          end: toMillis(raw.endTime),
          limit: raw.limit ?? contractDefaultLimit,
          nextKey: undefined,
          halfKey: false
        }))
  return Either.flatMap(decoded, (params) => {
    const object = Either.getOrUndefined(Either.try(() => JSON.parse(body) as Record<string, unknown>)) ?? {}
    const foreign = foreignFields[version].find((field) => object[field] !== undefined && object[field] !== null)
    if (foreign !== undefined) {
      return Either.left({ rejection: rejections.parameter, detail: `${foreign}: not a ${version} parameter` })
    }
    if ((params as { readonly halfKey?: boolean }).halfKey === true) {
      return Either.left({ rejection: rejections.parameter, detail: "nextKeyId and nextKeyTime go together" })
    }
    if ((params.start === undefined) !== (params.end === undefined)) {
      return Either.left({
        rejection: rejections.parameter,
        detail: "startTime and endTime must be given together"
      })
    }
    const bad = checkWindow(params.start, params.end)
    if (bad !== undefined) return Either.left(bad)
    if (params.start !== undefined && params.end !== undefined && params.end - params.start > contractMaxSpanMillis) {
      return Either.left({
        rejection: rejections.parameter,
        detail: "the time range between startTime and endTime must not exceed 100 days"
      })
    }
    const { asset, end, incomeType, limit, nextKey, start, symbol } = params
    return Either.right({ asset, symbol, incomeType, start, end, limit, nextKey })
  })
}
