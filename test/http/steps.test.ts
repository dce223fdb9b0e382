import { describe, expect, it } from "vitest";
import type { Exchange } from "../../src/http-kit/exchange.ts";
import { steps, type Partway } from "../../src/http-kit/steps.ts";

/** An exchange whose response only knows whether it was answered. */
function exchange(): Exchange {
  return { res: { headersSent: false }, req: {}, reqId: "r", path: "/", body: undefined } as unknown as Exchange;
}
const answer = (ex: Exchange) => {
  (ex.res as { headersSent: boolean }).headersSent = true;
};

describe("step tables", () => {
  it("merges what each step returns into the one context the caller handed in, for the steps after it", async () => {
    const seen: unknown[] = [];
    const table = steps<{ ex: Exchange; start: number }>()
      .step((ctx) => ({ doubled: ctx.start * 2 }))
      .step(async (ctx) => ({ label: `n${ctx.doubled}` }))
      .step(() => undefined)
      .step((ctx) => {
        seen.push(ctx.start, ctx.doubled, ctx.label);
      });
    const ctx: Partway<typeof table> = { ex: exchange(), start: 21 };
    await table.run(ctx);
    expect(seen).toEqual([21, 42, "n42"]);
    expect(ctx).toMatchObject({ start: 21, doubled: 42, label: "n42" });
  });

  it("lets a later step replace a field an earlier one added", async () => {
    const table = steps<{ ex: Exchange }>()
      .step(() => ({ session: "s" as string | undefined }))
      .step(() => ({ session: undefined }));
    const ctx: Partway<typeof table> = { ex: exchange() };
    await table.run(ctx);
    expect(ctx.session).toBeUndefined();
  });

  it("ends the run at the step that answered, synchronously or not", async () => {
    for (const answering of [(ex: Exchange) => answer(ex), async (ex: Exchange) => answer(ex)]) {
      let after = false;
      const table = steps<{ ex: Exchange }>()
        .step((ctx) => answering(ctx.ex))
        .step(() => {
          after = true;
        });
      await table.run({ ex: exchange() });
      expect(after).toBe(false);
    }
  });

  it("leaves what the steps before a throw added on the context, for the error's answer", async () => {
    const table = steps<{ ex: Exchange }>()
      .step(() => ({ client: "c" }))
      .step(() => {
        throw new Error("refused");
      })
      .step(() => ({ never: true }));
    const ctx: Partway<typeof table> = { ex: exchange() };
    await expect(table.run(ctx)).rejects.toThrow("refused");
    expect(ctx.client).toBe("c");
    expect(ctx.never).toBeUndefined();
  });

  it("runs a table of synchronous steps without waiting for a promise between them", async () => {
    const order: string[] = [];
    const table = steps<{ ex: Exchange }>()
      .step(() => ({ a: order.push("a") }))
      .step(() => ({ b: order.push("b") }));
    const run = table.run({ ex: exchange() });
    order.push("returned");
    await run;
    expect(order).toEqual(["a", "b", "returned"]);
  });

  it("builds a new table with each step, leaving the one it extends as it was", async () => {
    const base = steps<{ ex: Exchange }>().step(() => ({ a: 1 }));
    let extended = false;
    base.step(() => {
      extended = true;
    });
    await base.run({ ex: exchange() });
    expect(extended).toBe(false);
  });
});
