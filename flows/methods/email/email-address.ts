/**
 * An e-mail address to send codes to: one `@`, no spaces, quotes, angle brackets or control
 * characters (nothing that could reach a mail header as anything but an address), a dotted domain,
 * at most 254 characters. The domain is lower-cased; the local part is kept as typed (RFC 5321 says
 * it may be case-sensitive).
 */
export function normaliseEmailAddress(typed: string): string | undefined {
  const trimmed = typed.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses in the local part
  if (trimmed.length > 254 || !/^[^\s@"<>()[\]\\,;:\x00-\x1f\x7f]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(trimmed)) return undefined;
  const at = trimmed.lastIndexOf("@");
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/**
 * The address as the account page shows it: the first character of the local part and the domain
 * (`a•••@example.com`) — enough for the user to recognise it, little for someone looking over their
 * shoulder.
 */
export function maskEmailAddress(address: string): string {
  const at = address.lastIndexOf("@");
  return `${[...address.slice(0, at)][0] ?? ""}•••${address.slice(at)}`;
}
