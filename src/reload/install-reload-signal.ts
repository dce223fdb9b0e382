import type { ProviderReloader } from "./provider-reloader.ts";

/**
 * Reloads on SIGHUP: in `portcullis start`, and in each worker process (node:cluster), to which the
 * primary forwards the operator's SIGHUP. The outcome is logged and recorded by the reload itself; a
 * refused reload leaves the process serving the old policy. Returns the function that uninstalls it.
 */
export function installReloadSignal(running: Pick<ProviderReloader, "reload">): () => void {
  const onHangup = () => void running.reload();
  process.on("SIGHUP", onHangup);
  return () => process.off("SIGHUP", onHangup);
}
