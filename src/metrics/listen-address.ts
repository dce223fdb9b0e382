/** `metrics.listen` (`host:port`, `[v6]:port`; the schema checks its form) as what server.listen takes. */
export function listenAddress(listen: string): { host: string; port: number } {
  const colon = listen.lastIndexOf(":");
  const host = listen.slice(0, colon);
  return { host: host.startsWith("[") ? host.slice(1, -1) : host, port: Number(listen.slice(colon + 1)) };
}
