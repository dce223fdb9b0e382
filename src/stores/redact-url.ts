/** A store URL as it may appear in messages and logs: the user name and password it may hold replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@]*)@/, "//***@");
}
