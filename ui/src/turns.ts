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

// --- folding a request to its newest row -------------------------------------------------------
//
// A request's group can be folded to its first (newest) row. The list is virtualised over ledger
// positions, so folding is an index map: the rows shown are the ledger's rows minus the hidden
// ones, and only loaded pages can hide rows (a group's tail on a page not fetched yet hides once
// it is). The hidden positions stay few — a handful of loaded pages — so the map walks them.

/** The rows a timeline page holds, by page number. */
export type Pages = ReadonlyMap<number, ReadonlyArray<{ corr: string }>>;

/** The request id of the row at ledger position `i`, undefined where no row is loaded. */
function corrAt(pages: Pages, pageSize: number, i: number): string | undefined {
  return i < 0 ? undefined : pages.get(Math.floor(i / pageSize))?.[i % pageSize]?.corr;
}

/** Ledger positions (ascending) hidden because their request is folded: every row of a folded
 * group except its first, i.e. a row whose neighbour above is loaded and of the same request. */
export function hiddenRows(pages: Pages, pageSize: number, folded: ReadonlySet<string>): number[] {
  if (folded.size === 0) return [];
  const out: number[] = [];
  for (const p of [...pages.keys()].sort((a, b) => a - b)) {
    const rows = pages.get(p) ?? [];
    rows.forEach((row, j) => {
      const i = p * pageSize + j;
      if (row.corr !== "" && folded.has(row.corr) && corrAt(pages, pageSize, i - 1) === row.corr) out.push(i);
    });
  }
  return out;
}

/** The ledger position of the `shown`-th row on screen, skipping the hidden ones (ascending). */
export function ledgerIndex(shown: number, hidden: readonly number[]): number {
  let i = shown;
  for (const h of hidden) {
    if (h > i) break;
    i++;
  }
  return i;
}

/** How many loaded rows from `i` down belong to the same request: the size a folded head shows. */
export function groupSize(pages: Pages, pageSize: number, i: number): number {
  const corr = corrAt(pages, pageSize, i);
  if (corr === undefined || corr === "") return 1;
  let n = 1;
  while (corrAt(pages, pageSize, i + n) === corr) n++;
  return n;
}
