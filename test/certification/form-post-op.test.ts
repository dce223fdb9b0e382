/**
 * The Form Post OP certification profile (the suite's oidcc-formpost-basic-certification-test-plan): the
 * Basic OP plan's modules with response_mode=form_post, each response posted to the RP as a browser posts
 * the page's form (POST, urlencoded, to the redirect_uri) and checked there. Errors included: a declined
 * request object comes back in form_post with state, as the request object itself asked.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { basicOpModules } from "./basic-op-modules.ts";
import { startCertificationStand, type CertificationStand } from "./certification-stand.ts";

describe("Form Post OP (oidcc-formpost-basic-certification-test-plan)", { timeout: 60_000 }, () => {
  let stand: CertificationStand;

  beforeAll(async () => {
    stand = await startCertificationStand();
  });
  afterAll(async () => {
    await stand?.close();
  });

  for (const module of basicOpModules("form_post")) it(module.name, () => module.run(stand));
});
