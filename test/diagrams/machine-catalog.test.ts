import { methodManifest } from "../../src/plugin-contract/method-manifest.ts";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { discoverMachines } from "../../src/diagrams/discover-machines.ts";
import { catalogMachines, DIAGRAM_NAME } from "../../src/diagrams/machine-catalog.ts";
import type { FactorPlugin } from "../../src/plugin-contract/factor-plugin.ts";

const TEST_PLUGINS = resolve(import.meta.dirname, "../plugins");
const machine = (id: string) => createMachine({ id, initial: "a", states: { a: { on: { GO: "b" } }, b: { type: "final" } } });
const plugin = (id: string, withEnrollment = false) =>
  ({
    manifest: methodManifest({
      id,
      schema: {},
      machines: { login: machine(id), ...(withEnrollment && { enrollment: machine(`${id}-enroll`) }) },
    }),
    identifiesUser: true,
  }) as unknown as FactorPlugin;

describe("catalogMachines", () => {
  it("names and orders the machines: login flows, the built-in ones, then each method and its enrollment by id", () => {
    const list = catalogMachines({
      loginFlows: [
        ["strict", machine("s")],
        ["default", machine("d")],
      ],
      plugins: [
        ["zeta", plugin("zeta")],
        ["My_Method", plugin("My_Method", true)],
      ],
    });
    expect(list.map((m) => [m.name, m.kind, m.subject])).toEqual([
      ["login", "login", "default"],
      ["login-strict", "login", "strict"],
      ["identify-user", "identify", ""],
      ["channel-choice", "channel_choice", ""],
      ["enrollment", "enrollment", ""],
      ["method-my-method", "method", "My_Method"],
      ["method-my-method-enrollment", "method_enrollment", "My_Method"],
      ["method-zeta", "method", "zeta"],
    ]);
    for (const { name } of list) expect(name).toMatch(DIAGRAM_NAME);
  });

  it("adds each extension's machines last, named <extension id>-<name>", () => {
    const manifest = {
      id: "demo-ext",
      routePrefix: "/Demo",
      config: { in: "own file", file: { name: "demo", file: "demo.yaml", schema: "demo.schema.json", optional: true, rules: [] } },
      recordKinds: {},
      machines: { phoneSide: machine("p") },
      idTokenClaims: [],
    } as const;
    const list = catalogMachines({
      loginFlows: [["default", machine("d")]],
      plugins: [],
      extensions: [{ manifest }],
    });
    expect(list.at(-1)).toMatchObject({ name: "demo-ext-phoneside", kind: "extension", subject: "demo-ext phoneSide" });
  });

  it("refuses two machines that would share a name", () => {
    expect(() =>
      catalogMachines({
        loginFlows: [],
        plugins: [
          ["a.b", plugin("a.b")],
          ["a-b", plugin("a-b")],
        ],
      }),
    ).toThrow('two machines would share the diagram name "method-a-b"');
  });
});

describe("discoverMachines", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const configWith = (loginYaml: string) => {
    dir = mkdtempSync(join(tmpdir(), "portcullis-discovery-"));
    writeFileSync(join(dir, "login.yaml"), loginYaml);
    return dir;
  };

  it("finds every plugin folder and builds the login flow for login.yaml's default flow", async () => {
    // test/plugins holds one plugin folder (pin) that the config does not even mention among its methods.
    const configDir = configWith("methods:\n  pin: {}\ndefault_flow:\n  methods: [pin]\n");
    const list = await discoverMachines({ methodsDir: TEST_PLUGINS, configDir });
    expect(list.map((m) => m.name)).toEqual([
      "login",
      "identify-user",
      "channel-choice",
      "enrollment",
      "method-pin",
      "method-pin-enrollment",
      "custom-login-phone",
      "custom-login-pc",
    ]);
    // pin verifies a known user: the login flow identifies the user first (and comes back to pin).
    expect(Object.keys(list[0]!.machine.root.states)).toEqual(["signingIn", "identifying", "authenticated"]);
    expect(Object.keys(list[0]!.machine.root.states.signingIn!.states)).toEqual(["pin", "resume"]);
  });

  it("includes a plugin login.yaml loads from another folder, and ignores folders without index.ts", async () => {
    const methodsDir = mkdtempSync(join(tmpdir(), "portcullis-methods-"));
    mkdirSync(join(methodsDir, "not-a-plugin"));
    try {
      const configDir = configWith(`methods:\n  pin:\n    from: ${join(TEST_PLUGINS, "pin")}\ndefault_flow:\n  methods: [pin]\n`);
      const list = await discoverMachines({ methodsDir, configDir });
      expect(list.map((m) => m.name)).toEqual([
        "login",
        "identify-user",
        "channel-choice",
        "enrollment",
        "method-pin",
        "method-pin-enrollment",
        "custom-login-phone",
        "custom-login-pc",
      ]);
    } finally {
      rmSync(methodsDir, { recursive: true, force: true });
    }
  });

  it("says which method of the default flow has no plugin", async () => {
    const configDir = configWith("methods:\n  nope: {}\ndefault_flow:\n  methods: [nope]\n");
    await expect(discoverMachines({ methodsDir: TEST_PLUGINS, configDir })).rejects.toThrow(
      'default_flow names "nope", which no plugin folder provides',
    );
  });
});
