import { describe, expect, it } from "vitest";
import { maskEmailAddress } from "../../flows/methods/email/email-address.ts";
import { lastDigitsOf } from "../../flows/methods/sms/phone-number.ts";
import qrcode from "../../flows/methods/qrcode/index.ts";
import fido from "../../flows/methods/fido/index.ts";
import sms from "../../flows/methods/sms/index.ts";
import { returnLink } from "../../src/account/return-link.ts";
import { ClientRegistry } from "../../src/oauth/client-registry.ts";

describe("what the account page shows of an enrollment", () => {
  it("shows the last four digits of a phone number, two of a short one", () => {
    expect(lastDigitsOf("+447700900123")).toBe("0123");
    expect(lastDigitsOf("+1234567")).toBe("67");
    expect(sms.account!.items!({ target: "+886912345678", confirmedAt: 5 })).toEqual([
      { textKey: "method.sms.account_number", params: { digits: "5678" }, addedAt: 5 },
    ]);
  });

  it("shows an address's first character and its domain", () => {
    expect(maskEmailAddress("alice@example.com")).toBe("a•••@example.com");
    expect(maskEmailAddress("😀x@mail.example.org")).toBe("😀•••@mail.example.org");
  });

  it("lists the active phones of the trusted app by name, not the revoked ones", () => {
    const devices = [
      { id: "1", name: "Pixel 8", publicJwk: {}, createdAt: 10 },
      { id: "2", name: "Old phone", publicJwk: {}, createdAt: 5, revokedAt: 9 },
    ];
    expect(qrcode.account!.items!({ devices })).toEqual([{ text: "Pixel 8", addedAt: 10 }]);
  });

  it("tells a synced passkey from a security key, with its dates", () => {
    const credential = { id: "c", publicKey: "k", counter: 0, transports: [], backedUp: false, aaguid: "0", createdAt: 1 };
    const items = fido.account!.items!({
      userHandle: "h",
      credentials: [
        { ...credential, deviceType: "multiDevice", lastUsedAt: 7 },
        { ...credential, deviceType: "singleDevice" },
      ],
    });
    expect(items).toEqual([
      { textKey: "method.fido.account_passkey", addedAt: 1, lastUsedAt: 7 },
      { textKey: "method.fido.account_key", addedAt: 1, lastUsedAt: undefined },
    ]);
  });
});

describe("the account page's way back to an application", () => {
  const lifetimes = {
    authorization_code: "5m",
    access_token: "1h",
    client_credentials_access_token: "1h",
    id_token: "5m",
    refresh_token: "30d",
  } as never;
  const client = (redirect_uris: string[], post_logout_redirect_uris: string[] = []) =>
    new ClientRegistry(
      [
        {
          client_id: "c",
          type: "public",
          grant_types: ["authorization_code"],
          redirect_uris,
          post_logout_redirect_uris,
          allowed_scopes: ["openid"],
        } as never,
      ],
      lifetimes,
    ).get("c")!;

  it("is the post-logout URI, else the origin of the first web redirect URI, else nothing", () => {
    expect(returnLink(client(["https://app.example/cb"], ["https://app.example/bye"]))).toBe("https://app.example/bye");
    expect(returnLink(client(["com.example.app:/cb", "https://app.example:8443/deep/cb?x=1"]))).toBe("https://app.example:8443/");
    expect(returnLink(client(["com.example.app:/cb"]))).toBeUndefined();
    expect(returnLink(client([]))).toBeUndefined();
  });
});
