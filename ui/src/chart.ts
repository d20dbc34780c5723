// The activity chart's geometry: bars for event counts per time slice, refusals stacked on top.

import type { ActivityBar } from "./bindings";

export interface Bar {
  x: number;
  width: number;
  /** Height of the non-refusal part. */
  ok: number;
  /** Height of the refusal part, drawn above `ok`. */
  refused: number;
  label: string;
}

/** The time axis: `count` slices of `bucketMs` from `fromMs`. */
export interface Axis {
  fromMs: number;
  bucketMs: number;
  count: number;
}

/** The axis covering `spanMs` up to `toMs`, in buckets of `bucketMs`. */
export function axisFor(toMs: number, spanMs: number, bucketMs: number): Axis {
  const bucket = Math.max(1, bucketMs);
  const end = Math.floor(toMs / bucket) + 1;
  const count = Math.max(1, Math.ceil(spanMs / bucket));
  return { fromMs: (end - count) * bucket, bucketMs: bucket, count };
}

/**
 * Lays out `bars` in a `width`×`height` box; the tallest bar fills the height. With an `axis`,
 * each bar sits at its time (quiet stretches stay visible as gaps; bars outside are dropped);
 * without one, the bars are packed side by side.
 */
export function layoutBars(bars: readonly ActivityBar[], width: number, height: number, axis?: Axis): Bar[] {
  const slots = axis ? axis.count : bars.length;
  const placed = bars
    .map((b, i) => ({ b, index: axis ? Math.floor((b.start_wall_ms - axis.fromMs) / axis.bucketMs) : i }))
    .filter((p) => p.index >= 0 && p.index < slots);
  if (placed.length === 0 || width <= 0 || height <= 0) return [];
  const max = Math.max(1, ...placed.map((p) => p.b.events));
  const slot = width / slots;
  const gap = slot > 4 ? 1 : 0;
  return placed.map(({ b, index }) => {
    const total = (b.events / max) * height;
    const refused = (Math.min(b.refusals, b.events) / max) * height;
    return {
      x: index * slot,
      width: Math.max(1, slot - gap),
      ok: total - refused,
      refused,
      label: `${new Date(b.start_wall_ms).toLocaleString()}: ${b.events} events, ${b.refusals} refused`,
    };
  });
}

/** A bucket size giving at most `maxBars` bars over `spanMs`, rounded to a readable unit. */
export function bucketFor(spanMs: number, maxBars = 60): number {
  const units = [1_000, 10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000];
  for (const u of units) if (spanMs / u <= maxBars) return u;
  return units[units.length - 1] ?? 604_800_000;
}
