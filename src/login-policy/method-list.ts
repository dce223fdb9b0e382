/**
 * What `fa` and acr_values `2fa:<methods>` share (DESIGN: method ids separated by `,` or `/`, in the
 * order offered), and how a bit of a bad value is quoted in an error description.
 */

/** The method ids of a list as written, in order (empty strings where a name is missing). */
export function splitMethodList(text: string): string[] {
  return text.split(/[,/]/);
}

/** The first id the list names twice, if any. */
export function firstRepeated(methods: readonly string[]): string | undefined {
  return methods.find((m, i) => methods.indexOf(m) !== i);
}

/** A bit of a bad value for an error description: short, printable ASCII (RFC 6749 §5.2). */
export function shown(value: string): string {
  return value.slice(0, 32).replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "?");
}
