import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { OAuthError, oauthError } from "../../src/errors/oauth-error.ts";
import { EidError } from "../../src/eid/eid-error.ts";

/**
 * The house rules for errors (issue 26, §6), read from the sources: every error class carries a stable
 * `code` (jose's `ERR_*` style), distinct from every other class's, so a program can tell errors apart
 * without instanceof across module copies; and an OAuthError is made only by src/errors/' factory, so
 * that a code's status is decided in one table.
 */
const ROOT = join(import.meta.dirname, "../..");
const sources = ["src", "flows"].flatMap((dir) => filesUnder(join(ROOT, dir))).filter((file) => file.endsWith(".ts"));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Each `class X extends <something>Error` with the code it declares (undefined: none). */
function errorClasses(): Array<{ file: string; name: string; code: string | undefined }> {
  return sources.flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(/class (\w+) extends (\w*Error)\b[^{]*\{([\s\S]*?)\n\}/g)].map(([, name, , body]) => ({
      file: relative(ROOT, file),
      name: name!,
      code: /static (?:override )?readonly code: string = "([^"]+)";/.exec(body!)?.[1],
    }));
  });
}

describe("error classes", () => {
  it("each declares a stable ERR_* code of its own", () => {
    const classes = errorClasses();
    expect(classes.length).toBeGreaterThan(20);
    expect(classes.filter((c) => c.code === undefined || !/^ERR_[A-Z_]+$/.test(c.code)).map((c) => `${c.file}: ${c.name}`)).toEqual([]);
    const codes = classes.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("carries the code on every instance, the subclass's over its base's", () => {
    expect(new ConfigError([]).code).toBe("ERR_CONFIG_INVALID");
    expect(oauthError("invalid_request", "x").code).toBe(OAuthError.code);
    expect(new EidError("unavailable", "dev-eid", "down").code).toBe("ERR_EID");
    expect(new EidError("unavailable", "dev-eid", "down")).toBeInstanceOf(OAuthError);
  });

  it("makes an OAuthError only through src/errors/ (the factory decides each code's status, and the special ones)", () => {
    const outside = sources.filter(
      (file) => !relative(ROOT, file).startsWith("src/errors/") && /new OAuthError\(/.test(readFileSync(file, "utf8")),
    );
    expect(outside.map((file) => relative(ROOT, file))).toEqual([]);
    expect(oauthError("temporarily_unavailable", "slow down", { status: 429 }).status).toBe(429);
    expect(oauthError("temporarily_unavailable", "down").status).toBe(503);
  });
});
