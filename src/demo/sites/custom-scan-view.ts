import { decodeCustomScan } from "../kit/custom-scan.ts";
import { html, type Html } from "../kit/html.ts";

/** A Unix-seconds string with its UTC time beside it; an empty one as "(empty)". */
const time = (seconds: string) =>
  /^\d+$/.test(seconds) ? `${seconds} (${new Date(Number(seconds) * 1000).toISOString()})` : seconds === "" ? "(empty)" : seconds;

/**
 * The ID token's `custom_scan` claim: as the token carries it (so a newcomer, or a test, can decode it
 * by hand) and decoded as a definition list; or a line saying the ID token has none.
 */
export function customScanView(claim: unknown): Html {
  const scan = decodeCustomScan(claim);
  if (!scan) return html`<p>The ID token has no readable custom_scan claim.</p>`;
  return html`<p>As the ID token carries it: <code class="custom-scan-claim">${String(claim)}</code></p>
<dl><dt>st (scanned)</dt><dd>${time(scan.st)}</dd><dt>aud (auditor)</dt><dd>${scan.aud === "" ? "(empty)" : scan.aud}</dd>
<dt>lt (auditor asked)</dt><dd>${time(scan.lt)}</dd><dt>et (approved)</dt><dd>${time(scan.et)}</dd></dl>`;
}
