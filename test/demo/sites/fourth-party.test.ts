import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoLoginData } from "../../support/demo-login-data.ts";
import { send } from "../../support/test-provider.ts";
import { startDemoParties, type DemoParties } from "./demo-parties.ts";

let p: DemoParties;
beforeAll(async () => {
  p = await startDemoParties();
});
afterAll(() => p?.close());

const loginJsParams = async (query = "") => {
  const page = await send(`${p.sites.fourthPartyUrl}/${query}`);
  const src = [...page.text.matchAll(/<script src="([^"]+)">/g)].map((m) => m[1]!.replaceAll("&amp;", "&"))[1]!;
  return Object.fromEntries(new URL(src).searchParams);
};

describe("the fourth-party site's page", () => {
  it("embeds LoginJs with the channel's client on the phone side and its own client on the PC side, roleIdGt0 by default", async () => {
    expect(await loginJsParams()).toEqual({
      clientId: "demo-channel",
      MobileRedirectUrl: `${p.channel.publicUrl}/channel/select`,
      MobileState: "roleIdGt0",
      PCClientId: "demo-fourth-party",
      PCScope: "openid profile channel.login.scan",
      PCRedirectUrl: `${p.sites.fourthPartyUrl}/callback`,
    });
  });

  it("lets the newcomer pick roleIdGt1 or no rule, and refuses anything else", async () => {
    expect((await loginJsParams("?rule=roleIdGt1")).MobileState).toBe("roleIdGt1");
    expect(await loginJsParams("?rule=none")).not.toHaveProperty("MobileState");
    const bad = await send(`${p.sites.fourthPartyUrl}/?rule=%3Cb%3E`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("rule must be roleIdGt0, roleIdGt1 or none.");
  });
});

describe("the fourth-party callback (PCRedirectUrl)", () => {
  const callback = (sub: string, state: string, aud?: string) => {
    const code = p.provider.issueCode({
      sub,
      clientId: "demo-fourth-party",
      redirectUri: `${p.sites.fourthPartyUrl}/callback`,
      scope: "openid profile channel.login.scan",
      customScan: { st: "1700000000", aud: aud ?? "", lt: aud ? "1700000005" : "", et: "1700000009" },
    });
    return send(`${p.sites.fourthPartyUrl}/callback?${new URLSearchParams({ code, state, iss: p.provider.issuer })}`);
  };

  it("refuses a temporary account (roleId 0) whose custom_scan names no approver", async () => {
    const page = await callback("E10002", `${demoLoginData("E10002", "north-store")}|`);
    expect(page.status).toBe(403);
    expect(page.text).toContain(
      "Refused: North Store is a temporary account (roleId 0), and this sign-in names no approver (custom_scan aud is empty).",
    );
  });

  it("accepts a temporary account whose custom_scan names the approver, and shows the channel account", async () => {
    const approved = await callback("E10002", `${demoLoginData("E10002", "north-store")}|xy`, "E10001");
    expect(approved.status).toBe(200);
    expect(approved.text).toContain("Signed in with the channel account north-store:E10002.");
    expect(approved.text).toContain(
      "<dt>uid</dt><dd>north-store:E10002</dd><dt>name</dt><dd>North Store</dd><dt>icon</dt><dd>https://example.com/channels/north-store.png</dd><dt>roleId</dt><dd>0</dd>",
    );
    expect(approved.text).toContain("<dt>aud (auditor)</dt><dd>E10001</dd>");
  });

  it("accepts an operator without an approver: login_data is the state before the last |", async () => {
    const page = await callback("E10001", `${demoLoginData("E10001", "south-store")}|pc-state`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<dt>uid</dt><dd>south-store:E10001</dd>");
    expect(page.text).toContain("<dt>roleId</dt><dd>1</dd>");
  });

  it("shows the channel service's refusal for a channel the user has no account in", async () => {
    const page = await callback("E10002", `${demoLoginData("E10002", "online-shop")}|`);
    expect(page.status).toBe(403);
    expect(page.text).toContain("The channel service refused: no channel account of this user for that login_data");
  });

  it("signs nobody in with a state whose data is a bare channel id or was sealed for another user", async () => {
    const bare = await callback("E10001", "north-store|");
    expect(bare.status).toBe(403);
    expect(bare.text).toContain("The channel service refused: login_data is not the sealed data of a channel sign-in");
    // bob's own south-store data in a link that alice follows: alice operates south-store, yet it is not hers to use.
    const bobs = await callback("E10001", `${demoLoginData("E10002", "south-store")}|`);
    expect(bobs.status).toBe(403);
    expect(bobs.text).toContain("The channel service refused: login_data was not sealed for this user, or was altered");
    expect(bobs.text).not.toContain("Signed in");
  });
});
