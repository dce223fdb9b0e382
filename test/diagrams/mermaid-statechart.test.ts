import { describe, expect, it } from "vitest";
import { and, createMachine, fromPromise, not, or, setup, stateIn } from "xstate";
import { createLoginFlow, type FlowMethod } from "../../flows/login.flow.ts";
import { createSecondFactorFlow } from "../../flows/second-factor.flow.ts";
import { createTwoFactorFlow } from "../../flows/two-factor.flow.ts";
import { passwordMachine } from "../../flows/methods/password/password.machine.ts";
import { guardLabel } from "../../src/diagrams/guard-label.ts";
import { mermaidStatechart } from "../../src/diagrams/mermaid-statechart.ts";
import { mermaidLabel, mermaidStateId } from "../../src/diagrams/mermaid-text.ts";

/** Every line the generator writes has one of these shapes (ids `s_…`, labels from the safe set). */
const LINE = [
  /^stateDiagram-v2$/,
  /^ *state "[^"\n;:]+" as s_[A-Za-z0-9_]*( \{)?$/,
  /^ *\}$/,
  /^ *--$/,
  /^ *\[\*\] --> s_[A-Za-z0-9_]*$/,
  /^ *s_[A-Za-z0-9_]* --> \[\*\]$/,
  /^ *s_[A-Za-z0-9_]* --> s_[A-Za-z0-9_]* : (?:done: |error: )?[^\n;:"<>&#%`\\]+$/,
  /^ *note right of s_[A-Za-z0-9_]* : [^\n;:"<>&#%`\\]+$/,
];
const wellFormed = (diagram: string) =>
  diagram
    .trimEnd()
    .split("\n")
    .filter((line) => !LINE.some((shape) => shape.test(line)));

describe("mermaidStatechart", () => {
  it("draws the password method: states, its view, events with guards, the invoked actor's outcomes", () => {
    expect(mermaidStatechart(passwordMachine)).toBe(
      [
        "stateDiagram-v2",
        '  state "awaitingCredentials" as s_awaitingCredentials',
        "  note right of s_awaitingCredentials : view password",
        '  state "verifying" as s_verifying',
        '  state "verified" as s_verified',
        "  [*] --> s_awaitingCredentials",
        "  s_verified --> [*]",
        "  s_awaitingCredentials --> s_verifying : SUBMIT_PASSWORD [hasCredentials]",
        "  s_awaitingCredentials --> s_awaitingCredentials : SUBMIT_PASSWORD [else]",
        "  s_verifying --> s_verified : done: checkPassword [isAccepted]",
        "  s_verifying --> s_awaitingCredentials : done: checkPassword [else]",
        "",
      ].join("\n"),
    );
  });

  it("draws the identify step once, beside the methods, with the way there and back; the method switch once; guards with their params", () => {
    const diagram = mermaidStatechart(
      createLoginFlow([
        { id: "password", identifiesUser: true },
        { id: "totp", identifiesUser: false },
      ]),
    );
    expect(diagram).toContain(
      [
        '  state "signingIn" as s_signingIn {',
        '    state "password" as s_signingIn__password',
        '    state "totp" as s_signingIn__totp',
        '    state "resume (history)" as s_signingIn__resume',
        "    [*] --> s_signingIn__password",
        "  }",
        '  state "identifying" as s_identifying',
      ].join("\n"),
    );
    expect(diagram).toContain("  [*] --> s_signingIn\n  s_authenticated --> [*]\n");
    // The way to the identify step once, from the group; the switch once, as a loop on the state that
    // holds the methods; a passed method once, from it too.
    expect(diagram).toContain(
      "  s_signingIn --> s_identifying : always [isUserNeeded]\n  s_signingIn --> s_signingIn : CHOOSE_METHOD [isChosenMethod(method=m)] → its state m\n  s_signingIn --> s_authenticated : done: method\n",
    );
    // From the user-name form: another method (the same switch, into the group), or back to the method tried.
    expect(diagram).toContain(
      "  s_identifying --> s_signingIn : CHOOSE_METHOD [isChosenMethod(method=m)] → its state m\n  s_identifying --> s_signingIn__resume : done: identify\n",
    );
    expect(diagram.match(/CHOOSE_METHOD/g)).toHaveLength(2);
    expect(wellFormed(diagram)).toEqual([]);
  });

  it("draws a login flow in the same number of edges whatever its methods: needing the user identified first adds the identify step's three, once", () => {
    const edges = (diagram: string) => diagram.split("\n").filter((line) => / --> s_/.test(line) && !line.includes("[*]")).length;
    const methods = (n: number, identifying: number): FlowMethod[] =>
      Array.from({ length: n }, (_, i) => ({
        id: `m${i}`,
        identifiesUser: i >= identifying,
        class: i % 2 === 0 ? ("trusted" as const) : ("untrusted" as const),
      }));
    for (const n of [2, 3, 5, 8]) {
      expect(edges(mermaidStatechart(createLoginFlow(methods(n, 0))))).toBe(2);
      expect(edges(mermaidStatechart(createLoginFlow(methods(n, 1))))).toBe(5);
      expect(edges(mermaidStatechart(createLoginFlow(methods(n, n))))).toBe(5);
      // Starting, identifying and the enrollment check (2 each), the switch, a pass (2), starting over from two pages.
      expect(edges(mermaidStatechart(createSecondFactorFlow(methods(n, 0))))).toBe(11);
      // Routing (5), a switch and a pass of each of the three groups (2 × 3 + the other user's), starting over.
      expect(edges(mermaidStatechart(createTwoFactorFlow(methods(n, 0))))).toBe(15);
    }
    // The eight methods of the demo's 2FA, six of which need the user first: the identify step's three edges, once.
    const demo = mermaidStatechart(createTwoFactorFlow(methods(8, 6)));
    expect(edges(demo)).toBe(15 + 3);
    expect(demo.match(/CHOOSE_METHOD/g)).toHaveLength(4);
  });

  it("draws parallel regions, history, delays, onError, higher-order and inline guards, wildcards", () => {
    const machine = setup({
      actors: { work: fromPromise(async () => 1) },
      guards: { isA: () => true, hasB: () => true },
      delays: { slow: 5000 },
    }).createMachine({
      id: "both",
      type: "parallel",
      states: {
        left: {
          initial: "a",
          states: {
            a: { after: { 1000: "b", slow: { target: "b", guard: not("isA") } }, on: { "*": "b" } },
            b: {
              invoke: {
                src: "work",
                onDone: { target: "c", guard: and(["isA", or(["hasB", stateIn("#both.right.idle")])]) },
                onError: "a",
              },
            },
            c: { type: "final" },
          },
          onDone: "#both.left",
        },
        right: {
          initial: "idle",
          states: {
            idle: { on: { GO: { guard: ({ context }) => context !== undefined, target: "past" } } },
            past: { type: "history", history: "deep" },
          },
        },
      },
    });
    const diagram = mermaidStatechart(machine);
    expect(diagram).toBe(
      [
        "stateDiagram-v2",
        '  state "both" as s_ {',
        '    state "left" as s_left {',
        '      state "a" as s_left__a',
        '      state "b" as s_left__b',
        '      state "c" as s_left__c',
        "      [*] --> s_left__a",
        "      s_left__c --> [*]",
        "    }",
        "    --",
        '    state "right" as s_right {',
        '      state "idle" as s_right__idle',
        '      state "past (deep history)" as s_right__past',
        "      [*] --> s_right__idle",
        "    }",
        "  }",
        "  [*] --> s_",
        "  s_left --> s_left : done",
        "  s_left__a --> s_left__b : any event",
        "  s_left__a --> s_left__b : after 1000ms",
        "  s_left__a --> s_left__b : after slow [not isA]",
        "  s_left__b --> s_left__c : done: work [(isA and (hasB or in(both.right.idle)))]",
        "  s_left__b --> s_left__a : error: work",
        "  s_right__idle --> s_right__past : GO [inline guard]",
        "",
      ].join("\n"),
    );
    expect(wellFormed(diagram)).toEqual([]);
  });

  it("sorts events (their order in `on` means nothing) and keeps the order of one event's candidates", () => {
    const build = (on: Record<string, unknown>) =>
      setup({ guards: { isFirst: () => true, isSecond: () => true } }).createMachine({
        id: "m",
        initial: "a",
        states: { a: { on: on as never }, b: {}, c: {} },
      });
    const one = build({
      ZED: "b",
      ALPHA: [
        { guard: "isSecond", target: "c" },
        { guard: "isFirst", target: "b" },
      ],
    });
    const two = build({
      ALPHA: [
        { guard: "isSecond", target: "c" },
        { guard: "isFirst", target: "b" },
      ],
      ZED: "b",
    });
    expect(mermaidStatechart(one)).toBe(mermaidStatechart(two));
    expect(mermaidStatechart(one)).toContain("  s_a --> s_c : ALPHA [isSecond]\n  s_a --> s_b : ALPHA [isFirst]\n  s_a --> s_b : ZED\n");
  });

  it("keeps hostile state, event, guard and view names from breaking the diagram or carrying markup", () => {
    const evil = `x"; click s_a call alert(1) %%<img src=x onerror=alert(2)>\n--> [*]`;
    const machine = createMachine({
      id: "m",
      initial: evil,
      states: {
        [evil]: {
          meta: { view: `v: "<script>"; note` },
          on: { [evil]: { target: "end", guard: { type: evil, params: { [evil]: evil } } } },
        },
        end: { type: "final" },
        "a-b": {},
        a_b: {},
      },
    });
    const diagram = mermaidStatechart(machine);
    expect(wellFormed(diagram)).toEqual([]);
    const text = diagram.replace(/state "[^"]*" as/g, "state as").replace(/-->/g, "");
    expect(text).not.toMatch(/["<>`%&#;]/);
    // The hostile line break did not start a line of its own.
    expect(diagram.split("\n").filter((line) => /^\s*-->/.test(line))).toEqual([]);
    expect(diagram).toContain('  state "end" as s_end\n');
    // Two names that read alike as ids get distinct ones.
    expect(diagram).toContain('  state "a-b" as s_a_b\n  state "a_b" as s_a_b_2\n');
  });
});

describe("mermaidLabel and mermaidStateId", () => {
  it.each([
    ["SUBMIT_CODE", "SUBMIT_CODE"],
    ["isChosenMethod(method=totp)", "isChosenMethod(method=totp)"],
    ["登入 ok", "登入 ok"],
    ["a;b", "a_b"],
    ['say "hi"', "say _hi_"],
    ["a:b::c", "a_b__c"],
    ["<b>&amp;</b>", "_b__amp__/b_"],
    ["line\nbreak  and\ttab", "line break and tab"],
    ["", "_"],
  ])("makes %j safe: %j", (text, safe) => {
    expect(mermaidLabel(text)).toBe(safe);
  });

  it("builds ids from the path", () => {
    expect(mermaidStateId(["totp", "identifying"])).toBe("s_totp__identifying");
    expect(mermaidStateId(["end"])).toBe("s_end");
    expect(mermaidStateId(["a.b:c-d"])).toBe("s_a_b_c_d");
  });
});

describe("guardLabel", () => {
  it.each<[string, unknown, string | undefined]>([
    ["none", undefined, undefined],
    ["a name", "isX", "isX"],
    ["fixed params, keys sorted", { type: "isY", params: { b: 2, a: "one" } }, "isY(a=one, b=2)"],
    ["params from the event", { type: "isZ", params: () => ({}) }, "isZ"],
    ["not", not("isX"), "not isX"],
    ["and / or", and(["isX", or(["hasY", { type: "isZ", params: { n: 1 } }])]), "(isX and (hasY or isZ(n=1)))"],
    ["an inline arrow", () => true, "inline guard"],
    [
      "a named function",
      function isOpen() {
        return true;
      },
      "isOpen",
    ],
  ])("labels %s", (_label, guard, expected) => {
    expect(guardLabel(guard)).toBe(expected);
  });
});
