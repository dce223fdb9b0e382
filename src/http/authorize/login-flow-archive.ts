import type { Infra } from "../../infra/infra.ts";
import { MachineArchive, machineArchiveDir } from "../../diagrams/machine-archive.ts";

/** Where each flow version a login runs is kept for `portcullis audit trace` (once per version and process; a failed write only warns). */
export function loginFlowArchive(infra: Infra): MachineArchive {
  return new MachineArchive(machineArchiveDir(infra.settings.data_dir), (err) =>
    infra.logger.warn({ err }, "could not archive a login flow version; portcullis audit trace will draw the current version instead"),
  );
}
