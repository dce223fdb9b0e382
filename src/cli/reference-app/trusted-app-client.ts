import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { BFIDO_API_PATH, DEVICE_API_PATH, parseAcmeAuthUri } from "../../trusted-app/acmeauth-uri.ts";
import { AppAuthenticator, type AppCreationOptions, type AppFidoCredential } from "./app-authenticator.ts";
import { DEVICE_JWS_TYPES, type DeviceJwsType } from "../../trusted-app/device-jws.ts";
import { dynamicCode } from "../../trusted-app/dynamic-code.ts";
import { measuredClaims, type Sensors } from "./sensors.ts";
import { parseSsoEntry, ssoAuthorizeUrl } from "../../trusted-app/acmeauth-sso.ts";

/** What the app keeps about its enrollment (a JSON file for the CLI): the private key and the seed are secrets. */
export interface DeviceState {
  version: 1;
  issuer: string;
  sub: string;
  deviceId: string;
  name: string;
  /** The device's P-256 key pair (the private `d` included). */
  privateJwk: JWK;
  /** The base32 seed of the dynamic code. */
  seed: string;
  /** The scan token of the last QR code scanned, which `approve` and `deny` answer. */
  pendingChallenge?: string;
  /** The FIDO2 credentials of the app's authenticator (method bfido), private keys included. */
  fido?: AppFidoCredential[];
}

/** A refusal from the provider's device API: its HTTP status and `{error, error_description}`. */
export class TrustedAppError extends Error {
  static readonly code: string = "ERR_TRUSTED_APP_REQUEST";
  readonly code: string = "ERR_TRUSTED_APP_REQUEST";
  readonly status: number;
  readonly error: string;
  readonly description: string;

  constructor(status: number, error: string, description: string) {
    super(`${status} ${error}: ${description}`);
    this.status = status;
    this.error = error;
    this.description = description;
  }
}

export interface ClientOptions {
  /** Milliseconds since the epoch (tests move it); default Date.now. */
  clock?: () => number;
  /**
   * Where the device API is reached, when not at the issuer's address: one node of several behind a
   * load balancer, as the tests that hop between nodes do. The JWS audience stays the issuer.
   */
  server?: string;
}

/**
 * The reference trusted app (DESIGN "The trusted app"): what a phone does, as a library the tests use
 * and the `portcullis app` CLI wraps. It enrolls from an acmeauth://enroll QR code (a new P-256 key
 * pair; the provider returns the dynamic-code seed), scans acmeauth://login QR codes and approves them
 * with the number the login page shows (signing in the location and face check a code asks for:
 * sensors.ts), shows the dynamic code, makes silent-login tokens and performs acmeauth://sso/oidc
 * entries with them, and holds a software FIDO2 authenticator for must_bfido (app-authenticator.ts).
 * It talks only to the provider it enrolled with: a QR code naming another issuer is refused.
 */
export class TrustedAppClient {
  readonly state: DeviceState;
  private key?: Awaited<ReturnType<typeof importJWK>>;
  private readonly clock: () => number;
  private readonly server?: string;

  constructor(state: DeviceState, options: ClientOptions = {}) {
    this.state = state;
    this.clock = options.clock ?? Date.now;
    this.server = options.server;
  }

  /** Enrolls a new device from an acmeauth://enroll URI (the QR code's text). */
  static async enroll(qrUri: string, name: string, options: ClientOptions = {}): Promise<TrustedAppClient> {
    const parsed = parseAcmeAuthUri(qrUri);
    if (parsed?.kind !== "enroll") throw new Error("not an acmeauth://enroll code");
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const answer = await postJson(options.server ?? parsed.issuer, `${DEVICE_API_PATH}/enroll`, {
      token: parsed.token,
      name,
      public_jwk: publicJwk,
    });
    const { device_id: deviceId, seed, sub } = answer as { device_id: string; seed: string; sub: string };
    const state: DeviceState = { version: 1, issuer: parsed.issuer, sub, deviceId, name, privateJwk: await exportJWK(privateKey), seed };
    return new TrustedAppClient(state, options);
  }

  /** A device saved with `save`. */
  static async load(path: string, options: ClientOptions = {}): Promise<TrustedAppClient> {
    const state = JSON.parse(await readFile(path, "utf8")) as DeviceState;
    if (state.version !== 1 || !state.deviceId || !state.privateJwk?.d)
      throw new Error(`${path} does not hold an enrolled trusted-app device`);
    return new TrustedAppClient(state, options);
  }

  /** Saves the device (readable by its owner only: it holds the private key and the seed). */
  async save(path: string): Promise<void> {
    await writeFile(path, `${JSON.stringify(this.state, null, 2)}\n`, { mode: 0o600 });
  }

  /**
   * Scans an acmeauth://login QR code: the login page then shows this device and a number to approve
   * with. What the code asks for (`req`: gps, faceid) is read from `sensors` and signed into the scan;
   * what the sensors lack is left out (the provider then refuses the scan and says why).
   */
  async scan(qrUri: string, sensors: Sensors = {}): Promise<void> {
    const parsed = parseAcmeAuthUri(qrUri);
    if (parsed?.kind !== "login") throw new Error("not an acmeauth://login code");
    this.checkIssuer(parsed.issuer);
    await this.send("/scan", DEVICE_JWS_TYPES.scan, {
      challenge: parsed.challenge,
      ...measuredClaims(sensors, this.nowSeconds(), parsed.wants),
    });
    this.state.pendingChallenge = parsed.challenge;
  }

  /** Refuses a code of another provider than the one this device is enrolled with. */
  checkIssuer(issuer: string): void {
    if (issuer !== this.state.issuer)
      throw new Error(`the code is from ${issuer}, not from ${this.state.issuer} where this device is enrolled`);
  }

  /** Approves the scanned sign-in with the number the login page shows. */
  async approve(number: string): Promise<void> {
    await this.answer("/approve", DEVICE_JWS_TYPES.approve, { number: number.trim() });
  }

  /** Declines the scanned sign-in. */
  async deny(): Promise<void> {
    await this.answer("/deny", DEVICE_JWS_TYPES.deny, {});
  }

  /**
   * Registers a FIDO2 credential of the app's authenticator for this device's user (method bfido):
   * the creation options come back for a device-signed request, the answer goes with another.
   */
  async bfidoRegister(): Promise<void> {
    const typ = DEVICE_JWS_TYPES.bfidoRegister;
    const { handle, options } = (await this.postJws("/registrations", await this.sign(typ, {}), BFIDO_API_PATH)) as {
      handle: string;
      options: AppCreationOptions;
    };
    const credentials = [...(this.state.fido ?? [])];
    const { response } = new AppAuthenticator(credentials, new URL(this.state.issuer).origin).register(options);
    await this.postJws("/registrations/complete", await this.sign(typ, { handle, credential: response }), BFIDO_API_PATH);
    this.state.fido = credentials;
  }

  /** Answers an acmeauth://bfido QR code with a FIDO2 assertion by the registered credential (the counter moves: save the state). */
  async bfidoScan(qrUri: string): Promise<void> {
    const parsed = parseAcmeAuthUri(qrUri);
    if (parsed?.kind !== "bfido") throw new Error("not an acmeauth://bfido code");
    this.checkIssuer(parsed.issuer);
    const credentials = this.state.fido ?? [];
    const rpId = credentials[0]?.rpId ?? new URL(this.state.issuer).hostname;
    const credential = new AppAuthenticator(credentials, new URL(this.state.issuer).origin).authenticate(rpId, parsed.challenge);
    await this.postJws("/assertions", await this.sign(DEVICE_JWS_TYPES.bfido, { challenge: parsed.challenge, credential }), BFIDO_API_PATH);
  }

  /** Revokes this device at the provider. */
  async unenroll(): Promise<void> {
    await this.send("/unenroll", DEVICE_JWS_TYPES.unenroll, {});
  }

  /** The dynamic code (method appotp) now, or at `atMs`. */
  code(atMs = this.clock()): Promise<string> {
    return dynamicCode(this.state.seed, atMs);
  }

  /**
   * A silent-login token for `clientId` (the embedded web view presents it), valid `seconds`, with
   * what the sensors read (acr_values app_gps / app_faceid ask for it).
   */
  silentLoginToken(clientId: string, seconds = 60, sensors: Sensors = {}): Promise<string> {
    return this.sign(
      DEVICE_JWS_TYPES.silentLogin,
      { client_id: clientId, ...measuredClaims(sensors, this.nowSeconds()) },
      { exp: this.nowSeconds() + seconds },
    );
  }

  /**
   * Performs an acmeauth://sso/oidc entry (or opens a scanned authorize link of its own provider, as the
   * custom QR-code login's QR holds): the authorize request it carries, sent to this device's
   * provider with a silent-login token (and what the request's acr_values ask the sensors for). The
   * redirect is not followed: the answer's status and Location (a real app opens it).
   */
  async sso(uri: string, sensors: Sensors = {}): Promise<{ status: number; location?: string; refusal?: string }> {
    const entry = parseSsoEntry(uri, this.state.issuer);
    if (!entry) throw new Error("not an acmeauth://sso/oidc link, nor an authorize link of this device's provider, with one client_id");
    const measured = measuredClaims(sensors, this.nowSeconds(), entry.wants);
    const token = await this.sign(
      DEVICE_JWS_TYPES.silentLogin,
      { client_id: entry.clientId, ...measured },
      { exp: this.nowSeconds() + 60 },
    );
    const res = await fetch(ssoAuthorizeUrl(this.server ?? this.state.issuer, entry, token), { redirect: "manual" });
    const location = res.headers.get("location") ?? undefined;
    if (location !== undefined || res.ok) {
      await res.body?.cancel();
      return { status: res.status, location };
    }
    // No redirect: the provider's error page (an untrusted client or redirect_uri), which a web view would show.
    return { status: res.status, refusal: errorPageText(await res.text()) };
  }

  /** A device JWS of this type with these claims (sub, aud, iat, jti filled in; `overrides` replace them). */
  async sign(typ: DeviceJwsType, claims: Record<string, unknown>, overrides: Record<string, unknown> = {}): Promise<string> {
    this.key ??= await importJWK(this.state.privateJwk, "ES256");
    const key = this.key;
    const payload = {
      sub: this.state.sub,
      aud: this.state.issuer,
      iat: this.nowSeconds(),
      jti: randomBytes(16).toString("base64url"),
      ...claims,
      ...overrides,
    };
    return new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ, kid: this.state.deviceId }).sign(key);
  }

  /** Posts a device JWS to the device API (tests send the same one twice to see it refused). */
  postJws(path: string, jws: string, api = DEVICE_API_PATH): Promise<Record<string, unknown>> {
    return postJson(this.server ?? this.state.issuer, `${api}${path}`, { jws });
  }

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  private async send(path: string, typ: DeviceJwsType, claims: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.postJws(path, await this.sign(typ, claims));
  }

  /** Answers the scanned sign-in; it is done with, whatever the answer (a refused one is spent too, or gone). */
  private async answer(path: string, typ: DeviceJwsType, claims: Record<string, unknown>): Promise<void> {
    const challenge = this.pending();
    try {
      await this.send(path, typ, { challenge, ...claims });
    } finally {
      this.state.pendingChallenge = undefined;
    }
  }

  private pending(): string {
    if (!this.state.pendingChallenge) throw new Error("no sign-in to answer: scan a QR code first");
    return this.state.pendingChallenge;
  }
}

/** POSTs JSON to the provider (its device API, the bfido method's app routes); a refusal throws TrustedAppError. */
async function postJson(server: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: reported below with the status
  }
  if (!res.ok)
    throw new TrustedAppError(res.status, String(json.error ?? "http_error"), String(json.error_description ?? text.slice(0, 200)));
  return json;
}

/** The message of the provider's error page (views/pages/error.hbs), as its web view would show it. */
function errorPageText(html: string): string | undefined {
  const message = /<div class="error-box" role="alert">\s*<p>([^<]*)<\/p>/.exec(html)?.[1];
  return message?.replace(/&(quot|#x27|#39|lt|gt|#x3D|#x60|amp);/g, (_, entity: string) => HTML_ENTITIES[entity]!).trim();
}

const HTML_ENTITIES: Record<string, string> = { quot: '"', "#x27": "'", "#39": "'", lt: "<", gt: ">", "#x3D": "=", "#x60": "`", amp: "&" };
