// The timeline's virtualised list: which rows to have in the DOM and which pages to fetch.
// Rows have a fixed height, so the window is arithmetic — no measuring, no layout thrash — and
// a ledger of a million events scrolls like one of a hundred.

export interface RowWindow {
  /** First row index to render (inclusive). */
  start: number;
  /** Last row index to render (exclusive). */
  end: number;
}

/** The rows visible in a viewport of `height` px scrolled to `scrollTop`, plus `overscan` rows each side. */
export function rowWindow(scrollTop: number, height: number, rowHeight: number, total: number, overscan = 10): RowWindow {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, height) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total - 1, first) - overscan);
  const end = Math.min(total, first + visible + overscan);
  return { start, end: Math.max(start, end) };
}

/** The page numbers (of `pageSize` rows) a window needs. */
export function pagesFor(w: RowWindow, pageSize: number): number[] {
  if (w.end <= w.start || pageSize <= 0) return [];
  const first = Math.floor(w.start / pageSize);
  const last = Math.floor((w.end - 1) / pageSize);
  const out: number[] = [];
  for (let p = first; p <= last; p++) out.push(p);
  return out;
}
