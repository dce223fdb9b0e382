import type { Spread } from "./results.ts";

/** Shared by the bench report's sections (report.ts): how numbers and tables are written, and when a window was noisy. */

/** Above this share of the server core taken by other processes (or the hypervisor), a window is flagged as noisy. */
export const NOISY_WAIT = 0.1;

export function fmt(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function pct(share: number): string {
  return `${fmt(share * 100, 0)}%`;
}

/** A spread's lowest–highest. */
export function range(s: Spread): string {
  return `${fmt(s.min, 2)}–${fmt(s.max, 2)}`;
}

/** First column left-aligned, the rest right-aligned. */
export function table(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}
