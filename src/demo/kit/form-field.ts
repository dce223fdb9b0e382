/**
 * A form or JSON body's member as a string; anything else (absent, a repeated field parsed as an array,
 * a JSON number or object) is undefined, so a handler never works on a value of a type it did not expect.
 */
export function formField(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}
