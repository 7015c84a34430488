/**
 * The cluster's view of an account: one entity per account label, with one persisted message,
 * `Pass`, delivered when it is due (`DeliverAt`). Persisted messages live in PostgreSQL until
 * processed, so a runner that dies mid-pass loses only time: the message is delivered again to
 * the account's next owner.
 *
 * @since 0.1.0
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as DeliverAt from "@effect/cluster/DeliverAt"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as DateTime from "effect/DateTime"
import * as PrimaryKey from "effect/PrimaryKey"
import * as Schema from "effect/Schema"

/**
 * A pass of an account, due at `at` (epoch ms). Its time is its key: two requests of a pass at
 * the same instant are one pass.
 *
 * @since 0.1.0
 * @category models
 */
export class PassRequest extends Schema.Class<PassRequest>("@account-bills/fleet/PassRequest")({
  at: Schema.Number
}) {
  [PrimaryKey.symbol](): string {
    return String(this.at)
  }
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
 * One entity per account label.
 *
 * @since 0.1.0
 * @category entities
 */
export const AccountEntity = Entity.make(entityType, [
  Rpc.make("Pass", { payload: PassRequest }).annotate(ClusterSchema.Persisted, true)
]).annotate(ClusterSchema.ClientTracingEnabled, false)
