import { describe, expect, it } from "vitest";
import { issuerForPort } from "../../src/http/issuer-for-port.ts";

describe("the issuer and the port the provider listens on", () => {
  it("moves a loopback issuer on the configured port to an overriding port (the demo case)", () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]"]) {
      expect(issuerForPort(`http://${host}:3000`, { configured: 3000, override: 4000, listened: 4000 })).toEqual({
        issuer: `http://${host}:4000`,
        movedFrom: `http://${host}:3000`,
      });
    }
  });

  it("moves it to the port actually bound when the override is 0, and keeps a path", () => {
    expect(issuerForPort("http://localhost:3000/idp", { configured: 3000, override: 0, listened: 41234 }).issuer).toBe(
      "http://localhost:41234/idp",
    );
  });

  it("counts a loopback issuer without a port as port 80 (443 for https)", () => {
    expect(issuerForPort("http://localhost", { configured: 80, override: 8080, listened: 8080 }).issuer).toBe("http://localhost:8080");
    expect(issuerForPort("https://localhost", { configured: 443, override: 8443, listened: 8443 }).issuer).toBe("https://localhost:8443");
    expect(issuerForPort("http://localhost:8080", { configured: 80, override: 80, listened: 80 })).toMatchObject({
      issuer: "http://localhost:8080",
    });
  });

  it("keeps and does not warn about an issuer on the port listened on", () => {
    expect(issuerForPort("http://127.0.0.1:3000", { configured: 3000, override: undefined, listened: 3000 })).toEqual({
      issuer: "http://127.0.0.1:3000",
    });
    expect(issuerForPort("http://127.0.0.1:3000", { configured: 3000, override: 3000, listened: 3000 })).toEqual({
      issuer: "http://127.0.0.1:3000",
    });
  });

  it("keeps a loopback issuer on another port than the configured one, with one warning naming both ports and the fixes", () => {
    const result = issuerForPort("http://localhost:8080", { configured: 3000, override: 4000, listened: 4000 });
    expect(result.issuer).toBe("http://localhost:8080");
    expect(result.movedFrom).toBeUndefined();
    expect(result.warning).toBe(
      "the issuer http://localhost:8080 names port 8080 but the provider listens on port 4000, so discovery and tokens send clients to a port nobody answers on: " +
        "set issuer in provider.yaml to http://localhost:4000 or start on port 8080 (--port 8080 or PORT=8080)",
    );
    expect(issuerForPort("http://localhost:8080", { configured: 3000, override: undefined, listened: 3000 }).warning).toContain(
      "listens on port 3000",
    );
  });

  it("never touches or warns about an issuer that is not loopback: behind a proxy another port is normal", () => {
    for (const issuer of [
      "https://login.example.com",
      "http://10.0.0.5:3000",
      "http://localhost.example.com:3000",
      "http://128.0.0.1:3000",
    ]) {
      expect(issuerForPort(issuer, { configured: 3000, override: 4000, listened: 4000 })).toEqual({ issuer });
    }
  });
});
