import type { AuditEvent } from "../../audit/audit-event.ts";
import type { KeyRing } from "../../tokens/key-rotation.ts";
import { DEFAULT_SIGNING_ALG, isSigningAlg, SIGNING_ALGS } from "../../crypto/signing-alg.ts";
import { KEY_SYNC_EVERY_MS } from "../../tokens/key-manager.ts";
import { retireKey, rotateRing, unpublishKey, type RetireOutcome, type RotateOutcome } from "../../tokens/key-ring-actions.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { openKeyRing, type OpenedKeyRing } from "../keys/open-key-ring.ts";
import { formatKeyRing, formatSpan, formatStaticKeys, formatTime } from "../keys/format-keys.ts";
import { CONFIG_OPTION } from "./config-options.ts";

const USAGE = "keys list | keys rotate [--alg ALG] [--now] | keys retire KID [--unpublish]";
/** How long to wait for a node's scheduled rotation holding the ring's lock. */
const LOCK_WAIT_MS = 10_000;
const SYNC_NOTE = `Running nodes pick the change up at their next sync of the key ring (within ${KEY_SYNC_EVERY_MS / 1000} s).`;

/**
 * `portcullis keys list|rotate|retire`: the generated signing keys in the store, operated by hand.
 * list shows each key's state and times (never key material); rotate promotes the next key, published
 * ahead of use, and publishes a fresh next one (src/tokens/key-ring-actions.ts says when it only
 * announces); retire takes one key out of signing early. Writes take the ring's store lock, as every
 * node's KeyManager does. With the embedded store the provider must be stopped first (it holds the data
 * directory); with Redis or PostgreSQL it runs alongside. Static keys (keys.static) are rotated by
 * editing provider.yaml. Each algorithm (RS256, PS256, ES256) has keys of its own: rotate turns one
 * algorithm's over (RS256, which every client that names none uses, unless --alg names another), and
 * retire hands over to the next key of the retired key's algorithm.
 */
export const keysCommand: Command = {
  name: "keys",
  summary: "list, rotate or retire the signing keys (operator)",
  positionals: { usage: "list|rotate|retire [KID]", max: 2 },
  options: {
    ...CONFIG_OPTION,
    alg: {
      type: "string",
      valueName: "ALG",
      description: `rotate: the algorithm whose keys rotate, one of ${SIGNING_ALGS.join(", ")} (default: ${DEFAULT_SIGNING_ALG})`,
    },
    now: { type: "boolean", description: "rotate: sign with a new key at once, even one not yet published for keys.announce_for" },
    unpublish: {
      type: "boolean",
      description: "retire: also take the key out of the JWKS at once (suspected compromise): what it signed stops verifying",
    },
  },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action, kid] = positionals;
    if (!action || !["list", "rotate", "retire"].includes(action) || (action === "retire") !== (kid !== undefined)) {
      throw new CliError(`expected ${USAGE}`, { showUsage: true });
    }
    if (values.now && action !== "rotate") throw new CliError("--now goes with keys rotate", { showUsage: true });
    if (values.unpublish && action !== "retire") throw new CliError("--unpublish goes with keys retire", { showUsage: true });
    if (values.alg !== undefined && action !== "rotate") throw new CliError("--alg goes with keys rotate", { showUsage: true });
    const alg = values.alg ?? DEFAULT_SIGNING_ALG;
    if (!isSigningAlg(alg)) throw new CliError(`--alg must be one of ${SIGNING_ALGS.join(", ")}`, { showUsage: true });
    const { configDir } = resolveCliSettings(values, env);
    const opened = await openKeyRing(configDir, env, stderr);
    if (!opened) return 1;
    try {
      if (opened.staticKeys) return staticKeys(opened, action, stdout);
      const stored = await opened.ring.read();
      if (!stored) throw new CliError("no signing keys in the store yet: the provider generates the first one when it starts");
      if (action === "list") {
        stdout.write(formatKeyRing(stored, opened.policy.retainFor, Date.now()));
        stdout.write(
          `Every key listed but an unpublished one is in the JWKS; a retired one until what it signed has expired. ${SYNC_NOTE}\n`,
        );
        return 0;
      }
      const generate = opened.ring.generate.bind(opened.ring);
      if (action === "rotate") {
        return report(
          await change(opened, (ring, now) =>
            rotateRing(ring, { alg, now, announceFor: opened.policy.announceFor, force: values.now === true, generate }),
          ),
          opened,
          stdout,
        );
      }
      const unpublish = values.unpublish === true;
      return retired(
        await change(opened, (ring, now) => (unpublish ? unpublishKey : retireKey)(ring, kid!, { now, generate })),
        kid!,
        unpublish,
        opened,
        stdout,
      );
    } finally {
      await opened.audit.close();
      await opened.store.close();
    }
  },
};

/** Applies an action to the stored ring under its lock, waiting a little for a node that holds it. */
async function change<T extends { kind: string; ring?: KeyRing }>(
  opened: OpenedKeyRing,
  action: (ring: KeyRing, now: number) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    let outcome: T | undefined;
    const done = await opened.ring.update(async (stored) => {
      if (!stored) throw new CliError("the store lost the key ring meanwhile: start a node, which restores it, then try again");
      outcome = await action(stored, Date.now());
      return outcome.ring;
    });
    if (done) return outcome!;
    if (Date.now() > deadline)
      throw new CliError("another process is writing the signing keys (a node's scheduled rotation, or another operator): try again");
    await new Promise((r) => setTimeout(r, 250));
  }
}

function report(outcome: RotateOutcome, opened: OpenedKeyRing, stdout: NodeJS.WritableStream): number {
  const announceFor = opened.config.provider.keys.announce_for;
  if (outcome.kind === "too-early") {
    const after = formatTime(outcome.next.createdAt + opened.policy.announceFor);
    throw new CliError(
      `the next key ${outcome.next.kid} has been published for only ${formatSpan(outcome.publishedFor)} (keys.announce_for: ${announceFor}): relying parties that cached the JWKS may not know it yet. Run keys rotate again after ${after}, or with --now to sign with it anyway`,
    );
  }
  if (outcome.kind === "announced") {
    stdout.write(`Generated the next key ${outcome.next.kid}; it is published in the JWKS ahead of use.\n`);
    stdout.write(
      `It may sign once relying parties' JWKS caches know it: run keys rotate again after ${formatTime(outcome.next.createdAt + opened.policy.announceFor)} (keys.announce_for: ${announceFor}),\n`,
    );
    stdout.write(
      "or keys rotate --now to sign with it at once (relying parties with a cached JWKS reject its tokens until they fetch it again).\n",
    );
    stdout.write(`${SYNC_NOTE}\n`);
    audit(opened, stdout, { type: "key.rotated", kid: outcome.next.kid, status: "next", by: "operator" });
    return 0;
  }
  stdout.write(
    `Rotated: ${outcome.current.kid} signs from now on; ${outcome.retired.kid} is retired and stays published until ${formatTime(outcome.retired.retiredAt! + opened.policy.retainFor)}, so the tokens it signed verify until they expire.\n`,
  );
  if (outcome.forced)
    stdout.write(
      `Warning (--now): ${outcome.current.kid} may not have been fetched by relying parties yet; those with a cached JWKS reject its tokens until they fetch it again.\n`,
    );
  stdout.write(`Published ${outcome.next.kid} as the next key, ahead of the following rotation.\n${SYNC_NOTE}\n`);
  for (const k of [outcome.current, outcome.retired, outcome.next])
    audit(opened, stdout, { type: "key.rotated", kid: k.kid, status: k.status, by: "operator" });
  return 0;
}

function retired(outcome: RetireOutcome, kid: string, unpublished: boolean, opened: OpenedKeyRing, stdout: NodeJS.WritableStream): number {
  if (outcome.kind === "unknown-kid") throw new CliError(`no key "${kid}" in the key ring (keys list shows them)`);
  if (outcome.kind === "already-retired") throw new CliError(`${kid} is already retired`);
  if (outcome.kind === "only-signing-key") {
    throw new CliError(
      `${kid} is the only key that can sign (there is no next key to take over): run keys rotate first (--now to replace it at once), then retire it if it is still current`,
    );
  }
  if (unpublished) {
    stdout.write(
      `Unpublished ${kid}: it signs nothing more and leaves the JWKS, so nothing it signed verifies any more (clients refresh or users sign in again).\n`,
    );
    stdout.write("Relying parties that cached the JWKS accept it until they fetch it again.\n");
  } else {
    stdout.write(
      `Retired ${kid}: it signs nothing more and stays published until ${formatTime(outcome.retired.retiredAt! + opened.policy.retainFor)}, so the tokens it signed verify until they expire.\n`,
    );
  }
  if (outcome.promoted) stdout.write(`${outcome.promoted.kid} signs from now on; ${outcome.next!.kid} is published as the next key.\n`);
  stdout.write(`${SYNC_NOTE}\n`);
  audit(opened, stdout, { type: "key.rotated", kid: outcome.retired.kid, status: unpublished ? "unpublished" : "retired", by: "operator" });
  for (const k of [outcome.promoted, outcome.next])
    if (k) audit(opened, stdout, { type: "key.rotated", kid: k.kid, status: k.status, by: "operator" });
  return 0;
}

/** The audit event of each change: recorded on the configured audit trail, and printed for the operator. */
function audit(opened: OpenedKeyRing, stdout: NodeJS.WritableStream, event: AuditEvent): void {
  opened.audit.record(event);
  stdout.write(`audit: ${JSON.stringify(event)}\n`);
}

function staticKeys(opened: OpenedKeyRing, action: string, stdout: NodeJS.WritableStream): number {
  if (action === "list") {
    stdout.write(formatStaticKeys(opened.staticKeys!));
    return 0;
  }
  throw new CliError(
    "the signing keys are static (keys.static in provider.yaml): rotate them by editing provider.yaml — add the new key as next, restart or reload the nodes, and after keys.announce_for make it current and the old one retired; remove a retired key once what it signed has expired",
  );
}
