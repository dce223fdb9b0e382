import { formField } from "../kit/form-field.ts";
import { ChannelServiceError } from "./channel-service-error.ts";

/** A required text field of an open-interface call: a non-empty string of at most `max` characters (400 otherwise). */
export function requiredText(body: unknown, name: string, max: number): string {
  const value = formField(body, name);
  if (value === undefined || value.trim() === "" || value.length > max)
    throw new ChannelServiceError(400, `${name} is required (at most ${max} characters)`);
  return value;
}

/** An optional link: an absolute http(s) URL, so a message can never carry a javascript: link. */
export function optionalLink(body: unknown, name: string): string | undefined {
  const value = formField(body, name);
  if (value === undefined || value === "") return undefined;
  let url: URL | undefined;
  try {
    url = value.length <= 2000 ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new ChannelServiceError(400, `${name} must be an http(s) URL`);
  return url.href;
}
