/**
 * The Basic OP certification profile (the suite's oidcc-basic-certification-test-plan: code flow,
 * client_secret_basic, default response mode, static clients), one test per module in the plan's order,
 * against the issuer on https. The modules are in basic-op-modules.ts (the Form Post OP plan runs them too).
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { basicOpModules } from "./basic-op-modules.ts";
import { startCertificationStand, type CertificationStand } from "./certification-stand.ts";

describe("Basic OP (oidcc-basic-certification-test-plan)", { timeout: 60_000 }, () => {
  let stand: CertificationStand;

  beforeAll(async () => {
    stand = await startCertificationStand();
  });
  afterAll(async () => {
    await stand?.close();
  });

  for (const module of basicOpModules("default")) it(module.name, () => module.run(stand));
});
