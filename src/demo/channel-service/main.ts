/**
 * `npm run channel-service -- [--issuer URL] [--channels FILE] [--port N] [--host H] [--audience NAME] [--public-url URL]`:
 * the reference channel-account service (SPEC: {channel_url}). It serves the channel directory of the
 * provider's http adapter, /mp_login/channelinfo, SendMsg and the approval pages, and the channel selector
 * page; it accepts only access tokens of `--issuer` (default $PORTCULLIS_ISSUER, else the demo provider
 * http://localhost:3000). The selector's client secret comes from $CHANNEL_SELECT_SECRET (default the demo's).
 */
import { parseArgs } from "node:util";
import { DEMO_CHANNEL_CLIENT, startChannelService } from "./start-channel-service.ts";

const USAGE =
  "usage: npm run channel-service -- [--issuer http://localhost:3000] [--channels config/channels.yaml] [--port 4100] [--host 127.0.0.1] [--audience channel-service] [--public-url http://localhost:<port>]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      issuer: { type: "string", default: process.env.PORTCULLIS_ISSUER ?? "http://localhost:3000" },
      channels: { type: "string", default: "config/channels.yaml" },
      port: { type: "string", default: "4100" },
      host: { type: "string", default: "127.0.0.1" },
      audience: { type: "string", default: "channel-service" },
      "public-url": { type: "string" },
    },
  });
  const port = Number(values.port);
  if (!/^https?:\/\//.test(values.issuer) || !/^\d+$/.test(values.port) || port > 65535) throw new Error(USAGE);
  const secret = process.env.CHANNEL_SELECT_SECRET;
  const service = await startChannelService({
    channelsFile: values.channels,
    issuer: values.issuer,
    audience: values.audience,
    host: values.host,
    port,
    ...(values["public-url"] && { publicUrl: values["public-url"] }),
    ...(secret && { selectClient: { id: DEMO_CHANNEL_CLIENT.id, secret } }),
  });
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
