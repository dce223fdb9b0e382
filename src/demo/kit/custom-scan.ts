/** The decoded `custom_scan` claim (contract §7): Unix-seconds strings, aud and lt empty without an auditor step. */
export interface CustomScan {
  st: string;
  aud: string;
  lt: string;
  et: string;
}

/** Decodes the claim (standard base64 of JSON); undefined when it is absent or not that shape. */
export function decodeCustomScan(claim: unknown): CustomScan | undefined {
  if (typeof claim !== "string") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(claim, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
  const fields = ["st", "aud", "lt", "et"] as const;
  if (typeof value !== "object" || value === null || !fields.every((f) => typeof (value as Record<string, unknown>)[f] === "string"))
    return undefined;
  const scan = value as Record<(typeof fields)[number], string>;
  return { st: scan.st, aud: scan.aud, lt: scan.lt, et: scan.et };
}
