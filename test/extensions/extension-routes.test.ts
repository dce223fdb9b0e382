import { describe, expect, it } from "vitest";
import type { ExtensionHttp, StartedExtension } from "../../src/plugin-contract/extension.ts";
import { extensionRoutes } from "../../src/http/extension-routes.ts";
import type { ProtocolRoute } from "../../src/http-kit/protocol-route.ts";

const route = (path: string): ProtocolRoute => ({ path, methods: ["GET"], readsBody: false, handle: () => {} });
const extension = (paths: string[]): StartedExtension => ({
  manifest: {
    id: "demo-extension",
    routePrefix: "/Demo/Extension",
    config: { in: "own file", file: { name: "demo", file: "demo.yaml", schema: "demo.schema.json", optional: true, rules: [] } },
    recordKinds: {},
    machines: {},
    idTokenClaims: [],
  },
  routes: () => paths.map(route),
});
const http = {} as ExtensionHttp;

describe("extension routes", () => {
  it("serves an extension's routes under its prefix", () => {
    expect(extensionRoutes([extension(["/Demo/Extension/A", "/Demo/Extension/B/C"])], http).map((r) => r.path)).toEqual([
      "/Demo/Extension/A",
      "/Demo/Extension/B/C",
    ]);
  });

  it("refuses to start an extension with a route outside its prefix (a provider path, or a look-alike prefix)", () => {
    expect(() => extensionRoutes([extension(["/connect/token"])], http)).toThrow(
      "the route /connect/token is outside its prefix /Demo/Extension",
    );
    expect(() => extensionRoutes([extension(["/Demo/ExtensionX"])], http)).toThrow(/outside its prefix/);
  });
});
