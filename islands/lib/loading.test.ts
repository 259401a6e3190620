import { beforeEach, describe, expect, it } from "vitest";
import { setLoading } from "./loading";

describe("setLoading", () => {
  beforeEach(() => {
    document.body.innerHTML =
      '<div id="loading-overlay" class="loading-overlay" hidden></div><main id="main"></main>';
  });

  const overlay = () => document.getElementById("loading-overlay")!;
  const main = () => document.getElementById("main")!;

  it("shows the overlay and marks main busy", () => {
    setLoading(true);
    expect(overlay().hidden).toBe(false);
    expect(main().getAttribute("aria-busy")).toBe("true");
  });

  it("hides it again and clears aria-busy", () => {
    setLoading(true);
    setLoading(false);
    expect(overlay().hasAttribute("hidden")).toBe(true);
    expect(main().hasAttribute("aria-busy")).toBe(false);
  });

  it("is idempotent", () => {
    setLoading(true);
    setLoading(true);
    expect(overlay().hidden).toBe(false);
    setLoading(false);
    setLoading(false);
    expect(overlay().hidden).toBe(true);
  });

  it("ignores pages without the overlay or main", () => {
    document.body.innerHTML = "";
    expect(() => setLoading(true)).not.toThrow();
    expect(() => setLoading(false)).not.toThrow();
  });
});
