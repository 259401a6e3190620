// Page weight of every page (DESIGN.md §5): loads each page of `bin/server -pages` in
// Chromium (JavaScript on, 360px, cache off: a first visit), records every response, and
// prints gzipped HTML, CSS and JS bytes and the request count per page. Budgets:
//   - HTML ≤ 14 KB (14336 bytes) gzipped per page;
//   - exactly one CSS file per page;
//   - pages without islands (no [data-island] element) load no JavaScript.
// Exits 1 when a budget is broken, listing which. Writes the table to test-results/pageweight.md.
//
// Needs a running server: tools/e2e.sh starts one and sets BASE_URL and DEMO_PASSWORD.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

import { addCardThroughFields, BASE_URL, CORP, DEMO_PASSWORD, OPERATORS, RESULTS_DIR, displayPath, firstPage, launch, pages, signInOperator, textPDF, url } from "./e2e/lib.mjs";

const HTML_BUDGET = 14 * 1024;
const started = Date.now();

/** Gzipped size: the bytes on the wire when the server compressed, else gzip -9 of the body. */
async function gzSize(response) {
  const encoded = (response.headers()["content-encoding"] ?? "").trim();
  if (encoded && encoded !== "identity") {
    const sizes = await response.request().sizes();
    if (sizes.responseBodySize > 0) return sizes.responseBodySize;
  }
  const body = await response.body();
  return gzipSync(body, { level: 9 }).length;
}

function kindOf(response) {
  const type = response.request().resourceType();
  const ct = response.headers()["content-type"] ?? "";
  if (type === "document") return "html";
  if (type === "stylesheet" || ct.startsWith("text/css")) return "css";
  if (type === "script" || /javascript/.test(ct)) return "js";
  return "other";
}

/**
 * Loads a page (or runs `navigate`) and measures it. Islands load their code as module
 * scripts after the page; on pages with one, wait until the network is idle.
 */
async function measure(page, route, navigate = () => page.goto(url(route), { waitUntil: "load" })) {
  const responses = [];
  let requests = 0;
  const onRequest = (r) => {
    if (/^https?:/.test(r.url())) requests++;
  };
  const onResponse = (r) => {
    if (/^https?:/.test(r.url())) responses.push(r);
  };
  page.on("request", onRequest);
  page.on("response", onResponse);
  try {
    await navigate();
    const islands = await page.locator("[data-island]").count();
    if (islands > 0) await page.waitForLoadState("networkidle");
    const row = { route, html: 0, css: 0, js: 0, cssFiles: 0, jsFiles: 0, requests, islands, status: 0, frame: { html: 0, css: 0, js: 0, files: 0 } };
    const ours = new URL(BASE_URL).origin;
    for (const r of responses) {
      if (r.status() >= 300 && r.status() < 400) continue; // a redirect hop: counted as a request only
      const kind = kindOf(r);
      if (kind === "other") continue;
      const size = await gzSize(r);
      row[kind] += size;
      if (r.frame() !== page.mainFrame() || new URL(r.url()).origin !== ours) {
        // Another origin's frame on the page (the PSP's card fields): counted in the page's
        // weight, kept apart from the budgets, which are ours.
        row.frame[kind] += size;
        row.frame.files++;
        continue;
      }
      if (kind === "html") row.status = r.status();
      if (kind === "css") row.cssFiles++;
      if (kind === "js") row.jsFiles++;
    }
    row.requests = requests;
    return row;
  } finally {
    page.off("request", onRequest);
    page.off("response", onResponse);
  }
}

const kb = (n) => (n / 1024).toFixed(1) + " KB";

function table(rows) {
  const lines = ["| route | HTML gz | CSS gz | JS gz | requests |", "|---|---:|---:|---:|---:|"];
  for (const r of rows) lines.push(`| ${r.route} | ${kb(r.html)} | ${kb(r.css)} | ${kb(r.js)} | ${r.requests} |`);
  const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
  lines.push(`| **total (${rows.length} pages)** | ${kb(sum("html"))} | ${kb(sum("css"))} | ${kb(sum("js"))} | ${sum("requests")} |`);
  const max = (k) => Math.max(...rows.map((r) => r[k]));
  lines.push(`| **largest** | ${kb(max("html"))} | ${kb(max("css"))} | ${kb(max("js"))} | ${max("requests")} |`);
  return lines.join("\n");
}

function budgetProblems(r) {
  const out = [];
  if (r.html > HTML_BUDGET) out.push(`${r.route}: HTML is ${r.html} bytes gzipped, over the ${HTML_BUDGET}-byte budget`);
  if (r.cssFiles !== 1) out.push(`${r.route}: loads ${r.cssFiles} CSS files, want exactly 1`);
  if (r.islands === 0 && (r.jsFiles > 0 || r.js > 0)) out.push(`${r.route}: has no island but loads ${r.jsFiles} JS file(s), ${r.js} bytes gzipped`);
  return out;
}

const all = pages();
const context = await launch({ js: true, width: 360 });
const rows = [];
try {
  const page = await firstPage(context);
  // A first visit: nothing from the HTTP cache, so every page pays for its CSS and JS.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });

  for (const p of all.filter((p) => p.access === "public")) rows.push(await measure(page, displayPath(p.path)));
  // The landing page right after sign-in carries the snackbar island. The demo corporation
  // has payments under screening, so the landing rules take it to /payments/review.
  // Measured from pressing Enter in the filled form: POST /signin, the redirects, the landing.
  await page.goto(url("/signin"));
  await page.fill("#email_address", CORP);
  await page.fill("#password", DEMO_PASSWORD);
  rows.push(
    await measure(page, "/payments/review (after sign-in, with notice)", () =>
      Promise.all([
        page.waitForURL((u) => u.pathname === "/payments/review", { waitUntil: "load" }),
        page.press("#password", "Enter"),
      ]),
    ),
  );
  for (const p of all.filter((p) => p.access !== "public")) rows.push(await measure(page, p.path));
  // Pages with ids: the first demo supplier, and its account form with the supplier-account
  // island (the bank step's form).
  await page.goto(url("/suppliers?status=enable"));
  const supplier = await page.locator(".supplier-list__link").first().getAttribute("href");
  rows.push(await measure(page, supplier));
  rows.push(await measure(page, `${supplier}/accounts/new?bank_code=0001&branch_code=001`));
  // An uploaded invoice's page (no island: no JavaScript), with its preview picture.
  const upload = await page.request.post(url("/api/v1/invoices/files/upload"), {
    headers: { "X-Requested-With": "fetch", Accept: "application/json" },
    multipart: { invoice_file: { name: "invoice.pdf", mimeType: "application/pdf", buffer: textPDF(["INVOICE", "Total JPY 125,400"]) } },
  });
  if (!upload.ok()) throw new Error(`pageweight: upload answered ${upload.status()}`);
  rows.push(await measure(page, `/payments/create/files/${(await upload.json()).id}`));
  // The payment journey's steps, walked with form posts (the session keeps the answers).
  const form = (data) => ({ headers: { Origin: BASE_URL }, form: data });
  await page.goto(url("/payments/add/invoiceinfo?new=1"));
  rows.push(await measure(page, "/payments/add/invoiceinfo"));
  const supplierID = await page.locator("input[name=supplier]").first().getAttribute("value");
  await page.request.post(url("/payments/add/invoiceinfo"), form({ supplier: supplierID }));
  rows.push(await measure(page, "/payments/add/account"));
  const accountID = await page.locator("input[name=account]").first().getAttribute("value");
  await page.request.post(url("/payments/add/account"), form({ account: accountID }));
  rows.push(await measure(page, "/payments/add/invoice"));
  const day = await page.locator("input[name=transfer_date]").last().getAttribute("value");
  await page.request.post(url("/payments/add/invoice"), form({ amount: "110000", due_date: day, transfer_date: day }));
  rows.push(await measure(page, "/payments/add/confirm"));
  // A payment's page, its cancel question, and the correction of the one sent back.
  await page.goto(url("/payments/review"));
  const payment = await page.locator("main table a").first().getAttribute("href");
  const sentBack = await page.locator("main tr:has(.status-badge) a").first().getAttribute("href");
  rows.push(await measure(page, payment));
  rows.push(await measure(page, `${payment}/cancel`));
  rows.push(await measure(page, `/payments/complete?id=${payment.split("/").pop()}`));
  rows.push(await measure(page, `/payments/edit/${sentBack.split("/").pop()}/invoiceinfo`));
  // The card-payment request journey's steps (form posts, as above), and a request's page.
  await page.goto(url("/collections/add/invoice?new=1"));
  rows.push(await measure(page, "/collections/add/invoice"));
  const deadline = new Date(Date.now() + 9 * 3600_000 + 20 * 86400_000).toISOString().slice(0, 10);
  await page.request.post(url("/collections/add/invoice"),
    form({ customer_name: "株式会社計測", customer_email: "pageweight@customer.example", amount: "33000", deadline }));
  rows.push(await measure(page, "/collections/add/bank"));
  const receiving = await page.locator("input[name=account]").first().getAttribute("value");
  rows.push(await measure(page, "/collections/add/bank/new?bank_code=0001&branch_code=001"));
  await page.request.post(url("/collections/add/bank"), form({ account: receiving }));
  rows.push(await measure(page, "/collections/add/confirm"));
  await page.goto(url("/collections/request"));
  const request = await page.locator("main table a").first().getAttribute("href");
  rows.push(await measure(page, request));
  rows.push(await measure(page, `${request}/cancel`));
  rows.push(await measure(page, `/collections/complete?id=${request.split("/").pop()}`));
  // A card's 締め日・支払日 page: a card saved through the sandbox PSP first.
  const psp = (process.env.PSP_URL || "").replace(/\/$/, "");
  await addCardThroughFields(page, psp, "4111111111111111");
  await page.goto(url("/myaccount/creditcards"));
  const cycle = await page.locator("main a[href$='/cycle']").first().getAttribute("href");
  rows.push(await measure(page, cycle));
  // A notification's page.
  await page.goto(url("/notifications"));
  const notice = await page.locator("main .notice-list a").first().getAttribute("href");
  rows.push(await measure(page, notice));
  // The operator console, in the same browser (its cookie is its own): a screener's
  // pages, then the administrator's.
  await signInOperator(page, OPERATORS.first);
  rows.push(await measure(page, "/ops/screening"));
  const screening = await page.locator("main table a").first().getAttribute("href");
  rows.push(await measure(page, screening));
  rows.push(await measure(page, "/ops/suppliers"));
  const review = await page.locator("main table a").first().getAttribute("href");
  rows.push(await measure(page, review));
  rows.push(await measure(page, "/ops/audit"));
  await signInOperator(page, OPERATORS.admin);
  rows.push(await measure(page, "/ops/transfers"));
  rows.push(await measure(page, "/ops/reconciliation"));
  rows.push(await measure(page, "/ops/ledger"));
  rows.push(await measure(page, "/ops/operators"));
} finally {
  await context.close();
}

const md = table(rows);
// The pages that frame another origin (the card page with the PSP's fields): their weight
// with the frame, and the frame's share.
const framed = rows
  .filter((r) => r.frame.files > 0)
  .map((r) => {
    const f = r.frame;
    const total = r.html + r.css + r.js;
    return `${r.route}: ${kb(total)} gzipped with the frame (the PSP's frame: ${f.files} files, HTML ${kb(f.html)}, CSS ${kb(f.css)}, JS ${kb(f.js)}; ours ${kb(total - f.html - f.css - f.js)})`;
  });
const problems = rows.flatMap(budgetProblems);
const withIslands = rows.filter((r) => r.islands > 0).map((r) => r.route);
const summary = [
  `# Page weight`,
  ``,
  `Chromium, JavaScript on, 360px, cache disabled (a first visit). Gzipped bytes: the transfer size when the server compressed, otherwise gzip -9 of the body. Requests include redirects and the icon sprite.`,
  ``,
  md,
  ``,
  `Budgets (DESIGN.md §5): HTML ≤ ${HTML_BUDGET} bytes gzipped; exactly one CSS file; no JS without an island.`,
  `Pages with islands: ${withIslands.length ? withIslands.join(", ") : "none"}.`,
  ...framed,
  ``,
  problems.length ? `**Over budget:**\n\n${problems.map((p) => `- ${p}`).join("\n")}` : `All ${rows.length} pages within budget.`,
  ``,
].join("\n");

mkdirSync(RESULTS_DIR, { recursive: true });
const out = path.join(RESULTS_DIR, "pageweight.md");
writeFileSync(out, summary);
console.log(md);
console.log(`\nPages with islands: ${withIslands.length ? withIslands.join(", ") : "none"}.`);
for (const line of framed) console.log(line);
console.log(`Written to ${path.relative(process.cwd(), out)} (${((Date.now() - started) / 1000).toFixed(1)} s).`);
if (problems.length) {
  console.error(`\npageweight: ${problems.length} budget(s) broken:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
console.log(`pageweight: all ${rows.length} pages within budget (HTML ≤ ${HTML_BUDGET} B gz, one CSS file, no JS without an island).`);
