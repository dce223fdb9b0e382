import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CustomDataSeal } from "../../../src/demo/kit/custom-data-seal.ts";
import type { RunningChannelService } from "../../../src/demo/channel-service/start-channel-service.ts";
import { clientCredentialsToken } from "../../http/helpers.ts";
import { demoLoginData, demoLoginDataSeal } from "../../support/demo-login-data.ts";
import { postForm, send, type TestProvider } from "../../support/test-provider.ts";
import { startChannelProvider, startServiceFor, userToken } from "./channel-service-support.ts";

const SCAN = "openid channel.login.scan";
const ALICE = "E10001";
const BOB = "E10002";
let p: TestProvider;
let other: TestProvider;
let service: RunningChannelService;
let aliceToken: string;
/** The service's clock for its login_data seals: the machine's, unless a test freezes it. */
let frozenAt: number | undefined;

beforeAll(async () => {
  [p, other] = await Promise.all([startChannelProvider(), startChannelProvider()]);
  service = await startServiceFor(p, () => frozenAt ?? Date.now());
  aliceToken = await userToken(p, "alice", SCAN);
});

afterAll(async () => {
  await service?.close();
  await Promise.all([p?.close(), other?.close()]);
});

const channelinfo = (token: string | undefined, form: Record<string, string>) =>
  postForm(`${service.url}/mp_login/channelinfo`, form, token === undefined ? {} : { authorization: `Bearer ${token}` });

describe("POST /mp_login/channelinfo", () => {
  it("answers the channel account that login_data names for the token's user, in the spec's shape", async () => {
    const res = await channelinfo(aliceToken, { login_data: demoLoginData(ALICE, "north-store"), lang: "en" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: { uid: "north-store:E10001", name: "North Store", icon: "https://example.com/channels/north-store.png", roleId: 2 },
      code: 200,
      msg: "OK",
    });
  });

  it("answers roleId 0 for a temporary approved login and 1 for an operator", async () => {
    const bob = await channelinfo(await userToken(p, "bob", SCAN), { login_data: demoLoginData(BOB, "north-store"), lang: "cn" });
    expect(bob.json).toMatchObject({ data: { uid: "north-store:E10002", roleId: 0 }, code: 200 });
    const alice = await channelinfo(aliceToken, { login_data: demoLoginData(ALICE, "south-store"), lang: "jp" });
    expect(alice.json).toMatchObject({ data: { uid: "south-store:E10001", roleId: 1 }, code: 200 });
  });

  it("refuses a request without a Bearer token with 401", async () => {
    const res = await channelinfo(undefined, { login_data: demoLoginData(ALICE, "north-store"), lang: "en" });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: 401, msg: "a Bearer access token is required" });
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="channel-service"');
  });

  it("refuses a user token of our provider without the service's scopes: it is not addressed to the service (401)", async () => {
    const res = await channelinfo(await userToken(p, "alice", "openid profile"), {
      login_data: demoLoginData(ALICE, "north-store"),
      lang: "en",
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: 401, msg: "a token claim is not acceptable" });
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="channel-service", error="invalid_token"');
  });

  it("refuses a token of another provider, though it carries the scope, with 401 invalid_token", async () => {
    const res = await channelinfo(await userToken(other, "alice", SCAN), { login_data: demoLoginData(ALICE, "north-store"), lang: "en" });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: 401, msg: "the token was not signed by this issuer" });
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="channel-service", error="invalid_token"');
  });

  it("refuses a token that names our issuer but is signed with another key", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const kid = (await send(`${p.issuer}/.well-known/openid-configuration/jwks`)).json!.keys as Array<{ kid: string }>;
    const forged = await new SignJWT({ scope: "channel.login.scan", client_id: "channel-portal" })
      .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: kid[0]!.kid })
      .setIssuer(p.issuer)
      .setAudience("channel-service")
      .setSubject("E10001")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
    const res = await channelinfo(forged, { login_data: demoLoginData(ALICE, "north-store"), lang: "en" });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: 401, msg: "the token signature is invalid" });
  });

  it("refuses a token for the service without the channel login scan scope with 403 insufficient_scope", async () => {
    const token = await clientCredentialsToken(
      p,
      { id: "demo-channel-directory", secret: "demo-channel-directory-secret" },
      "channel.directory",
    );
    const res = await channelinfo(token, { login_data: demoLoginData(ALICE, "north-store"), lang: "en" });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ code: 403, msg: "the access token lacks the channel.login.scan scope" });
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer realm="channel-service", error="insufficient_scope", scope="channel.login.scan"',
    );
  });

  it("answers 400 without login_data and for a language the spec does not list", async () => {
    expect((await channelinfo(aliceToken, { lang: "en" })).json).toEqual({ code: 400, msg: "login_data is required" });
    const res = await channelinfo(aliceToken, { login_data: demoLoginData(ALICE, "north-store"), lang: "de" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 400, msg: "lang must be one of cn, tw, en, jp" });
  });

  it("answers 404 alike for a channel the user has no account in and for an unknown channel, though sealed for the user", async () => {
    const bob = await userToken(p, "bob", SCAN);
    const notMember = await channelinfo(bob, { login_data: demoLoginData(BOB, "online-shop"), lang: "en" });
    const unknown = await channelinfo(bob, { login_data: demoLoginData(BOB, "no-such-channel"), lang: "en" });
    expect(notMember.status).toBe(404);
    expect(unknown.json).toEqual(notMember.json);
    expect(notMember.json).toEqual({ code: 404, msg: "no channel account of this user for that login_data" });
  });
});

describe("channelinfo's login_data: only what the selector page sealed for the token's user, within 10 minutes", () => {
  afterEach(() => {
    frozenAt = undefined;
  });

  /** The text inside a login_data, and a login_data made of a text. */
  const unwrap = (loginData: string) => Buffer.from(loginData, "base64url").toString("utf8");
  const wrap = (text: string) => Buffer.from(text, "utf8").toString("base64url");
  const MALFORMED = { code: 400, msg: "login_data is not the sealed data of a channel sign-in" };
  const NOT_YOURS = { code: 403, msg: "login_data was not sealed for this user, or was altered" };

  it("refuses a bare channel id, though the user administers that channel, and anything else not in the seal's layout, with 400", async () => {
    for (const loginData of [
      "south-store",
      "not base64url!",
      wrap("1700000000.north-store"),
      wrap(`1700000000.north-store.${"a".repeat(32)}`),
    ]) {
      const res = await channelinfo(aliceToken, { login_data: loginData, lang: "en" });
      expect(res.status, loginData).toBe(400);
      expect(res.json).toEqual(MALFORMED);
    }
  });

  it("refuses a seal whose channel was changed to another of the user's channels, or whose hash was changed, with 403", async () => {
    const chosen = unwrap(demoLoginData(ALICE, "online-shop"));
    const otherChannel = await channelinfo(aliceToken, { login_data: wrap(chosen.replace(".online-shop.", ".north-store.")), lang: "en" });
    expect(otherChannel.status).toBe(403);
    expect(otherChannel.json).toEqual(NOT_YOURS);
    const otherHash = await channelinfo(aliceToken, {
      login_data: wrap(chosen.slice(0, -1) + (chosen.endsWith("0") ? "1" : "0")),
      lang: "en",
    });
    expect(otherHash.json).toEqual(NOT_YOURS);
    // The untouched seal names the channel that was chosen.
    expect((await channelinfo(aliceToken, { login_data: wrap(chosen), lang: "en" })).json).toMatchObject({
      data: { uid: `online-shop:${ALICE}` },
      code: 200,
    });
  });

  it("refuses a seal made for another user (bob's south-store, where alice is an operator) with 403", async () => {
    const res = await channelinfo(aliceToken, { login_data: demoLoginData(BOB, "south-store"), lang: "en" });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(NOT_YOURS);
  });

  it("refuses a seal made with another secret with 403", async () => {
    const res = await channelinfo(aliceToken, {
      login_data: new CustomDataSeal("another-secret-of-more-than-32-characters").seal("north-store", ALICE),
      lang: "en",
    });
    expect(res.status).toBe(403);
    expect(res.json).toEqual(NOT_YOURS);
  });

  it("accepts a seal until 10 minutes after it was made and refuses it from then on, and one made more than a minute ahead, with 403", async () => {
    const madeAt = 1_800_000_000_000;
    const loginData = demoLoginDataSeal(() => madeAt).seal("north-store", ALICE);
    frozenAt = madeAt + 600_000;
    expect((await channelinfo(aliceToken, { login_data: loginData, lang: "en" })).json).toMatchObject({
      data: { uid: `north-store:${ALICE}` },
      code: 200,
    });
    frozenAt = madeAt + 601_000;
    const expired = await channelinfo(aliceToken, { login_data: loginData, lang: "en" });
    expect(expired.status).toBe(403);
    expect(expired.json).toEqual({ code: 403, msg: "login_data has expired: it is accepted for 10 minutes after the channel was chosen" });
    frozenAt = madeAt - 61_000;
    expect((await channelinfo(aliceToken, { login_data: loginData, lang: "en" })).status).toBe(403);
    frozenAt = madeAt - 60_000;
    expect((await channelinfo(aliceToken, { login_data: loginData, lang: "en" })).status).toBe(200);
  });
});

describe("GET /directory/users/{sub}/channels", () => {
  it("lists a user's channels for the provider's directory token", async () => {
    const token = await clientCredentialsToken(
      p,
      { id: "demo-channel-directory", secret: "demo-channel-directory-secret" },
      "channel.directory",
    );
    const res = await send(`${service.url}/directory/users/E10002/channels`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      channels: [
        { id: "north-store", name: "North Store", icon: "https://example.com/channels/north-store.png", roleId: 0 },
        { id: "south-store", name: "South Store", icon: "https://example.com/channels/south-store.png", roleId: 2 },
      ],
    });
  });

  it("refuses a user's channel login token: listing channels needs channel.directory", async () => {
    const res = await send(`${service.url}/directory/users/E10002/channels`, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ code: 403, msg: "the access token lacks the channel.directory scope" });
  });
});
