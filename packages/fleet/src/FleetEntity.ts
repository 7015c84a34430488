/**
 * The cluster's view of an account: one entity per account, with one persisted message,
 * `Pass`, delivered when it is due (`DeliverAt`), which runs the account's passes in a loop until
 * the account is removed. Persisted messages live in PostgreSQL until processed, so a runner that
 * dies mid-pass loses only time: the message is delivered again to the account's next owner.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import { BillKind } from "@account-bills/core"
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as DeliverAt from "@effect/cluster/DeliverAt"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as DateTime from "effect/DateTime"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Schema from "effect/Schema"

/**
 * A pass of the account `label`, due at `at` (epoch ms). Its time is its key: two requests of a
 * pass at the same instant are one pass. Messages written before labels travelled with them have
 * none: their entity id is the label.
 *
 * @since 0.1.0
 * @category models
 */
export class PassRequest extends Schema.Class<PassRequest>("@account-bills/fleet/PassRequest")({
  at: Schema.Number,
  label: Schema.optional(Schema.String),
  /**
   * The kinds this pass walks; all three when absent. A pass that goes on with walks stopped at the
   * page bound walks only those: a kind already current would spend a request to find nothing.
   */
  kinds: Schema.optional(Schema.Array(BillKind)),
  /**
   * When a pass that goes on with some kinds is due to walk all three again (epoch ms): the
   * other kinds keep their interval while one kind's long walk goes on. Absent on a pass of all
   * three, and on messages written before it travelled with them.
   *
   * @since 0.2.0
   */
  allAt: Schema.optional(Schema.Number)
}) {
  /**
   * The pass's time, its key: two requests of a pass at the same instant are one.
   *
   * @since 0.1.0
   */
  [PrimaryKey.symbol](): string {
    return String(this.at)
  }
  /**
   * When the cluster delivers the pass: at `at`.
   *
   * @since 0.1.0
   */
  [DeliverAt.symbol](): DateTime.DateTime {
    return DateTime.unsafeMake(this.at)
  }
}

/**
 * The entity type of accounts, as the cluster's tables name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const entityType = "BillsAccount"

/**
 * The entity id of the account `label`: a digest of the label, so that the id has the same
 * length whatever the label (the cluster keeps ids in `VARCHAR(255)`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const entityIdOf = (label: string): string =>
  `a${Crypto.createHash("sha256").update(label, "utf8").digest("hex").slice(0, 40)}`

/**
 * One entity per account, its id {@link entityIdOf} the label.
 *
 * @since 0.1.0
 * @category entities
 */
export const AccountEntity = Entity.make(entityType, [
  Rpc.make("Pass", { payload: PassRequest }).annotate(ClusterSchema.Persisted, true)
]).annotate(ClusterSchema.ClientTracingEnabled, false)
