import type { Provider } from "../../provider.ts";
import { MachineArchive, machineArchiveDir } from "../../diagrams/machine-archive.ts";

/** Where each flow version a login runs is kept for `portcullis audit trace` (once per version and process; a failed write only warns). */
export function loginFlowArchive(provider: Provider): MachineArchive {
  return new MachineArchive(machineArchiveDir(provider.config.provider.data_dir), (err) =>
    provider.logger.warn({ err }, "could not archive a login flow version; portcullis audit trace will draw the current version instead"),
  );
}
