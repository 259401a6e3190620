// Builds static/dist/icons.svg: one <symbol> per name in islands/lib/icon-names.json
// (SPEC.md §9), taken from @material-symbols/svg-400 (outlined, weight 400).
// Pages and islands reference them as <svg class="icon"><use href="/static/icons.HASH.svg#NAME"/></svg>.
// Run on its own with `node islands/icons.mjs`; islands/build.mjs calls buildIconSprite().
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const require = createRequire(import.meta.url);
const symbolsDir = join(dirname(require.resolve("@material-symbols/svg-400/package.json")), "outlined");

export const ICON_NAMES_FILE = join(here, "lib", "icon-names.json");
export const SPRITE_FILE = join(root, "static", "dist", "icons.svg");

// SPEC.md names that are not (or no longer) Material Symbols names, mapped to the closest
// real symbol. `fill: true` takes the filled variant (file NAME-fill.svg).
export const ALIASES = {
  add_circle_inversion: { symbol: "add_circle", fill: true },
  arrow_down: { symbol: "keyboard_arrow_down" },
  arrow_up: { symbol: "keyboard_arrow_up" },
  // The legacy Material Icons brightness_1 is a solid dot; the Symbols outline is a ring.
  brightness_1: { symbol: "brightness_1", fill: true },
  check_circle_outline: { symbol: "check_circle" },
  chevron_down: { symbol: "keyboard_arrow_down" },
  close_circle: { symbol: "cancel" },
  expand_less: { symbol: "keyboard_arrow_up" },
  expand_more: { symbol: "keyboard_arrow_down" },
  help_circle: { symbol: "help" },
  receipt_long_blue: { symbol: "receipt_long" }, // the colour comes from CSS, not the glyph
  warning_filled: { symbol: "warning", fill: true },
};

const VIEW_BOX = "0 -960 960 960";

function sourceFile(name) {
  const alias = ALIASES[name] ?? { symbol: name };
  return join(symbolsDir, `${alias.symbol}${alias.fill ? "-fill" : ""}.svg`);
}

// Returns the inner markup of one source SVG with any fill removed, so the glyph takes
// the symbol's fill="currentColor" (i.e. the CSS `color` where the icon is used).
function symbolBody(name, file) {
  let svg;
  try {
    svg = readFileSync(file, "utf8");
  } catch {
    throw new Error(`icons: no Material Symbol for "${name}" (looked for ${relative(root, file)})`);
  }
  const m = /^\s*<svg\b([^>]*)>([\s\S]*)<\/svg>\s*$/.exec(svg);
  if (!m) throw new Error(`icons: ${relative(root, file)} is not a single <svg> element`);
  const viewBox = /\bviewBox="([^"]*)"/.exec(m[1])?.[1];
  if (viewBox !== VIEW_BOX) {
    throw new Error(`icons: ${relative(root, file)} has viewBox "${viewBox}", want "${VIEW_BOX}"`);
  }
  const body = m[2].replace(/\s+fill="[^"]*"/g, "").trim();
  if (!body.includes("<path")) throw new Error(`icons: ${relative(root, file)} has no <path>`);
  return body;
}

export function readIconNames() {
  const names = JSON.parse(readFileSync(ICON_NAMES_FILE, "utf8"));
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string" || !/^[a-z0-9_]+$/.test(n))) {
    throw new Error(`icons: ${relative(root, ICON_NAMES_FILE)} must be a JSON array of snake_case names`);
  }
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`icons: "${dup}" is listed twice in ${relative(root, ICON_NAMES_FILE)}`);
  return names;
}

/** Writes the sprite; throws (failing the build) if any listed name has no symbol. */
export function buildIconSprite({ outFile = SPRITE_FILE, log = console.log } = {}) {
  const names = readIconNames();
  const missing = [];
  const symbols = [];
  for (const name of names) {
    try {
      symbols.push(`<symbol id="${name}" viewBox="${VIEW_BOX}" fill="currentColor">${symbolBody(name, sourceFile(name))}</symbol>`);
    } catch (err) {
      missing.push(err.message);
    }
  }
  if (missing.length > 0) throw new Error(missing.join("\n"));

  const sprite =
    `<svg xmlns="http://www.w3.org/2000/svg" style="display:none">\n` + symbols.join("\n") + `\n</svg>\n`;
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, sprite);
  const raw = Buffer.byteLength(sprite);
  const gzip = gzipSync(sprite, { level: 9 }).length;
  log(`${relative(root, outFile)}  ${names.length} icons  ${formatBytes(raw)} raw  ${formatBytes(gzip)} gzip`);
  return { file: outFile, count: names.length, raw, gzip };
}

export function formatBytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(2)} KiB`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildIconSprite();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
