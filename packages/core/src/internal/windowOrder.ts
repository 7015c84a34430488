/**
 * The one rule every time window obeys, whatever its fields are called (`startTime`/`endTime`,
 * `after`/`before`, `from`/`to`): its start is not after its end. A `Schema.filter` result, so
 * the failure is reported on the start field with the rule in words.
 */
export const startNotAfterEnd = (
  startKey: string,
  endKey: string,
  start: number | undefined,
  end: number | undefined
): { readonly path: ReadonlyArray<string>; readonly message: string } | undefined =>
  start === undefined || end === undefined || start <= end
    ? undefined
    : { path: [startKey], message: `${startKey} must not be after ${endKey}` }
