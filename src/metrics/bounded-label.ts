/**
 * A label whose values come from outside the code (a flow id, a grant name): it admits the first `max`
 * distinct values and reports every later one as "other". Each label value is a time series kept forever,
 * so nothing a client or a config can vary without bound may become one.
 */
export class BoundedLabel {
  private readonly max: number;
  readonly #seen = new Set<string>();

  constructor(max: number) {
    this.max = max;
  }

  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.max) return "other";
    this.#seen.add(value);
    return value;
  }
}
