/**
 * Where a problem sits inside one config document, as a list of segments: map keys are strings,
 * sequence indexes numbers. The same list drives the readable path in messages
 * (`clients[0].redirect_uris[1]`) and the lookup of the YAML node for line and column.
 */
export type KeyPath = ReadonlyArray<string | number>;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `["clients", 0, "redirect_uris", 1]` → `clients[0].redirect_uris[1]`; the document itself is `""`. */
export function keyPath(segments: KeyPath): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** ajv's instance paths are JSON Pointers (RFC 6901); digits-only segments are sequence indexes here. */
export function keyPathFromPointer(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}
