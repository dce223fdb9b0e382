/**
 * An e-mail address to send codes to: one `@`, no spaces, quotes, angle brackets or control
 * characters (nothing that could reach a mail header as anything but an address), a dotted domain,
 * at most 254 characters. The domain is lower-cased; the local part is kept as typed (RFC 5321 says
 * it may be case-sensitive).
 */
export function normaliseEmailAddress(typed: string): string | undefined {
  const trimmed = typed.trim();
  if (trimmed.length > 254 || !/^[^\s@"<>()[\]\\,;:\x00-\x1f\x7f]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(trimmed)) return undefined;
  const at = trimmed.lastIndexOf("@");
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}
