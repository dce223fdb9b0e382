/**
 * The file-level rules of the dependency check (`npm run deps`, first step of `npm test`; the
 * folder-level check is in scripts/check-dependencies.ts): no import cycles anywhere in the code, and the
 * direction of the layers. A cycle makes load order matter and hides which part depends on which.
 * Type-only imports count too: they tie the files' designs together as much as value imports do.
 * TypeScript 7 has no JavaScript API any more, so the parser is swc. test/docs/dependency-rules.test.ts
 * plants a violation of each rule and checks that it is caught.
 */

/**
 * The floors of the product's code, from the bottom up (docs/layout.md draws them): a file may import
 * its own floor and the floors below, never one above. Within a floor, the folder check forbids cycles.
 * A folder serves HTTP or holds a model, never both: the HTTP faces are on the `http` floor.
 */
const FLOORS = [
  { name: "ground", folders: ["time", "errors", "crypto", "logging", "i18n"] },
  { name: "foundation", folders: ["config", "stores", "http-kit", "delivery"] },
  {
    name: "records",
    folders: [
      "audit",
      "metrics",
      "scopes",
      "security",
      "login-policy",
      "tokens",
      "oauth",
      "users",
      "user-ledger",
      "sessions",
      "enrollments",
      "one-time-codes",
      "qr-codes",
      "eid",
      "channels",
      "views",
    ],
  },
  {
    name: "login",
    folders: ["plugin-contract", "trusted-app", "runtime", "account", "snapshot"],
    flows: true,
  },
  { name: "infra", folders: ["infra"] },
  { name: "http", folders: ["http", "diagrams", "extensions"] },
  { name: "composition", folders: ["reload", "cluster", "cli", "demo"], topFiles: true },
];

/** The path pattern of one floor's files (a deeper folder listed on another floor belongs there). */
function floorPath(floor) {
  const own = floor.folders.map((folder) => `^src/${folder}/`);
  if (floor.flows) own.push("^flows/");
  if (floor.topFiles) own.push("^src/[^/]+\\.ts$");
  return own.join("|");
}

/** The folders of `floors` nested in a folder of `within` (src/extensions/contract in src/extensions). */
const nestedIn = (floors, within) =>
  floors
    .flatMap((floor) => floor.folders)
    .filter((folder) => within.some((outer) => outer.folders.some((own) => folder.startsWith(`${own}/`))))
    .map((folder) => `^src/${folder}/`)
    .join("|");

const floorRules = FLOORS.slice(0, -1).map((floor, index) => {
  const below = FLOORS.slice(0, index + 1);
  const above = FLOORS.slice(index + 1);
  const fromNot = nestedIn(
    FLOORS.filter((other) => other !== floor),
    [floor],
  );
  const toNot = nestedIn(below, above);
  return {
    name: `floor-${floor.name}-imports-nothing-above`,
    severity: "error",
    comment: `The ${floor.name} floor may import its own floor and the floors below it, never ${above.map((f) => f.name).join(", ")}: an import that runs back up ties a lower part to a higher one's design.`,
    from: { path: floorPath(floor), ...(fromNot && { pathNot: fromNot }) },
    to: { path: above.map(floorPath).join("|"), ...(toNot && { pathNot: toNot }) },
  };
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: break it by moving the shared type or function to a module both can import.",
      from: {},
      to: { circular: true },
    },
    ...floorRules,
    {
      name: "leaf-folders-import-nothing-of-ours",
      severity: "error",
      comment:
        "time, errors, crypto, logging, i18n and stores are leaves: everything may use them, so they may use nothing of ours (else a cycle waits for the first import back). The store learns the extensions' record kinds from the composition root, not by importing their list.",
      from: { path: "^src/(time|errors|crypto|logging|i18n|stores)/" },
      to: { path: "^(src|flows)/", pathNot: "^src/$1/" },
    },
    {
      name: "login-policy-is-pure",
      severity: "error",
      comment:
        "The login plan is plain data in, plain data out (the server, the CLI's what-if and the diagrams plan alike): it may read the config's types and the ground floor, never a store, HTTP or the runtime.",
      from: { path: "^src/login-policy/" },
      to: {
        path: "^(src|flows)/",
        pathNot: "^src/(login-policy|crypto|errors)/|^src/config/(types\\.generated|default-login)\\.ts$|^src/config/types/",
      },
    },
    {
      name: "only-the-composition-imports-the-provider",
      severity: "error",
      comment:
        "src/provider.ts builds the infrastructure; everything else receives it (the Infra type is in src/infra/). Only what starts a provider imports it: the process start (src/start-provider.ts), the CLI and the cluster.",
      from: { path: "^(src|flows)/", pathNot: "^src/(start-provider\\.ts$|cli/|cluster/)" },
      to: { path: "^src/provider\\.ts$" },
    },
    {
      name: "flows-import-only-the-plugin-contract",
      severity: "error",
      comment:
        "Login flows and factor plugins use the provider only through its plugin contract (src/plugin-contract/index.ts, and its light part declaration.ts for manifests): what they may touch is one list, and the rest of src/ can change under them.",
      from: { path: "^flows/" },
      to: { path: "^src/", pathNot: "^src/plugin-contract/(index|declaration)\\.ts$" },
    },
    {
      name: "extensions-import-only-the-plugin-contract",
      severity: "error",
      comment:
        "An extension (src/extensions/<id>/) uses the provider only through the plugin contract (src/plugin-contract/index.ts), like a factor method: its own folder and its machines in flows/ are its own.",
      from: { path: "^src/extensions/([^/]+)/" },
      to: { path: "^src/", pathNot: ["^src/plugin-contract/(index|declaration)\\.ts$", "^src/extensions/$1/"] },
    },
    {
      name: "nothing-imports-the-installed-extension-list-below-the-composition",
      severity: "error",
      comment:
        "The installed extensions are chosen by the composition root, which hands their manifests to the store and the config loader; a lower part that imported the list would be tied to every extension.",
      // The config loader and the store are on the foundation floor; the ground floor is below them.
      from: { path: FLOORS.slice(0, 2).map(floorPath).join("|") },
      to: { path: "^src/extensions/" },
    },
  ],
  options: {
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.node)/" },
  },
};
