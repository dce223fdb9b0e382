/** Why a JSON body was refused; the message is safe to send back to the client. */
export class JsonBodyError extends Error {
  static readonly code: string = "ERR_JSON_BODY";
  readonly code: string = "ERR_JSON_BODY";
  override readonly name = "JsonBodyError";
}

/** A member name quoted in an error: enough to find it, never a whole body echoed back. */
const MAX_QUOTED_NAME = 64;

/**
 * JSON.parse that refuses an object with a member twice, at any depth (DESIGN's baseline refuses
 * duplicate parameters). JSON.parse keeps the last one, while a proxy, an auditor or another parser may
 * read the first: one body, two meanings. A reviver cannot tell (it sees the object after the fact), so
 * the text JSON.parse accepted is scanned once more for the names of each object. Members are compared
 * after unescaping, so `"a"` and `"\u0061"` are the same member.
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JsonBodyError("the body is not valid JSON");
  }
  const twice = firstRepeatedMember(text);
  if (twice !== undefined) throw new JsonBodyError(`the body has the member '${twice.slice(0, MAX_QUOTED_NAME)}' twice in one object`);
  return value;
}

/**
 * The first member name repeated within one object of `text`, which must be valid JSON. In valid JSON a
 * string is a member name exactly when it follows an object's `{` or a `,` inside an object; everything
 * else (values, array items) is skipped.
 */
function firstRepeatedMember(text: string): string | undefined {
  // One entry per open object or array: the names seen so far, or null for an array.
  const open: Array<Set<string> | null> = [];
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const end = closingQuote(text, i);
      const names = open.at(-1);
      if (nameNext && names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
        nameNext = false;
      }
      i = end;
    } else if (char === "{") {
      open.push(new Set());
      nameNext = true;
    } else if (char === "[") {
      open.push(null);
    } else if (char === "}" || char === "]") {
      open.pop();
    } else if (char === ",") {
      nameNext = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}

/** The index of the `"` that closes the string opening at `start` (escapes skipped). */
function closingQuote(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i;
}
