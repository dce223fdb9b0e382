/**
 * The dependency check `npm test` runs first (`npm run deps`): no import cycles anywhere in the code.
 * A cycle makes load order matter and hides which part of the architecture depends on which; issue 12
 * asked that none come back, between files or between folders. Type-only imports count too: they tie the files' designs together as
 * much as value imports do. TypeScript 7 has no JavaScript API any more, so the parser is swc.
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
    {
      name: "no-folder-cycle",
      severity: "error",
      comment: "Two folders import each other: the layering the folder layout shows is no longer true.",
      scope: "folder",
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
