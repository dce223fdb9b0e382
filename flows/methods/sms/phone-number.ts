/**
 * A mobile number in E.164 form (`+` country code and number, at most 15 digits), from what a person
 * types: spaces, dots, dashes and brackets are dropped, a leading 00 becomes +. Numbers without a
 * country code are refused rather than guessed.
 */
export function normalisePhoneNumber(typed: string): string | undefined {
  if (typed.length > 40) return undefined;
  const compact = typed
    .trim()
    .replace(/[\s().-]/g, "")
    .replace(/^00/, "+");
  return /^\+[1-9][0-9]{6,14}$/.test(compact) ? compact : undefined;
}

/**
 * The last digits of an E.164 number, which the account page shows ("ending in 0123"): four of a
 * number of ten digits or more, two of a shorter one, so that most of it stays hidden.
 */
export function lastDigitsOf(number: string): string {
  const digits = number.replace(/\D/g, "");
  return digits.slice(digits.length >= 10 ? -4 : -2);
}
