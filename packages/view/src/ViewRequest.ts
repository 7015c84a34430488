/**
 * What the page may ask, as `Schema`s: every query parameter is decoded here, and one of the
 * wrong shape (a kind that is none, a time that is not one, a window the wrong way round, a
 * parameter no route takes) is refused with `ViewBadRequest`, whose reason names it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * A request the view refuses: HTTP 400, with the reason as JSON (`{"error": reason}`), which the
 * page shows where the request was made.
 *
 * @since 0.1.0
 * @category errors
 */
export class ViewBadRequest extends Schema.TaggedError<ViewBadRequest>("@account-bills/view/ViewBadRequest")(
  "ViewBadRequest",
  { reason: Schema.String }
) {
  override get message(): string {
    return this.reason
  }
}

/**
 * An account kind of the exchange, as `bills export --account` names it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Kind = Schema.Literal("funding", "spot", "contract")

/**
 * An account kind, or every one.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = typeof Kind.Type

const isoPattern = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * Epoch ms of a time as `bills export --from/--to` read it: epoch milliseconds, or ISO-8601 (a
 * date or time without zone is UTC). Epoch seconds given by mistake are refused, as the flags
 * refuse them, so the same text means the same window here and in the export.
 */
const parseTime = (text: string): Either.Either<number, string> => {
  if (/^\d{1,15}$/.test(text)) {
    const value = Number(text)
    return value >= 1_000_000_000 && value < 100_000_000_000
      ? Either.left(`${text} looks like epoch seconds; give epoch milliseconds (${text}000) or ISO-8601`)
      : Either.right(value)
  }
  const match = isoPattern.exec(text)
  if (match === null) return Either.left(`${JSON.stringify(text)} is not a time: use ISO-8601 or epoch milliseconds`)
  const withTime = match[1] === undefined ? `${text}T00:00:00` : text.replace(" ", "T")
  const millis = Date.parse(match[4] !== undefined ? withTime : `${withTime}Z`)
  return Number.isNaN(millis) ? Either.left(`${JSON.stringify(text)} is not a valid date`) : Either.right(millis)
}

/**
 * A time as text (kept, for the export's flags) and as epoch ms.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TimeParam = Schema.transformOrFail(
  Schema.String,
  Schema.Struct({ text: Schema.String, millis: Schema.Number }),
  {
    strict: true,
    decode: (text, _, ast) =>
      Either.match(parseTime(text.trim()), {
        onLeft: (reason) => ParseResult.fail(new ParseResult.Type(ast, text, reason)),
        onRight: (millis) => ParseResult.succeed({ text: text.trim(), millis })
      }),
    encode: (time) => ParseResult.succeed(time.text)
  }
)

/** A coin as the exchange names it: letters and digits. */
const CoinParam = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._-]{1,32}$/, { message: () => "a coin is its name, e.g. BTC" })
)

/** A business type as the exchange writes it. */
const BizTypeParam = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/, { message: () => "a business type is a word, e.g. deposit" })
)

/** An account of the store by its id (the label, or `key:` and the fingerprint's head). */
const AccountParam = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

/**
 * The filters of the bills, the balances and the downloads: the kind (every kind when absent),
 * coin, business type and window (`from` inclusive, `to` exclusive, as the export reads them).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FilterParams = Schema.Struct({
  account: Schema.optional(AccountParam),
  kind: Schema.optional(Kind),
  coin: Schema.optional(CoinParam),
  bizType: Schema.optional(BizTypeParam),
  from: Schema.optional(TimeParam),
  to: Schema.optional(TimeParam)
})

/**
 * The decoded filters.
 *
 * @since 0.1.0
 * @category models
 */
export type FilterParams = typeof FilterParams.Type

/**
 * Where a page of bills starts: `TIME.KIND.BILLID` of the last bill of the page before.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CursorParam = Schema.TemplateLiteralParser(Schema.NumberFromString, ".", Kind, ".", Schema.String).pipe(
  Schema.filter((parts) => /^\d+$/.test(parts[4]) || "a bill id is digits")
)

/**
 * `/api/bills`: the filters, a cursor and how many bills (1 to 500, 50 by default).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BillsParams = Schema.Struct({
  ...FilterParams.fields,
  after: Schema.optional(CursorParam),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500)))
})

/**
 * `/api/bill`: one bill's raw record.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RawParams = Schema.Struct({
  account: Schema.optional(AccountParam),
  kind: Kind,
  id: Schema.String.pipe(Schema.pattern(/^\d{1,40}$/, { message: () => "a bill id is digits" }))
})

/**
 * `/api/balances`: the series of one coin, in a window.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BalancesParams = Schema.Struct({
  account: Schema.optional(AccountParam),
  coin: CoinParam,
  from: Schema.optional(TimeParam),
  to: Schema.optional(TimeParam),
  points: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(10, 2_000)))
})

/**
 * `/api/accounts`, `/api/audit`: an account.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AccountParams = Schema.Struct({ account: Schema.optional(AccountParam) })

/**
 * `/api/events`: an account and a window.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EventsParams = Schema.Struct({
  account: Schema.optional(AccountParam),
  from: Schema.optional(TimeParam),
  to: Schema.optional(TimeParam)
})

/**
 * `/download`: the filters and a format of `bills export`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DownloadParams = Schema.Struct({
  ...FilterParams.fields,
  format: Schema.Literal("ndjson", "csv", "koinly", "cointracking", "bittytax", "hledger", "ledger", "beancount")
})

/**
 * The formats of `bills export`, in the order the page offers them.
 *
 * @since 0.1.0
 * @category constants
 */
export const downloadFormats = DownloadParams.fields.format.literals

/** The first issue of a failed decode, as one phrase naming the parameter. */
const reasonOf = (error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return "bad request"
  const name = issue.path.map(String).join(".")
  if (issue._tag === "Unexpected") return `unknown parameter ${name}`
  return name === "" ? issue.message : `${name}: ${issue.message}`
}

/**
 * Decodes a request's query parameters with `schema`, refusing one that does not fit, one that
 * no route takes, and a window whose `from` is after its `to`.
 *
 * @since 0.1.0
 * @category utils
 */
export const decodeParams = <A extends Window, I>(
  schema: Schema.Schema<A, I>,
  params: Readonly<Record<string, string | ReadonlyArray<string>>>
): Effect.Effect<A, ViewBadRequest> => {
  const repeated = Object.entries(params).find(([, value]) => typeof value !== "string")
  if (repeated !== undefined) return Effect.fail(new ViewBadRequest({ reason: `${repeated[0]}: given more than once` }))
  return Schema.decodeUnknown(schema, { onExcessProperty: "error", errors: "first" })(params).pipe(
    Effect.mapError((error) => new ViewBadRequest({ reason: reasonOf(error) })),
    Effect.tap((decoded) =>
      decoded.from !== undefined && decoded.to !== undefined && decoded.from.millis > decoded.to.millis
        ? new ViewBadRequest({ reason: `from (${decoded.from.text}) is after to (${decoded.to.text})` })
        : Effect.void
    )
  )
}

/** What every request may carry: the account, and a window (a route without one has neither bound). */
type Window = {
  readonly account?: string | undefined
  readonly from?: typeof TimeParam.Type | undefined
  readonly to?: typeof TimeParam.Type | undefined
}
