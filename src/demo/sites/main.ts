/**
 * `npm run demo-sites -- [--provider URL] [--channel-service URL] [--demo-web-port 3005] [--fourth-party-port 3006] [--host H]`:
 * the demo third-party site (demo-web's custom QR login pages) and the fourth-party site of the channel
 * use case, in one process. Defaults: $PORTCULLIS_ISSUER or http://localhost:3000, and
 * $CHANNEL_SERVICE_URL or http://localhost:4100 (npm run channel-service).
 */
import { parseArgs } from "node:util";
import { startDemoSites } from "./start-demo-sites.ts";

const USAGE =
  "usage: npm run demo-sites -- [--provider http://localhost:3000] [--channel-service http://localhost:4100] [--demo-web-port 3005] [--fourth-party-port 3006] [--host 127.0.0.1]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      provider: { type: "string", default: process.env.PORTCULLIS_ISSUER ?? "http://localhost:3000" },
      "channel-service": { type: "string", default: process.env.CHANNEL_SERVICE_URL ?? "http://localhost:4100" },
      "demo-web-port": { type: "string", default: "3005" },
      "fourth-party-port": { type: "string", default: "3006" },
      host: { type: "string", default: "127.0.0.1" },
    },
  });
  const ports = [values["demo-web-port"], values["fourth-party-port"]].map(Number);
  const urls = [values.provider, values["channel-service"]];
  if (!urls.every((u) => /^https?:\/\//.test(u)) || !ports.every((p) => Number.isInteger(p) && p >= 0 && p <= 65535))
    throw new Error(USAGE);
  const sites = await startDemoSites({
    provider: values.provider,
    channelService: values["channel-service"],
    host: values.host,
    ports: { demoWeb: ports[0], fourthParty: ports[1] },
  });
  process.stdout.write(
    `demo-sites: ${sites.demoWebUrl}/custom-login (and /custom-login/legacy), ${sites.fourthPartyUrl}/ — provider ${values.provider}\n`,
  );
  const stop = () => void sites.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  // One line, no stack: the usual causes are a bad argument, a busy port or jQuery not installed.
  const code = (error as { code?: unknown }).code;
  process.stderr.write(`demo-sites: ${code === "EADDRINUSE" ? "a port is in use" : (error as Error).message}\n`);
  process.exit(1);
});
