/**
 * Input validation shared by the operations and the streams.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InvalidParams } from "../Errors.js"
import type { OperationName } from "../Operation.js"
import { firstIssue } from "./parseIssue.js"

/**
 * Decodes `params` with `schema`; a violation names the field and the rule, and nothing is sent.
 */
export const validate = <A, I>(
  operation: OperationName,
  schema: Schema.Schema<A, I>,
  params: I
): Effect.Effect<A, InvalidParams> =>
  Effect.mapError(Schema.decode(schema, { errors: "first" })(params), (error) => {
    const issue = firstIssue(error)
    return new InvalidParams({ operation, field: issue.path, rule: issue.message })
  })
