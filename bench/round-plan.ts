import type { FloorName, ScenarioName } from "./scenarios.ts";

/**
 * The order of a bench run's measurements. Each scenario is measured in rounds; a round is a sample of
 * the scenario's floor followed by the scenario's load windows (the provider's, its ceiling's when
 * there is one, the peer's with --peer, and the provider's on the LDAP directory with --ldap for the
 * scenarios measured there), and the next floor sample closes it. So every window has a floor sample of its own
 * floor before and after it, taken minutes apart at most, and a round's ratio divides by what the
 * machine could do around that very window, not by a floor measured at another time.
 *
 * Scenarios that share a floor run one after the other, and the sample that closes one scenario's last
 * round opens the next one's first round; two that alternate (`alternatesWith`: refresh with JWT and with
 * reference access tokens) take turns round by round instead, so both meet the same stretches of the
 * machine, as the servers within a round do. In a round with a ceiling, the peer or the LDAP provider the servers take
 * turns going first (the order rotates by one each round), so a floor that drifts through a round does
 * not favour any of them. A block with a scenario that names a `costFloor` samples it too, once per
 * round after the block's windows (it divides no window: its samples are compared with CPU per request).
 */

/** Who serves a window: the provider (for `directory`, slapd itself), its ceiling, the peer, or the provider on the LDAP directory. */
export type ServerRole = "provider" | "ceiling" | "peer" | "ldap";

export type Step =
  | { kind: "floor"; floor: FloorName }
  /** `round` counts from 0: round 0 is the server's first window of the scenario, the one with the full warm-up. */
  | { kind: "window"; scenario: ScenarioName; server: ServerRole; round: number };

export interface PlannedScenario {
  name: ScenarioName;
  floor: FloorName;
  withCeiling: boolean;
  /** node-oidc-provider (bench/peer/) measured in the same rounds. */
  withPeer?: boolean;
  /** The provider on the LDAP directory measured in the same rounds. */
  withLdap?: boolean;
  /** A scenario whose rounds alternate with this one's when both are planned (scenarios.ts). */
  alternatesWith?: ScenarioName;
  /**
   * A floor this scenario's cost is compared with, other than its own (DPoP: one ES256 verification): sampled
   * once per round of its block, after the block's windows of that round.
   */
  costFloor?: FloorName;
}

/** The floors' groups run in this order: the cheap endpoints, then the signing scenarios, then the logins. */
const FLOOR_ORDER: readonly FloorName[] = ["bare_http", "rs256", "scrypt"];

export function planRounds(scenarios: readonly PlannedScenario[], rounds: number): Step[] {
  const steps: Step[] = [];
  for (const floor of FLOOR_ORDER) {
    const group = scenarios.filter((s) => s.floor === floor);
    if (group.length === 0) continue;
    steps.push({ kind: "floor", floor });
    for (const block of alternatingBlocks(group)) {
      for (let round = 0; round < rounds; round++) {
        for (const scenario of block) {
          const roles: ServerRole[] = [
            "provider",
            ...(scenario.withCeiling ? ["ceiling" as const] : []),
            ...(scenario.withPeer ? ["peer" as const] : []),
            ...(scenario.withLdap ? ["ldap" as const] : []),
          ];
          const first = round % roles.length;
          const servers = [...roles.slice(first), ...roles.slice(0, first)];
          for (const server of servers) steps.push({ kind: "window", scenario: scenario.name, server, round });
          steps.push({ kind: "floor", floor });
        }
        const costFloors = new Set(block.flatMap((s) => (s.costFloor ? [s.costFloor] : [])));
        for (const costFloor of costFloors) steps.push({ kind: "floor", floor: costFloor });
      }
    }
  }
  return steps;
}

/** The group's scenarios in order, each joining the block of one it alternates with (either naming the other). */
function alternatingBlocks(group: readonly PlannedScenario[]): PlannedScenario[][] {
  const blocks: PlannedScenario[][] = [];
  for (const scenario of group) {
    const alternates = (other: PlannedScenario) => scenario.alternatesWith === other.name || other.alternatesWith === scenario.name;
    const block = blocks.find((b) => b.some(alternates));
    if (block) block.push(scenario);
    else blocks.push([scenario]);
  }
  return blocks;
}
