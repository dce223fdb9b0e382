/** The data-URL prefix of the frame the capture page posts. */
const JPEG_DATA_URL = "data:image/jpeg;base64,";

/** The largest frame accepted, decoded (the interaction form's body limit keeps real ones far below). */
export const MAX_FRAME_BYTES = 256 * 1024;

/**
 * The JPEG in a posted `image` field: a base64 data URL whose bytes start with a JPEG SOI marker
 * and end with EOI. Undefined for anything else, so the face service only ever receives a JPEG.
 */
export function decodeFrame(image: unknown): Buffer | undefined {
  if (typeof image !== "string" || !image.startsWith(JPEG_DATA_URL)) return undefined;
  const base64 = image.slice(JPEG_DATA_URL.length);
  if (base64.length === 0 || base64.length > (MAX_FRAME_BYTES * 4) / 3 + 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  const bytes = Buffer.from(base64, "base64");
  const isJpeg =
    bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff && bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9;
  return isJpeg ? bytes : undefined;
}
