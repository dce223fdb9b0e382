/**
 * The file-level rules of the dependency check (`npm run deps`, first step of `npm test`; the
 * folder-level check is in scripts/check-dependencies.ts): no import cycles anywhere in the code, and the
 * layer directions written so far (the ground floor imports nothing of ours, the login plan is pure). A
 * cycle makes load order matter and hides which part depends on which. Type-only imports count too:
 * they tie the files' designs together as much as value imports do. TypeScript 7 has no JavaScript API
 * any more, so the parser is swc.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: break it by moving the shared type or function to a module both can import.",
      from: {},
      to: { circular: true },
    },
    // The first layer directions (issue 26, §1); the folder moves that let the others be written follow.
    {
      name: "leaf-folders-import-nothing-of-ours",
      severity: "error",
      comment:
        "time, errors, crypto and logging are the ground floor: everything may use them, so they may use nothing of ours (else a cycle waits for the first import back).",
      from: { path: "^src/(time|errors|crypto|logging)/" },
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
  ],
  options: {
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.node)/" },
  },
};
