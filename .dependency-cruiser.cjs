/**
 * The file-level rules of the dependency check (`npm run deps`, first step of `npm test`; the
 * folder-level check is in scripts/check-dependencies.ts): no import cycles anywhere in the code. A
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
  ],
  options: {
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.node)/" },
  },
};
