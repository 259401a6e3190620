import { describe, expect, it } from "vitest";
import { ICON_NAMES, isIconName } from "./icons";

describe("ICON_NAMES", () => {
  it("lists SPEC.md §9's names once each, snake_case", () => {
    expect(ICON_NAMES.length).toBe(68);
    expect(new Set(ICON_NAMES).size).toBe(ICON_NAMES.length);
    for (const n of ICON_NAMES) expect(n).toMatch(/^[a-z0-9_]+$/);
  });

  it("includes the icons the snackbar uses", () => {
    for (const n of ["check_circle", "warning", "info"]) expect(isIconName(n)).toBe(true);
    expect(isIconName("no_such_icon")).toBe(false);
  });
});
