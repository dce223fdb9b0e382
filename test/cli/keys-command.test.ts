/**
 * `portcullis keys` (the real CLI, in its own process) against two provider nodes on one Redis: tokens
 * signed before a rotation still verify against the deployment's JWKS, each node signs with the new key
 * from its next sync of the ring, and the only signing key cannot be retired.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyConfig, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { portcullis } from "../support/run-cli.ts";
import { serviceUrl } from "../support/require-service.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { redeemCode, VERIFIER } from "../support/code-grant.ts";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import { paths } from "../../src/http-kit/paths.ts";
import type { KeyRing } from "../../src/tokens/key-rotation.ts";
import { SIGNING_ALGS } from "../../src/crypto/signing-alg.ts";

const redis = serviceUrl("redis");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A client_credentials access token from `node`. */
async function serviceToken(node: TestProvider): Promise<string> {
  const answer = await postForm(`${node.url}/connect/token`, {
    grant_type: "client_credentials",
    client_id: "demo-service",
    client_secret: "demo-service-secret",
    scope: "acme",
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json!.access_token as string;
}

/** An ID token from a password login at demo-web through `node` (PKCE S256), redeemed over HTTP. */
async function idToken(node: TestProvider): Promise<string> {
  const answer = await loginWithPassword(
    new RawBrowser(),
    authorizeUrl(node.url, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: "S256" }),
  );
  const redeemed = await redeemCode(node, responseParams(answer).get("code")!);
  expect(redeemed.status, redeemed.text).toBe(200);
  return redeemed.json!.id_token as string;
}

const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid!;
/** What a relying party does: verify against the deployment's published JWKS, fetched now (no cache from an earlier check). */
const verify = (node: TestProvider, jwt: string, currentDate?: Date) =>
  jwtVerify(jwt, createRemoteJWKSet(new URL(`${node.url}${paths.jwks}`)), { issuer: node.issuer, ...(currentDate && { currentDate }) });
const publishedKids = async (node: TestProvider) =>
  ((await (await fetch(`${node.url}${paths.jwks}`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

// Each CLI run is a process start with the TypeScript loader: seconds on a busy machine.
describe.skipIf(!redis)("portcullis keys on Redis, with two nodes", { timeout: 180_000 }, () => {
  let a: TestProvider;
  let b: TestProvider;
  let offset = 0;
  const storeUrl = `${redis}?prefix=keys${randomBytes(4).toString("hex")}`;
  const edits = { "provider.yaml": { "keys.announce_for": "1h" } };
  beforeAll(async () => {
    a = await startTestProvider({ storeUrl, edits, clock: () => Date.now() + offset });
    b = await startTestProvider({ storeUrl, edits, issuer: a.issuer });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });
  const keys = (...args: string[]) => portcullis(["keys", ...args, "--config", a.configDir]);

  it("rotates: old tokens keep verifying, each node signs with the new key from its next sync", async () => {
    const first = a.provider.keys.keys.signing.kid;
    expect(b.provider.keys.keys.signing.kid).toBe(first);

    const listed = await keys("list");
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^KID\s+ALG\s+STATUS\s+CREATED\s+ACTIVATED\s+RETIRED\s+PUBLISHED$/m);
    expect(listed.stdout).toMatch(new RegExp(`^${first}\\s+RS256\\s+current\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+\\S+Z\\s+-\\s+yes$`, "m"));
    expect(listed.stdout).not.toMatch(/PRIVATE KEY|v1\./);

    const refused = await keys("retire", first);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^portcullis keys: ${first} is the only key that can sign .*keys rotate first`));

    const oldAccess = await serviceToken(a);
    const oldId = await idToken(b);
    expect([kidOf(oldAccess), kidOf(oldId)]).toEqual([first, first]);

    // No next key yet: rotate only announces one, published ahead of use.
    const announced = await keys("rotate");
    expect(announced.stderr).toBe("");
    expect(announced.code).toBe(0);
    const next = /Generated the next key (\S+);/.exec(announced.stdout)?.[1];
    expect(next, announced.stdout).toBeDefined();
    expect(announced.stdout).toContain("next sync");
    expect(announced.stdout).toContain(`audit: {"type":"key.rotated","kid":"${next}","status":"next","by":"operator"}`);
    // ...and recorded on the audit trail provider.yaml names, beside the nodes' own events.
    const audited = readFileSync(join(a.provider.settings.data_dir, "audit.log"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audited).toContainEqual(expect.objectContaining({ type: "key.rotated", kid: next, status: "next", by: "operator" }));
    await Promise.all([a.provider.keys.sync(), b.provider.keys.sync()]); // the nodes' periodic re-read, now
    expect(await publishedKids(b)).toContain(next);
    expect(kidOf(await serviceToken(a))).toBe(first);

    // Published for less than keys.announce_for (1h): refused, nothing changed.
    const early = await keys("rotate");
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(new RegExp(`the next key ${next} has been published for only .*keys.announce_for: 1h.*--now`));

    // Once announced for keys.announce_for: the test cannot wait an hour, so it dates the next key's publication back by one.
    const ring = a.provider.store.namespace<KeyRing>("keys");
    const stored = (await ring.get("signing-keys"))!;
    await ring.set("signing-keys", { keys: stored.keys.map((k) => (k.kid === next ? { ...k, createdAt: k.createdAt - HOUR } : k)) });
    const rotated = await keys("rotate");
    expect(rotated.stderr).toBe("");
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain(`Rotated: ${next} signs from now on; ${first} is retired and stays published until`);
    expect(rotated.stdout).toMatch(/Running nodes pick the change up at their next sync/);
    expect(rotated.stdout).toContain(`audit: {"type":"key.rotated","kid":"${first}","status":"retired","by":"operator"}`);

    // Until a node re-reads the ring it keeps signing with the key it has; then it switches.
    expect(kidOf(await serviceToken(a))).toBe(first);
    await a.provider.keys.sync();
    expect(kidOf(await serviceToken(a))).toBe(next);
    expect(kidOf(await idToken(b))).toBe(first);
    await b.provider.keys.sync();
    const newId = await idToken(b);
    expect(kidOf(newId)).toBe(next);

    // The tokens signed before the rotation still verify against either node's JWKS, as do the new ones.
    for (const node of [a, b]) {
      expect((await verify(node, oldAccess)).protectedHeader.kid).toBe(first);
      expect((await verify(node, oldId)).payload.sub).toBe("E10001");
      expect((await verify(node, newId)).protectedHeader.kid).toBe(next);
    }

    const after = await keys("list");
    expect(after.stdout).toMatch(new RegExp(`^${next}\\s+RS256\\s+current\\s`, "m"));
    expect(after.stdout).toMatch(new RegExp(`^${first}\\s+RS256\\s+retired\\s.*yes, until \\S+Z$`, "m"));
    expect(after.stdout).toMatch(/^\S+\s+RS256\s+next\s.*yes \(ahead of use\)$/m);

    // Once everything the old key signed has expired, the nodes drop it and its tokens no longer verify.
    offset = 2 * DAY;
    await a.provider.keys.sync();
    expect(await publishedKids(a)).not.toContain(first);
    await expect(verify(a, oldAccess, new Date())).rejects.toThrow(/no applicable key found/i);
    offset = 0;
  });

  it("waits for the ring's store lock, as the nodes do, and gives up in one line while another process holds it", async () => {
    const records = a.provider.store.namespace<number>("keys");
    expect(await records.add("signing-keys.lock", 1, 60_000)).toBe(true); // as a node applying a scheduled step
    try {
      const before = JSON.stringify(await a.provider.store.namespace("keys").get("signing-keys"));
      const blocked = await keys("rotate", "--now");
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toBe(
        "portcullis keys: another process is writing the signing keys (a node's scheduled rotation, or another operator): try again\n",
      );
      expect(JSON.stringify(await a.provider.store.namespace("keys").get("signing-keys"))).toBe(before);
    } finally {
      await records.delete("signing-keys.lock");
    }
  });

  it("retires the current key when a next one can take over, and names an unknown kid", async () => {
    const current = a.provider.keys.keys.signing.kid;
    const retired = await keys("retire", current);
    expect(retired.stderr).toBe("");
    expect(retired.code).toBe(0);
    const promoted = /^(\S+) signs from now on/m.exec(retired.stdout)?.[1];
    expect(promoted).toBeDefined();
    await a.provider.keys.sync();
    expect(a.provider.keys.keys.signing.kid).toBe(promoted);

    // Suspected compromise: the key leaves the JWKS, and what it signed stops verifying at the nodes.
    const token = await serviceToken(a);
    expect(kidOf(token)).toBe(promoted);
    const unpublished = await keys("retire", promoted!, "--unpublish");
    expect(unpublished.stderr).toBe("");
    expect(unpublished.code).toBe(0);
    expect(unpublished.stdout).toContain(`Unpublished ${promoted}: it signs nothing more and leaves the JWKS`);
    // The trail tells a suspected compromise from an ordinary retirement.
    expect(unpublished.stdout).toContain(`audit: {"type":"key.rotated","kid":"${promoted}","status":"unpublished","by":"operator"}`);
    await Promise.all([a.provider.keys.sync(), b.provider.keys.sync()]);
    await a.provider.keys.sync(); // again: node a signed with it, and must not write it back as lost
    for (const node of [a, b]) expect(await publishedKids(node)).not.toContain(promoted);
    await expect(verify(a, token)).rejects.toThrow(/no applicable key found/i);
    expect(kidOf(await serviceToken(a))).not.toBe(promoted);
    // keys list still names it, as out of the JWKS, so the operator sees that it is.
    const listed = await keys("list");
    expect(listed.code).toBe(0);
    // Created, activated and retired stay listed; the last column says since when it is out.
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${promoted}\\s+RS256\\s+unpublished\\s+\\S+Z\\s+\\S+Z\\s+\\S+Z\\s+no, since \\S+Z \\(taken out of the JWKS: what it signed no longer verifies\\)$`,
        "m",
      ),
    );
    expect(listed.stdout).toContain("Every key listed but an unpublished one is in the JWKS");

    expect(await keys("retire", "no-such-kid")).toMatchObject({
      code: 1,
      stderr: 'portcullis keys: no key "no-such-kid" in the key ring (keys list shows them)\n',
    });
    expect(await keys("retire", current)).toMatchObject({ code: 1, stderr: `portcullis keys: ${current} is already retired\n` });
  });

  it("rotates one algorithm's keys with --alg, leaving the others signing as before", async () => {
    const before = Object.fromEntries(SIGNING_ALGS.map((alg) => [alg, a.provider.keys.keys.signingKey(alg).kid]));
    const rotated = await keys("rotate", "--alg", "ES256", "--now");
    expect(rotated.stderr).toBe("");
    expect(rotated.code).toBe(0);
    const [, signs, retired] = /Rotated: (\S+) signs from now on; (\S+) is retired/.exec(rotated.stdout) ?? [];
    expect(retired).toBe(before.ES256);
    await a.provider.keys.sync();
    expect(SIGNING_ALGS.map((alg) => a.provider.keys.keys.signingKey(alg).kid)).toEqual([before.RS256, before.PS256, signs]);
    const listed = await keys("list");
    expect(listed.stdout).toMatch(new RegExp(`^${signs}\\s+ES256\\s+current\\s`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^${before.ES256}\\s+ES256\\s+retired\\s`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^${before.PS256}\\s+PS256\\s+current\\s`, "m"));
  });
});

describe("portcullis keys refusals", { timeout: 120_000 }, () => {
  it("says to stop the provider when it holds the embedded store", async () => {
    const p = await startTestProvider();
    try {
      const result = await portcullis(["keys", "list", "--config", p.configDir]);
      expect(result.code).toBe(1);
      // The advice once, for the command (the store's own message is written for a second provider).
      expect(result.stderr).toMatch(
        /^portcullis keys: the embedded store in \S+ is in use by process \d+ \(a running provider\), and it belongs to one process: stop the provider first, or use Redis or PostgreSQL\n$/,
      );
    } finally {
      await p.close();
    }
  });

  it("explains that static keys are rotated by editing provider.yaml", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const configDir = copyConfig({
      "provider.yaml": { data_dir: dataDir, "keys.static": [{ kid: "ops-a", status: "current", private_key_pem: "${file:ops-a.pem}" }] },
    });
    writeFileSync(join(configDir, "ops-a.pem"), pem);
    try {
      const listed = await portcullis(["keys", "list", "--config", configDir]);
      expect(listed).toMatchObject({ code: 0, stderr: "" });
      expect(listed.stdout).toMatch(/^ops-a\s+RS256\s+current\s+provider.yaml keys.static$/m);
      const rotate = await portcullis(["keys", "rotate", "--config", configDir]);
      expect(rotate.code).toBe(1);
      expect(rotate.stderr).toMatch(/static \(keys.static in provider.yaml\): rotate them by editing provider.yaml/);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("explains usage mistakes", async () => {
    for (const args of [
      ["keys"],
      ["keys", "retire"],
      ["keys", "list", "extra"],
      ["keys", "list", "--now"],
      ["keys", "list", "--alg", "ES256"],
      ["keys", "rotate", "--alg", "HS256"],
    ]) {
      const result = await portcullis(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^portcullis keys: /);
    }
  });
});
