// Converts the bank and branch codes of the npm package zengin-code into the compact file
// the Go package banks embeds (`npm run build`; DESIGN §3 "bank & branch codes").
//
//   ZENGIN_SRC   the package's folder (default node_modules/zengin-code)
//   writes       banks/data/zengin.json.gz (build output, not committed)
//
// zengin-code's lib/zengin-data.js is one CommonJS object, as lib/zengin-code.js exports it:
//   {"0001": {"code": "0001", "name": "みずほ", "kana": "ミズホ", "hira": "みずほ", "roma": "mizuho",
//             "branches": {"001": {"code": "001", "name": "東京営業部", "kana": "トウキヨウ",
//                                  "hira": "とうきよう", "roma": "toukiyou"}, …}}, …}
// Its keys are not in code order (JavaScript lists "1000" before "0001"), so both levels are
// sorted here. Names are zengin's short forms: banks without 銀行, the others with their kind
// already abbreviated (北海道信金, かとり農協); the Go side documents how it displays them.
//
// Output, gzipped JSON:
//   {"source": "zengin-code@1.0.0-p20260824",
//    "banks": [["0001", "みずほ", "ミズホ", "", "mizuho",
//               [["001", "東京営業部", "トウキヨウ", "", "toukiyou"], …]], …]}
// Each bank is [code, name, kana, hira, roma, branches] and each branch [code, name, kana,
// hira, roma], both sorted by code. hira is "" where it is kana written in hiragana (ァ…ン
// shifted to ぁ…ん, as zengin-code derives it; in 1.0.0-p20260824 that is every entry), which
// takes a quarter off the gzipped size; the Go side derives it the same way.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { formatBytes } from "./icons.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = resolve(root, process.env.ZENGIN_SRC || "node_modules/zengin-code");
const outFile = join(root, "banks", "data", "zengin.json.gz");

// Katakana ァ (U+30A1) … ン (U+30F3) sit 0x60 above their hiragana; ヴ, ヵ, ヶ, the long mark
// and full-width letters are kept, as in zengin-code's hira.
export const toHiragana = (kana) =>
  kana.replace(/[\u30A1-\u30F3]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));

const byCode = (a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

export function convert(data) {
  const fail = (msg) => {
    throw new Error(`zengin-code: ${msg} (has the package's format changed?)`);
  };

  // One entry, checked: what the Go side relies on is here or the build stops.
  const entry = (e, digits, where) => {
    if (!e || typeof e !== "object") fail(`${where}: not an object`);
    if (typeof e.code !== "string" || !new RegExp(`^\\d{${digits}}$`).test(e.code)) {
      fail(`${where}: code ${JSON.stringify(e.code)} is not ${digits} digits`);
    }
    for (const field of ["name", "kana", "hira", "roma"]) {
      if (typeof e[field] !== "string") fail(`${where}: no ${field}`);
    }
    if (!e.name || !e.kana) fail(`${where}: empty name or kana`);
    return [e.code, e.name, e.kana, e.hira === toHiragana(e.kana) ? "" : e.hira, e.roma];
  };

  let branchCount = 0;
  const banks = Object.entries(data)
    .map(([key, bank]) => {
      if (bank?.code !== key) fail(`bank ${key}: code ${JSON.stringify(bank?.code)}`);
      return bank;
    })
    .sort(byCode)
    .map((bank) => {
      const branches = Object.entries(bank.branches ?? fail(`bank ${bank.code}: no branches`))
        .map(([key, branch]) => {
          if (branch?.code !== key) fail(`branch ${bank.code}-${key}: code ${JSON.stringify(branch?.code)}`);
          return branch;
        })
        .sort(byCode)
        .map((branch) => entry(branch, 3, `branch ${bank.code}-${branch.code}`));
      branchCount += branches.length;
      return [...entry(bank, 4, `bank ${bank.code}`), branches];
    });
  if (banks.length < 1000 || branchCount < 20000) {
    fail(`only ${banks.length} banks and ${branchCount} branches`);
  }
  return { banks, branchCount };
}

function main() {
  if (!existsSync(join(src, "lib", "zengin-data.js"))) {
    console.error(
      `islands/zengin.mjs: zengin-code not found in ${relative(root, src) || src}.\n` +
        `Run \`npm ci\` (it is a devDependency), or point ZENGIN_SRC at an unpacked copy of the package.`,
    );
    process.exit(1);
  }
  const started = performance.now();
  const { version } = JSON.parse(readFileSync(join(src, "package.json"), "utf8"));
  // The data is CommonJS (module.exports = {…}); require reads it as the package's users do.
  const data = createRequire(join(src, "package.json"))("./lib/zengin-data.js");
  const { banks, branchCount } = convert(data);
  const json = Buffer.from(JSON.stringify({ source: `zengin-code@${version}`, banks }));
  // gzip's header carries no file name or time here, so the same input gives the same bytes.
  const gz = gzipSync(json, { level: 9 });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, gz);
  console.log(
    `${relative(root, outFile)}  zengin-code@${version}: ${banks.length} banks, ${branchCount} branches  ` +
      `${formatBytes(json.length)} raw  ${formatBytes(gz.length)} gzip  ${Math.round(performance.now() - started)} ms`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (err) {
    console.error(`islands/zengin.mjs: ${err.message}`);
    process.exit(1);
  }
}
