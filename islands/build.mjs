// Builds the React islands and the icon sprite into static/dist/ (`npm run build`).
//
//   static/dist/islands/<island>-<hash>.js        one ES module entry per islands/<island>/index.ts(x)
//   static/dist/islands/chunks/<name>-<hash>.js   shared code (React) and lazily loaded components
//   static/dist/islands/manifest.json             what the server reads to resolve an island's URLs
//   static/dist/icons.svg                         the icon sprite (islands/icons.mjs)
//
// manifest.json, paths relative to static/dist/:
//   {"snackbar": {"file": "islands/snackbar-AB12CD.js",
//                 "imports": ["islands/chunks/chunk-XYZ.js"],          static imports, transitive:
//                                                                        <link rel="modulepreload">
//                 "dynamicImports": ["islands/chunks/Snackbar-QRS.js"]}} loaded by boot() right away;
//                                                                        preloading them saves a round trip
import * as esbuild from "esbuild";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { buildIconSprite, formatBytes } from "./icons.mjs";

const islandsDir = dirname(fileURLToPath(import.meta.url));
const root = join(islandsDir, "..");
const distDir = join(root, "static", "dist");
const outDir = join(distDir, "islands");

// Not islands: shared code, and folders tooling may create.
const NOT_ISLANDS = new Set(["lib", "node_modules"]);

// With a single island, esbuild would inline React into that island's entry (code is only
// split out when two entry points share it). This internal entry shares React, react-dom and
// mount.ts with every island, so they always land in a cached chunk and each entry stays
// ~0.5 KB. Its own output is a list of re-exports nobody loads; it is deleted after the build.
const SHARED_ENTRY = "__shared";
const sharedEntryFile = join(islandsDir, "lib", "shared-entry.ts");

export function findIslands() {
  const islands = {};
  for (const dirent of readdirSync(islandsDir, { withFileTypes: true })) {
    if (!dirent.isDirectory() || NOT_ISLANDS.has(dirent.name) || dirent.name.startsWith(".")) continue;
    if (!/^[a-z][a-z0-9-]*$/.test(dirent.name)) {
      throw new Error(`islands/${dirent.name}: island folder names are kebab-case (they are data-island values)`);
    }
    const index = ["index.ts", "index.tsx"].map((f) => join(islandsDir, dirent.name, f)).find(existsSync);
    if (index) islands[dirent.name] = index;
  }
  return islands;
}

async function build() {
  const started = performance.now();
  const islands = findIslands();
  if (Object.keys(islands).length === 0) throw new Error("no islands found (islands/<name>/index.ts)");

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { ...islands, [SHARED_ENTRY]: sharedEntryFile },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    charset: "utf8", // module scripts are always decoded as UTF-8; keeps Japanese text small
    jsx: "automatic",
    entryNames: "[name]-[hash]",
    chunkNames: "chunks/[name]-[hash]",
    define: { "process.env.NODE_ENV": '"production"' },
    metafile: true,
    logLevel: "warning",
  });

  const manifest = {};
  const outputs = result.metafile.outputs; // keys relative to absWorkingDir
  const fromDist = (p) => relative(distDir, join(root, p)).split("\\").join("/");
  const entryOf = {};
  for (const [out, meta] of Object.entries(outputs)) {
    if (meta.entryPoint) entryOf[join(root, meta.entryPoint)] = out;
  }

  // Static imports of `out`, transitively, in load order (what modulepreload wants).
  const staticClosure = (out, seen = new Set()) => {
    for (const imp of outputs[out].imports) {
      if (imp.kind !== "import-statement" || imp.external || seen.has(imp.path)) continue;
      seen.add(imp.path);
      staticClosure(imp.path, seen);
    }
    return seen;
  };

  for (const [name, file] of Object.entries(islands)) {
    const out = entryOf[file];
    if (!out) throw new Error(`esbuild produced no output for islands/${name}`);
    const imports = staticClosure(out);
    const dynamicImports = new Set();
    for (const imp of outputs[out].imports) {
      if (imp.kind !== "dynamic-import" || imp.external) continue;
      for (const p of [imp.path, ...staticClosure(imp.path)]) if (!imports.has(p)) dynamicImports.add(p);
    }
    manifest[name] = {
      file: fromDist(out),
      imports: [...imports].map(fromDist),
      dynamicImports: [...dynamicImports].map(fromDist),
    };
  }

  const sharedOut = entryOf[sharedEntryFile];
  rmSync(join(root, sharedOut));
  const written = Object.keys(outputs).filter((o) => o !== sharedOut);

  writeFileSync(join(outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");

  // Sizes, as a slow phone on a slow link would fetch them.
  const rows = written.map((o) => {
    const bytes = readFileSync(join(root, o));
    return { file: relative(root, join(root, o)), raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  rows.sort((a, b) => a.file.localeCompare(b.file));
  const width = Math.max(...rows.map((r) => r.file.length));
  for (const r of rows) {
    console.log(`${r.file.padEnd(width)}  ${formatBytes(r.raw).padStart(10)} raw  ${formatBytes(r.gzip).padStart(10)} gzip`);
  }
  for (const [name, m] of Object.entries(manifest)) {
    const files = [m.file, ...m.imports, ...m.dynamicImports];
    const gz = files.reduce((n, f) => n + rows.find((r) => r.file === join("static/dist", f)).gzip, 0);
    console.log(`island ${name}: ${files.length} files, ${formatBytes(gz)} gzip in total`);
  }
  console.log(`${relative(root, join(outDir, "manifest.json"))}  ${Object.keys(manifest).length} islands`);

  buildIconSprite();
  console.log(`built in ${Math.round(performance.now() - started)} ms`);
}

if (process.argv.includes("--watch")) {
  console.error("islands/build.mjs: --watch is not supported; run `npm run build` again");
  process.exit(2);
}

build().catch((err) => {
  // esbuild has already printed its own errors with locations.
  if (!err?.errors) console.error(err?.message ?? err);
  process.exit(1);
});
