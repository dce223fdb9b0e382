import { createRequire } from "node:module";
import path from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";

/**
 * `npm run deps` (the first step of `npm test`): no import cycles, between files (dependency-cruiser's
 * no-circular rule in .dependency-cruiser.cjs, over everything we write) and between the product's
 * folders (src/ and flows/). The folder check is ours: dependency-cruiser's folder scope counts a folder
 * together with its subfolders, so flows/ using src/ and src/runtime building flows/ would read as a
 * cycle of `src` with itself. Here a folder is a file's own directory, and parent and child folders
 * are as separate as any two. Exits 1 naming every cycle, with one import that makes each step of it.
 */

const CRUISED = ["src", "flows", "bin", "scripts", "bench"];
/** The folders whose layering the folder check guards: the product's code. */
const LAYERED = /^(src|flows)\//;

const rules = createRequire(import.meta.url)("../.dependency-cruiser.cjs");
const result = (await cruise(CRUISED, { ...rules.options, validate: true, ruleSet: { forbidden: rules.forbidden } }))
  .output as ICruiseResult;

const problems: string[] = [];
for (const violation of result.summary.violations) {
  problems.push(
    violation.rule.name === "no-circular"
      ? `import cycle: ${[violation.from, ...(violation.cycle ?? []).map((step) => step.name)].join(" → ")}`
      : `${violation.rule.name}: ${violation.from} → ${violation.to} (.dependency-cruiser.cjs says why)`,
  );
}
for (const cycle of folderCycles(result)) problems.push(`folder cycle: ${cycle}`);

if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(
    `✘ ${problems.length} dependency problem(s): move the shared piece to a module both sides can import, or the import to the layer it belongs in`,
  );
  process.exit(1);
}
console.log(
  `✔ no import cycles between ${result.summary.totalCruised} modules, none between the folders of src/ and flows/, and no import against the layer rules`,
);

/** Each strongly connected group of folders (Tarjan), as its import edges with one example import each. */
function folderCycles(cruised: ICruiseResult): string[] {
  const examples = new Map<string, Map<string, string>>();
  for (const module of cruised.modules) {
    if (!LAYERED.test(module.source)) continue;
    const from = path.posix.dirname(module.source);
    for (const dependency of module.dependencies) {
      if (!LAYERED.test(dependency.resolved)) continue;
      const to = path.posix.dirname(dependency.resolved);
      if (to === from) continue;
      const edges = examples.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${module.source} → ${dependency.resolved}`);
      examples.set(from, edges);
    }
  }
  return stronglyConnected(examples).map((group) =>
    group
      .flatMap((from) =>
        [...(examples.get(from) ?? [])].filter(([to]) => group.includes(to)).map(([to, example]) => `${from} → ${to} (${example})`),
      )
      .join("; "),
  );
}

function stronglyConnected(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return groups;
}
