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
import { fundingBizTypes, maxPageSize, spotBizTypes } from "../Operation.js"
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

const FundingBody = Schema.parseJson(
  Schema.Struct({
    coinId: nullable(Schema.Int),
    bizType: nullable(Schema.Literal(...fundingBizTypes)),
    startTime: nullable(TimeBound),
    endTime: nullable(TimeBound),
    pageIndex: nullable(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    pageSize: nullable(PageSize)
  })
)

const SpotBody = Schema.parseJson(
  Schema.Struct({
    coinId: nullable(Schema.Int),
    bizType: nullable(Schema.Literal(...spotBizTypes)),
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
