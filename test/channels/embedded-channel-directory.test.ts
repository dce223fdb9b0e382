import { describe, expect, it } from "vitest";
import { EmbeddedChannelDirectory } from "../../src/channels/embedded-channel-directory.ts";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { DEMO_CONFIG_DIR } from "../config/temp-config-dir.ts";

const ALICE = "E10001";
const BOB = "E10002";
const directory = new EmbeddedChannelDirectory((await loadInstalledConfig(DEMO_CONFIG_DIR, {})).channels.channels);
const icon = (id: string) => `https://example.com/channels/${id}.png`;

describe("embedded channel directory (the demo's channels.yaml)", () => {
  it("lists every channel of a user with the spec's roleId, in file order", async () => {
    expect(await directory.channelsOf(ALICE)).toEqual([
      { id: "north-store", name: "North Store", icon: icon("north-store"), roleId: 2 },
      { id: "south-store", name: "South Store", icon: icon("south-store"), roleId: 1 },
      { id: "online-shop", name: "Online Shop", icon: icon("online-shop"), roleId: 1 },
    ]);
    expect(await directory.channelsOf(BOB)).toEqual([
      { id: "north-store", name: "North Store", icon: icon("north-store"), roleId: 0 },
      { id: "south-store", name: "South Store", icon: icon("south-store"), roleId: 2 },
    ]);
  });

  it("lists no channels for a user without channel accounts", async () => {
    expect(await directory.channelsOf("E99999")).toEqual([]);
  });

  it("counts owners and operators as administrators", async () => {
    expect(await directory.administers(ALICE, "north-store")).toMatchObject({ id: "north-store", roleId: 2 });
    expect(await directory.administers(ALICE, "online-shop")).toMatchObject({ id: "online-shop", roleId: 1 });
  });

  it("does not count a temporary approved login as an administrator", async () => {
    expect(await directory.administers(BOB, "north-store")).toBeUndefined();
  });

  it("answers undefined for a channel the user has no account in or that does not exist", async () => {
    expect(await directory.administers(BOB, "online-shop")).toBeUndefined();
    expect(await directory.administers(ALICE, "no-such-channel")).toBeUndefined();
  });

  it("hands out copies, so a caller cannot change the directory", async () => {
    const [first] = await directory.channelsOf(ALICE);
    first!.roleId = 0;
    expect(await directory.administers(ALICE, "north-store")).toMatchObject({ roleId: 2 });
  });
});
