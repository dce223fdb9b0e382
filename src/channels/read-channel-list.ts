import type { Channel, ChannelRoleId } from "./channel.ts";

const CHANNEL_ID = /^[A-Za-z0-9._-]{1,64}$/;
const ROLE_IDS: readonly number[] = [0, 1, 2];

/**
 * The channels of a directory answer `{ channels: [{ id, name, icon, roleId }] }`, or undefined when the
 * answer is anything else. The service is another system: what it says becomes ID-token claims, so a
 * malformed entry rejects the whole answer rather than slipping through half-checked.
 */
export function readChannelList(answer: unknown): Channel[] | undefined {
  const list = (answer as { channels?: unknown } | null)?.channels;
  if (!Array.isArray(list)) return undefined;
  const channels: Channel[] = [];
  for (const item of list as unknown[]) {
    const channel = readChannel(item);
    if (!channel) return undefined;
    channels.push(channel);
  }
  return channels;
}

function readChannel(item: unknown): Channel | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const { id, name, icon, roleId } = item as Record<string, unknown>;
  if (typeof id !== "string" || !CHANNEL_ID.test(id)) return undefined;
  if (typeof name !== "string" || name.length === 0 || name.length > 200) return undefined;
  if (typeof icon !== "string" || !isWebUrl(icon)) return undefined;
  if (typeof roleId !== "number" || !ROLE_IDS.includes(roleId)) return undefined;
  return { id, name, icon, roleId: roleId as ChannelRoleId };
}

function isWebUrl(value: string): boolean {
  if (value.length > 2000) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
