/** A statechart with a login's path highlighted (src/diagrams/highlight-path.ts). */
import { describe, expect, it } from "vitest";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { mermaidStatechart } from "../../src/diagrams/mermaid-statechart.ts";
import { highlightPath } from "../../src/diagrams/highlight-path.ts";
import { leafPaths } from "../../src/diagrams/machine-archive.ts";

const machine = createLoginFlow([
  { id: "password", identifiesUser: true },
  { id: "totp", identifiesUser: false },
]);
const source = mermaidStatechart(machine);
const leaves = new Set(leafPaths(machine));

describe("highlightPath", () => {
  it("puts the states of the path in the taken class, after the drawing", () => {
    const drawn = highlightPath(source, leaves, ["signingIn.password", "identifying", "signingIn.totp", "authenticated"]);
    expect(drawn.startsWith(source)).toBe(true);
    expect(drawn.slice(source.length)).toBe(
      "  classDef taken fill:#ffe08a,stroke:#b58900,stroke-width:3px,color:#000\n  class s_signingIn__password,s_identifying,s_signingIn__totp,s_authenticated taken\n",
    );
  });

  it("leaves out compound states (Mermaid styles only simple ones) and steps the machine has no state for", () => {
    const drawn = highlightPath(source, leaves, ["signingIn", "signingIn.qrcode", "…", "authenticated"]);
    expect(drawn.slice(source.length)).toContain("  class s_authenticated taken\n");
    expect(highlightPath(source, leaves, ["gone.state"])).toBe(source);
  });
});
