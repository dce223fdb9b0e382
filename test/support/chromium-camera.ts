/**
 * Chromium with a fake camera: Chromium's own test pattern as the video device, and camera
 * permission granted without a prompt — for the face method's capture page. Same binary and base
 * flags as chromium.ts.
 */
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_PATH } from "./chromium.ts";

export function launchChromiumWithCamera(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ["--no-sandbox", "--disable-background-networking", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
  });
}
