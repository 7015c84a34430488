/**
 * A failure of a driver in its own words: `@effect/sql` and `@effect/platform` wrap the
 * driver's error (`PgClient: Failed to connect`, `Open`) and keep it as their `cause`; the
 * innermost message is the one that names what went wrong (`connect ECONNREFUSED …`,
 * `database "x" does not exist`, `listen EADDRINUSE …`). Drivers never put a password there.
 */
export const driverReason = (error: { readonly message: string; readonly cause?: unknown }): string => {
  const messages: Array<string> = error.message === "" ? [] : [error.message]
  let current: unknown = error.cause
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const message = "message" in current ? String(current.message) : ""
    if (message !== "" && !messages.includes(message)) messages.push(message)
    current = "cause" in current ? current.cause : undefined
  }
  // pg's AggregateError (IPv4 and IPv6 both refused) says nothing itself; its errors do.
  const last = messages.at(-1) ?? ""
  const inner = (error.cause as { readonly errors?: ReadonlyArray<unknown> } | undefined)?.errors
  const aggregated = last === "" && Array.isArray(inner) && inner[0] instanceof Error ? inner[0].message : undefined
  return (aggregated ?? (messages.length > 1 ? `${messages[0]}: ${last}` : last)).split("\n")[0] ?? ""
}
