import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const issues = configIssues;

const yaml = (...lines: string[]) => `${lines.join("\n")}\n`;
const channel = (id: string, ...members: string[]) => [
  `  - id: ${id}`,
  `    name: ${id}`,
  "    icon: https://example.com/c.png",
  "    members:",
  ...members.map((m) => `      - ${m}`),
];

describe("channels.yaml", () => {
  it("is optional: without it the directory is embedded and empty", async () => {
    const config = await loadInstalledConfig(await tempConfigDir({ "channels.yaml": null }), {});
    expect(config.channels).toEqual({ directory: { kind: "embedded", timeout: "5s" }, channels: [] });
  });

  it("loads the demo's channels with the embedded directory", async () => {
    const config = await loadInstalledConfig(await tempConfigDir(), {});
    expect(config.channels.directory.kind).toBe("embedded");
    expect(config.channels.channels.map((c) => c.id)).toEqual(["north-store", "south-store", "online-shop"]);
  });

  it("rejects a duplicate channel id and a user listed twice in one channel", async () => {
    const lines = await issues({
      "channels.yaml": yaml(
        "channels:",
        ...channel("a", "{ sub: E10001, role: owner }", "{ sub: E10001, role: operator }"),
        ...channel("a", "{ sub: E10002, role: owner }"),
      ),
    });
    expect(lines).toEqual([
      'channels.yaml:7:16 channels[0].members[1].sub: "E10001" is already a member of this channel (members[0]): one role per user and channel',
      'channels.yaml:8:9 channels[1].id: duplicate channel id "a" (first used by channels[0])',
    ]);
  });

  it("rejects a member who is not a user and a role the spec does not have", async () => {
    const lines = await issues({
      "channels.yaml": yaml("channels:", ...channel("a", "{ sub: E99999, role: owner }", "{ sub: E10002, role: admin }")),
    });
    expect(lines).toEqual(['channels.yaml:7:30 channels[0].members[1].role: must be one of: owner, operator, temporary (got "admin")']);
    const unknown = await issues({ "channels.yaml": yaml("channels:", ...channel("a", "{ sub: E99999, role: owner }")) });
    expect(unknown).toEqual(['channels.yaml:6:16 channels[0].members[0].sub: is not the sub of a user in users.yaml (got "E99999")']);
  });

  it("requires url and client_id of an http directory, and no channels of its own", async () => {
    const lines = await issues({
      "channels.yaml": yaml("directory:", "  kind: http", "channels:", ...channel("a", "{ sub: E10001, role: owner }")),
    });
    expect(lines).toEqual([
      "channels.yaml:2:3 directory: an http directory needs url",
      "channels.yaml:2:3 directory: an http directory needs client_id",
      "channels.yaml:4:3 channels: lists channels, but directory.kind is http: the service's channels are used and these would be ignored",
    ]);
  });

  it("refuses a plain-http directory url off loopback and http settings on the embedded directory", async () => {
    const http = await issues({
      "channels.yaml": yaml("directory:", "  kind: http", "  url: http://channels.example.com", "  client_id: demo-channel-directory"),
    });
    expect(http).toEqual([
      'channels.yaml:3:8 directory.url: must be an https URL (plain http only on loopback) (got "http://channels.example.com")',
    ]);
    const embedded = await issues({ "channels.yaml": yaml("directory:", "  url: https://channels.example.com") });
    expect(embedded).toEqual(["channels.yaml:2:8 directory.url: is an http directory setting; directory.kind is embedded"]);
  });

  it("requires the http directory's client to exist with client_credentials and the channel.directory scope", async () => {
    const directory = (clientId: string) => ({
      "channels.yaml": yaml("directory:", "  kind: http", "  url: https://channels.example.com", `  client_id: ${clientId}`),
    });
    expect(await issues(directory("nobody"))).toEqual([
      'channels.yaml:4:14 directory.client_id: is not a client in clients.yaml (got "nobody")',
    ]);
    expect(await issues(directory("demo-web"))).toEqual([
      'channels.yaml:4:14 directory.client_id: names a client without the client_credentials grant (got "demo-web")',
    ]);
    expect(await issues(directory("demo-service"))).toEqual([
      'channels.yaml:4:14 directory.client_id: names a client not allowed the channel.directory scope (got "demo-service")',
    ]);
    const config = await loadInstalledConfig(await tempConfigDir(directory("demo-channel-directory")), {});
    expect(config.channels.directory).toEqual({
      kind: "http",
      url: "https://channels.example.com",
      client_id: "demo-channel-directory",
      timeout: "5s",
    });
  });
});
