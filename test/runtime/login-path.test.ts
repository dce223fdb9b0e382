/** The path of states an interaction records for the audit trail (src/runtime/login-path.ts). */
import { describe, expect, it } from "vitest";
import { ELIDED, extendPath, stateName } from "../../src/runtime/login-path.ts";

describe("stateName", () => {
  it("names the active leaf state by its path, dotted, and parallel regions joined by +", () => {
    expect(stateName("authenticated")).toBe("authenticated");
    expect(stateName({ signingIn: "password" })).toBe("signingIn.password");
    expect(stateName({ signingIn: { totp: "verifying" } })).toBe("signingIn.totp.verifying");
    expect(stateName({ factors: { trusted: "password", untrusted: "totp" } })).toBe("factors.trusted.password + factors.untrusted.totp");
  });
});

describe("extendPath", () => {
  it("adds a step unless it is the last one again (a page shown again)", () => {
    expect(extendPath(undefined, "a")).toEqual(["a"]);
    expect(extendPath(["a"], "a")).toEqual(["a"]);
    expect(extendPath(["a"], "b")).toEqual(["a", "b"]);
    expect(extendPath(["a", "b"], "a")).toEqual(["a", "b", "a"]);
  });

  it("keeps a long path small: its first step, an ellipsis and the latest 30", () => {
    let path: string[] = [];
    for (let i = 0; i < 100; i++) path = extendPath(path, `s${i}`);
    expect(path).toHaveLength(32);
    expect(path.slice(0, 3)).toEqual(["s0", ELIDED, "s70"]);
    expect(path.at(-1)).toBe("s99");
  });
});
