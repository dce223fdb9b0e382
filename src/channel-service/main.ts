/**
 * `npm run channel-service -- --issuer URL [--channels FILE] [--port N] [--host H] [--audience NAME]`:
 * the reference channel-account service (SPEC: {channel_url}). It serves the channel directory of the
 * provider's http adapter and /mp_login/channelinfo, and accepts only access tokens of `--issuer`.
 */
import { parseArgs } from "node:util";
import { startChannelService } from "./start-channel-service.ts";

const USAGE = "usage: npm run channel-service -- --issuer URL [--channels config/channels.yaml] [--port 4100] [--host 127.0.0.1] [--audience channel-service]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      issuer: { type: "string" },
      channels: { type: "string", default: "config/channels.yaml" },
      port: { type: "string", default: "4100" },
      host: { type: "string", default: "127.0.0.1" },
      audience: { type: "string", default: "channel-service" },
    },
  });
  const port = Number(values.port);
  if (!values.issuer || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(USAGE);
  const service = await startChannelService({ channelsFile: values.channels, issuer: values.issuer, audience: values.audience, host: values.host, port });
  process.stdout.write(`channel-service: listening on ${service.url}, accepting access tokens of ${values.issuer}\n`);
  const stop = () => void service.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  // One line, no stack: the usual causes are a bad argument, a bad file or a busy port.
  const code = (error as { code?: unknown }).code;
  process.stderr.write(`channel-service: ${code === "EADDRINUSE" ? "the port is in use" : (error as Error).message}\n`);
  process.exit(1);
});
