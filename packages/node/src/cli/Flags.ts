/**
 * Every flag of `bills`, declared once. Each value is checked by the parser itself
 * (`Options.withSchema`), so a bad value is refused before any command runs, in one line that
 * names the flag, with exit code 2. Checks that need two flags at once (`--from` after `--to`,
 * a `--biz-type` of the other account) stay with the command that has both.
 *
 * @since 0.1.0
 */
import { contractIncomeTypes, fundingBizTypes, isWellFormedBizType, spotBizTypes } from "@account-bills/core/Operation"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { parseTime } from "./TimeFlag.js"

/**
 * A schema from a flag's text to its value; `parse` gives the refusal as a sentence that names
 * the flag, and that sentence is the whole message the parser prints.
 */
const flagValue = <A>(value: Schema.Schema<A>, parse: (text: string) => Effect.Effect<A, string>) =>
  Schema.transformOrFail(Schema.String, Schema.typeSchema(value), {
    strict: true,
    decode: (text, _, ast) => Effect.mapError(parse(text), (reason) => new ParseResult.Type(ast, text, reason)),
    encode: (decoded) => ParseResult.succeed(String(decoded))
  }).annotations({
    message: (issue) => ({
      message:
        issue._tag === "Transformation" && issue.issue._tag === "Type" && issue.issue.message !== undefined
          ? issue.issue.message
          : String(issue),
      override: true
    })
  })

/**
 * The schema of a whole-number flag from `min` to `max`, refusing anything else by name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const wholeNumber = (flag: string, min: number, max?: number) =>
  flagValue(Schema.Int, (text) => {
    const value = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN
    if (Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max)) return Either.right(value)
    const range = max === undefined ? `${min} or more` : `from ${min} to ${max}`
    return Either.left(`--${flag} takes a whole number ${range}, got ${JSON.stringify(text)}`)
  })

/**
 * The schema of a flag that takes one of `values`, refusing anything else by name with the list.
 *
 * @since 0.2.0
 * @category schemas
 */
export const oneOf = <const Values extends ReadonlyArray<string>>(flag: string, values: Values) =>
  flagValue(Schema.Literal(...values), (text) =>
    (values as ReadonlyArray<string>).includes(text)
      ? Either.right(text as Values[number])
      : Either.left(`--${flag} takes one of ${values.join(", ")}, got ${JSON.stringify(text)}`)
  )

const number = (flag: string, pseudoName: string, min: number, max?: number) =>
  Options.text(flag).pipe(Options.withPseudoName(pseudoName), Options.withSchema(wholeNumber(flag, min, max)))

/**
 * The accounts a command reads: one of the three, or all of them.
 *
 * @since 0.1.0
 * @category flags
 */
export const account = Options.text("account").pipe(
  Options.withPseudoName("funding|spot|contract|all"),
  Options.withSchema(oneOf("account", ["funding", "spot", "contract", "all"] as const)),
  Options.withDescription(
    "funding, spot, contract (the futures account), or all (the three at once; a key the futures interface refuses reads the other two)"
  )
)

/**
 * `--from TIME`: inclusive, ISO-8601 or epoch milliseconds, not in the future (there is nothing
 * to read there, and an empty answer would look like an account with no bills).
 *
 * @since 0.1.0
 * @category flags
 */
export const from = Options.text("from").pipe(
  Options.withPseudoName("TIME"),
  Options.withSchema(
    flagValue(Schema.Number, (text) =>
      Effect.flatMap(parseTime("from", text), (millis) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          millis > now
            ? Effect.fail(
                `--from ${text} is in the future (${new Date(millis).toISOString()}); the exchange has no bills there yet`
              )
            : Effect.succeed(millis)
        )
      )
    )
  ),
  Options.withDescription("earliest time, inclusive: ISO-8601 (a time without a zone is UTC) or epoch milliseconds"),
  Options.optional
)

/**
 * `--to TIME`: exclusive, ISO-8601 or epoch milliseconds.
 *
 * @since 0.1.0
 * @category flags
 */
export const to = Options.text("to").pipe(
  Options.withPseudoName("TIME"),
  Options.withSchema(flagValue(Schema.Number, (text) => parseTime("to", text))),
  Options.withDescription("latest time, exclusive: ISO-8601 or epoch milliseconds (default: now)"),
  Options.optional
)

/**
 * `--coin-id N`: only this coin.
 *
 * @since 0.1.0
 * @category flags
 */
export const coinId = number("coin-id", "N", 1).pipe(
  Options.withDescription("only this coin (a positive coin id)"),
  Options.optional
)

/**
 * Every business type an account documents, for the help; which accounts document a type is
 * said with `--account` (ExportFlags.ts).
 *
 * @since 0.1.0
 * @category constants
 */
export const bizTypes: ReadonlyArray<string> = [
  ...new Set<string>([...fundingBizTypes, ...spotBizTypes, ...contractIncomeTypes])
]

/**
 * `--biz-type TYPE`: only this business type, documented or not (the records carry types the
 * docs do not list); only its shape is checked here.
 *
 * @since 0.1.0
 * @category flags
 */
export const bizType = Options.text("biz-type").pipe(
  Options.withPseudoName("TYPE"),
  Options.withSchema(
    flagValue(Schema.String, (text) =>
      isWellFormedBizType(text)
        ? Either.right(text)
        : Either.left(
            `--biz-type takes a business type, a letter then letters, digits or underscores (at most 64), got ${JSON.stringify(text)}`
          )
    )
  ),
  Options.withDescription(
    `only this business type. Documented: funding: ${fundingBizTypes.join(", ")}. spot: ${spotBizTypes.join(", ")}. contract: ${contractIncomeTypes.join(", ")}. Any other (airdrop_reward, rake_back_reward, ...) is sent as given, with a warning`
  ),
  Options.optional
)

/**
 * `--format text|json` of `bills audit`.
 *
 * @since 0.2.0
 * @category flags
 */
export const auditFormat = Options.text("format").pipe(
  Options.withPseudoName("text|json"),
  Options.withSchema(oneOf("format", ["text", "json"] as const)),
  Options.withDescription(
    "text: the report for people; json: one JSON object (whole, report, store, events) for scripts (default: text)"
  ),
  Options.withDefault("text" as const)
)

/**
 * `--format ndjson|csv|koinly|cointracking|bittytax|hledger|ledger|beancount`.
 *
 * @since 0.1.0
 * @category flags
 */
export const format = Options.text("format").pipe(
  Options.withPseudoName("ndjson|csv|koinly|cointracking|bittytax|hledger|ledger|beancount"),
  Options.withSchema(
    oneOf("format", ["ndjson", "csv", "koinly", "cointracking", "bittytax", "hledger", "ledger", "beancount"] as const)
  ),
  Options.withDescription(
    "ndjson: one raw record a line; csv: a header row and one row a bill; koinly, cointracking, bittytax: the tax tool's import file, trades paired and internal transfers left out; hledger, ledger, beancount: a journal with every balance the exchange reported asserted (default: ndjson)"
  ),
  Options.withDefault("ndjson" as const)
)

/**
 * `--account-names FILE`: a JSON object that renames the accounts of a journal (keys `spot`,
 * `funding`, `futures`, `fees`, `income`, `losses`, `external`, `opening`, `suspense`).
 *
 * @since 0.2.0
 * @category flags
 */
export const accountNames = Options.file("account-names", { exists: "yes" }).pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription(
    'with --format hledger|ledger|beancount: a JSON file of account names, e.g. {"spot": "Assets:Exchange:Spot", "fees": "Expenses:Fees"} (docs/books.md)'
  ),
  Options.optional
)

/**
 * `--strict`: with a tax tool's format, a leg that cannot be paired or a business type we do
 * not know is an error (exit code 5) instead of a single-sided row.
 *
 * @since 0.2.0
 * @category flags
 */
export const strict = Options.boolean("strict").pipe(
  Options.withDescription(
    "with --format koinly|cointracking|bittytax|hledger|ledger|beancount: fail (exit code 5, nothing written) if any bill can be written only single-sided or against suspense"
  )
)

/**
 * `--out FILE`.
 *
 * @since 0.1.0
 * @category flags
 */
export const out = Options.text("out").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("write to this file instead of standard output"),
  Options.optional
)

/**
 * The rate limit the exchange sets: 10 requests per second per operation. More may be asked
 * for (an account with a higher limit), with a warning.
 *
 * @since 0.1.0
 * @category constants
 */
export const exchangeRateLimit = 10

/**
 * One line on stderr when `--max-rps` asks the exchange for more than it allows: the value is
 * taken (an account may have a higher limit), but it usually trips 429 refusals. Only toward an
 * https base URL, the exchange's (the default): plain http reaches only a loopback host, a fake
 * exchange or a proxy on this machine, whose limit is its own.
 *
 * @since 0.1.0
 * @category utils
 */
export const warnAboveRateLimit = (maxRps: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (maxRps <= exchangeRateLimit) return
    const baseUrl = yield* Effect.orElseSucceed(Config.option(Config.string("WEEX_BASE_URL")), () => Option.none())
    if (Option.isSome(baseUrl) && !baseUrl.value.startsWith("https:")) return
    process.stderr.write(
      `bills: warning: --max-rps ${maxRps} is above the exchange's limit of ${exchangeRateLimit} requests per second per operation; expect 429 refusals and retries unless your account has a higher limit\n`
    )
  })

/**
 * `--max-rps N`: requests per second per operation.
 *
 * @since 0.1.0
 * @category flags
 */
export const maxRps = number("max-rps", "N", 1).pipe(
  Options.withDescription(
    `requests per second per operation (default: ${exchangeRateLimit}, the exchange's limit; above it the exchange answers 429 and the client waits)`
  ),
  Options.withDefault(exchangeRateLimit)
)

/**
 * The most requests a walk may have in flight, as the streams accept it: far more than the
 * rate limit can use at any distance (see `defaultConcurrency`).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxConcurrency = 64

/**
 * `--concurrency N`: requests in flight per account.
 *
 * @since 0.1.0
 * @category flags
 */
export const concurrency = number("concurrency", "N", 1, maxConcurrency).pipe(
  Options.withDescription(
    `requests in flight per account, 1 to ${maxConcurrency} (default: 9; 1: one after the other)`
  ),
  Options.optional
)

const db = Options.text("db").pipe(Options.withPseudoName("PATH|URL"))

/**
 * `--db PATH|URL` of `export` and `audit`: read from a store, offline.
 *
 * @since 0.1.0
 * @category flags
 */
export const readDb = db.pipe(
  Options.withDescription(
    "read from this store (a SQLite file or a postgres:// URL) instead of the exchange, offline; needs @account-bills/store"
  ),
  Options.optional
)

/**
 * `--db PATH|URL` of `sync`: the store written.
 *
 * @since 0.1.0
 * @category flags
 */
export const writeDb = db.pipe(
  Options.withDescription(
    "the store: a SQLite file or a postgres:// URL, password in PGPASSWORD (default: bills.sqlite here); needs @account-bills/store"
  ),
  Options.optional
)

/**
 * `--partial` of `export` and `audit`: read what a store holds even when a sync of it is
 * unfinished (without it, such a read stops with exit code 4).
 *
 * @since 0.1.0
 * @category flags
 */
export const partial = Options.boolean("partial").pipe(
  Options.withDescription(
    "with --db: read what the store holds even when a sync of it is unfinished (otherwise exit 4)"
  )
)

/**
 * `--overlap SECONDS` of `sync`.
 *
 * @since 0.1.0
 * @category flags
 */
export const overlap = number("overlap", "SECONDS", 0).pipe(
  Options.withDescription("seconds re-read before the end already kept, for bills that show up late (default: 60)"),
  Options.withDefault(60)
)

/**
 * `--label NAME` of `sync`.
 *
 * @since 0.1.0
 * @category flags
 */
export const label = Options.text("label").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription(
    "the account's name in the store: sync keeps it under this name (default: the API key's fingerprint); export and audit with --db read it"
  ),
  Options.optional
)
