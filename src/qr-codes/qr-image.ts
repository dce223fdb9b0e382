import type { ServerResponse } from "node:http";
import QRCode from "qrcode";

/**
 * Answers with a QR code of `text` as SVG (the login and enrollment pages load it with <img>, which
 * their CSP allows from 'self'). Not cacheable: every code is one-time. The SVG holds only paths.
 */
export async function writeQrSvg(res: ServerResponse, text: string): Promise<void> {
  const svg = await qrSvg(text);
  res.writeHead(200, { "Content-Type": "image/svg+xml", "Cache-Control": "no-store", "Content-Length": String(Buffer.byteLength(svg)) });
  res.end(svg);
}

/** The QR code of `text` as an SVG document (paths only). */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
}

/** The same as a data: URI, for a page on another origin to show without fetching anything from us. */
export async function qrSvgDataUri(text: string): Promise<string> {
  return `data:image/svg+xml;base64,${Buffer.from(await qrSvg(text)).toString("base64")}`;
}
