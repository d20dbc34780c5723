// Requests in the timeline. Every event a request caused carries its id (`corr`; see the
// runtime's `turn_id.rs`): the proposal, the kernel's decision, the receipt, a later approval.
// The list stays one row per event — it is virtualised over a million of them, fetched a page at
// a time, so it cannot know how long a request is before it has read it — and the rows of one
// request that sit together are drawn as one group: a bracket down their left edge and the id's
// beginning on the group's first (newest) row. Choosing that id filters the timeline to the whole
// request, including its steps that did not sit together (an approval given minutes later).

/** Where a row sits in its run of neighbouring rows of the same request. */
export type TurnPlace = "alone" | "first" | "middle" | "last";

/** `above` and `below` are the neighbouring rows' ids (newest first), undefined where there is
 * no row or it is not loaded yet. An empty id (a damaged or pre-id ledger row) groups with
 * nothing. */
export function turnPlace(above: string | undefined, corr: string, below: string | undefined): TurnPlace {
  const up = corr !== "" && above === corr;
  const down = corr !== "" && below === corr;
  if (up && down) return "middle";
  if (up) return "last";
  if (down) return "first";
  return "alone";
}

/** How the HUD and the timeline show an id: its first eight characters, enough to tell requests
 * apart and to type into the filter. */
export function shortTurn(corr: string): string {
  return corr.slice(0, 8);
}
