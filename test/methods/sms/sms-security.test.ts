import { codeMethodSecuritySuite } from "../../support/code-method-suite.ts";
import { startSmsTestGateway } from "../../support/sms-test-gateway.ts";

/** The SMS method against a real HTTP gateway on loopback (see the suite for what is attacked). */
codeMethodSecuritySuite({
  methodId: "sms",
  aliceTarget: "+447700900123",
  async startChannel() {
    const gateway = await startSmsTestGateway();
    return {
      delivery: { kind: "http", url: `${gateway.url}/v1/messages`, headers: { Authorization: "Bearer test-gateway-token" } },
      textsTo: (to) => gateway.messagesTo(to).map((m) => m.text),
      count: () => gateway.requests.length,
      setFailing(failing) {
        gateway.status = failing ? 500 : 202;
      },
      close: () => gateway.close(),
    };
  },
});
