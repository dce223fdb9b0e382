import { describe, expect, it } from "vitest";
import { BoundedLabel } from "../../src/metrics/bounded-label.ts";
import { pageRouteLabel } from "../../src/http/page-route-label.ts";

describe("bounded metric labels", () => {
  it("admits the first N distinct values and reports later ones as other", () => {
    const label = new BoundedLabel(2);
    expect([label.of("a"), label.of("b"), label.of("c"), label.of("a"), label.of("b"), label.of("d")]).toEqual([
      "a",
      "b",
      "other",
      "a",
      "b",
      "other",
    ]);
  });

  it("labels a page path by its area's template, never by the path itself", () => {
    expect(pageRouteLabel("/interaction/abc123")).toBe("/interaction/*");
    expect(pageRouteLabel("/interaction")).toBe("/interaction");
    expect(pageRouteLabel("/methods/totp/enroll")).toBe("/methods/*");
    expect(pageRouteLabel("/account")).toBe("/account");
    expect(pageRouteLabel("/interactionX")).toBe("other");
    expect(pageRouteLabel("/wp-admin/setup.php")).toBe("other");
  });
});
