import type { ClientConfig } from "../config/types.generated.ts";

/** clients.yaml `birthdate_format`: `spec` yyyy/MM/dd (SPEC "UserInfo claims"), `oidc` YYYY-MM-DD (OIDC Core §5.1). */
export type BirthdateFormat = NonNullable<ClientConfig["birthdate_format"]>;

const FULL_DATE = /^(\d{4})[-/](\d{2})[-/](\d{2})$/;

/**
 * `birthdate` as the client asked for it. Directories keep it in the spec's format; an eID upstream may
 * give OIDC's: a full date in either is rewritten, anything else (OIDC's year-only `1990`) is left as it is.
 */
export function formatBirthdate(value: unknown, format: BirthdateFormat): unknown {
  if (typeof value !== "string") return value;
  const match = FULL_DATE.exec(value);
  if (match === null) return value;
  return [match[1], match[2], match[3]].join(format === "oidc" ? "-" : "/");
}

/** `claims` with its birthdate, if any, in the client's format: the same object when nothing changes (a hot path). */
export function withBirthdateFormat(claims: Record<string, unknown>, format: BirthdateFormat): Record<string, unknown> {
  if (claims.birthdate === undefined) return claims;
  const birthdate = formatBirthdate(claims.birthdate, format);
  return birthdate === claims.birthdate ? claims : { ...claims, birthdate };
}
