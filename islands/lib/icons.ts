// The icon names of SPEC.md §9. icon-names.json is the single list: islands/icons.mjs
// builds the sprite from it and the Go side reads it too.
import names from "./icon-names.json";

export const ICON_NAMES: readonly string[] = names;

export function isIconName(name: string): boolean {
  return ICON_NAMES.includes(name);
}
