// The snackbar island and the no-JavaScript rule (DESIGN.md §2, §5; SPEC.md §4 snackbar):
// with JavaScript on the island mounts over the server-rendered notice, shows it ~100 ms
// later, closes it after 5000 ms or on 閉じる; no page logs a console error or a CSP
// violation. With JavaScript off the notice is plain HTML with role=status. Pages without
// a notice (without any island) contain no <script> at all.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { CORP, SOLE, axe, displayPath, firstPage, formatViolations, launch, pages, screenshot, signIn, tabTo, url } from "./lib.mjs";

const SHOW_DELAY_MS = 100;
const DURATION_MS = 5000;
const HIDE_DELAY_MS = 400;
const TIMEOUT = { timeout: 60_000 };

const all = pages();
const publicPages = all.filter((p) => p.access === "public");
const signedInPages = all.filter((p) => p.access !== "public");
// Pages that always carry an island (p.island, from web.Page) ship exactly that island's
// script; every other page ships none.
// Pages with islands: the sole proprietor opens those of every buyer; the collections'
// pages are the demo corporation's (a sole proprietor gets their 403 page).
const islandPages = all.filter((p) => p.island && p.access !== "collections");
const collectionIslandPages = all.filter((p) => p.island && p.access === "collections");

/**
 * Runs in every page before its own scripts: records when the island mounts and when the
 * notice changes state (performance.now(), ms since navigation start), and reports CSP
 * violations to the console so the test sees them.
 */
function recordSnackbar() {
  const log = (window.__snackbar = { mounted: null, shown: null, hidden: null, removed: null });
  document.addEventListener("securitypolicyviolation", (e) => {
    console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile}:${e.lineNumber}`);
  });
  const look = () => {
    const island = document.querySelector("[data-island='snackbar']");
    if (!island) return;
    const now = performance.now();
    if (log.mounted === null && island.getAttribute("data-island-mounted") === "true") log.mounted = now;
    const n = island.querySelector(".snackbar");
    if (n && n.getAttribute("data-state") === "shown" && log.shown === null) log.shown = now;
    if (n && n.getAttribute("data-state") === "hidden" && log.shown !== null && log.hidden === null) log.hidden = now;
    if (!n && log.shown !== null && log.removed === null) log.removed = now;
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
}

/** Collects console errors, uncaught page errors and failed requests of a page. */
function watchErrors(page) {
  const errors = [];
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // Chromium logs the page's own 404 or 403 status as a failed load; the tests check
    // statuses elsewhere. A missing subresource names its own URL, so it is still caught.
    if (m.text().startsWith("Failed to load resource") && m.location().url === page.url()) return;
    errors.push(`console.error: ${m.text()} (${m.location().url || "?"})`);
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  // A request cut off because the page moved on is no failure of the next page: the card
  // page's PSP frame, or its island's lazy chunk (CardEntryForm-….js), still loading when
  // the next page is opened. Both were seen only when the machine was slower than the test
  // (issue 28's sessions). Each request is tagged with the main frame's document it came
  // from; an abort of an earlier document's request is dropped, also when Chromium reports
  // it before the navigation that caused it (then it goes when the navigation is seen).
  let documentNo = 0;
  const issuedBy = new WeakMap();
  const leftBehind = new Map(); // message → the document it came from
  page.on("request", (r) => issuedBy.set(r, documentNo));
  page.on("framenavigated", (f) => {
    if (f !== page.mainFrame()) return;
    documentNo++;
    for (let i = errors.length - 1; i >= 0; i--) {
      if (leftBehind.has(errors[i]) && leftBehind.get(errors[i]) < documentNo) errors.splice(i, 1);
    }
    leftBehind.clear();
  });
  page.on("requestfailed", (r) => {
    const message = `request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`;
    if (r.failure()?.errorText === "net::ERR_ABORTED") {
      let subframe = false;
      try {
        subframe = r.frame() !== page.mainFrame();
      } catch {
        subframe = true; // the frame is gone
      }
      const from = issuedBy.get(r) ?? documentNo;
      if (subframe || from < documentNo) return;
      leftBehind.set(message, from);
    }
    errors.push(message);
  });
  return errors;
}

describe("snackbar island (JS on, 1280px)", () => {
  let context;
  let page;
  let errors;
  before(async () => {
    context = await launch({ js: true, width: 1280 });
    await context.addInitScript(recordSnackbar);
    page = await firstPage(context);
    errors = watchErrors(page);
  });
  after(async () => {
    await context?.close();
  });

  it("mounts after sign-in, shows ログインしました ~100 ms later and closes it by itself after 5 s", TIMEOUT, async (ctx) => {
    errors.length = 0;
    await signIn(page, SOLE);
    const island = page.locator("[data-island='snackbar']");
    assert.equal(await island.count(), 1, "the landing page has one snackbar island");
    await page.locator("[data-island='snackbar'][data-island-mounted='true']").waitFor({ timeout: 10_000 });
    const notice = island.locator(".snackbar");
    await notice.and(page.locator("[data-state='shown']")).waitFor({ timeout: 5_000 });
    assert.match(await notice.innerText(), /ログインしました/);
    assert.ok(await notice.isVisible(), "the shown notice is visible");
    assert.equal(await island.locator("button.snackbar__close").innerText(), "閉じる", "the island's 閉じる is a button");

    // Gone by ~5.5 s after it was shown (5000 ms + 400 ms fade); generous for a slow CI.
    await page.waitForFunction(() => window.__snackbar.removed !== null, null, { timeout: DURATION_MS + 4_000 });
    const t = await page.evaluate(() => window.__snackbar);
    const showDelay = t.shown - t.mounted;
    const shownFor = t.hidden - t.shown;
    const goneAfter = t.removed - t.shown;
    const timings = `mounted at ${t.mounted.toFixed(0)} ms, shown +${showDelay.toFixed(0)} ms, hidden after ${shownFor.toFixed(0)} ms, removed after ${goneAfter.toFixed(0)} ms`;
    ctx.diagnostic(timings);
    assert.ok(showDelay >= SHOW_DELAY_MS - 20 && showDelay < SHOW_DELAY_MS + 900, `shown ~100 ms after mounting (${timings})`);
    assert.ok(shownFor >= DURATION_MS - 50 && shownFor < DURATION_MS + 1_000, `auto-closes ~5000 ms after showing (${timings})`);
    assert.ok(goneAfter < DURATION_MS + HIDE_DELAY_MS + 1_200, `gone by ~5.5 s (${timings})`);
    assert.equal(await notice.count(), 0, "the notice is gone");
    assert.deepEqual(errors, [], "no console errors, page errors or failed requests");
  });

  it("閉じる closes the notice before its time", TIMEOUT, async () => {
    errors.length = 0;
    await signIn(page, SOLE);
    const notice = page.locator("[data-island='snackbar'] .snackbar");
    await notice.and(page.locator("[data-state='shown']")).waitFor({ timeout: 10_000 });
    const shownAt = Date.now();
    await page.locator("[data-island='snackbar']").getByRole("button", { name: "閉じる" }).click();
    await notice.waitFor({ state: "detached", timeout: 3_000 });
    assert.ok(Date.now() - shownAt < DURATION_MS, "closed by the button, not by the timer");
    // The demo sole proprietor has a card-payment request waiting (demo data): the landing
    // rules open 支払待ち.
    assert.equal(new URL(page.url()).pathname, "/payments/waiting", "closing does not navigate");
    assert.deepEqual(errors, [], "no console errors, page errors or failed requests");
  });

  it("the receiving address's コピー: a tooltip on focus and after 700 ms of hovering, a toast top-right (SPEC.md §9)", TIMEOUT, async () => {
    errors.length = 0;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url("/") });
    await signIn(page, CORP);
    await page.goto(url("/receipt-invoices/address"));
    const address = (await page.locator("#receiving-address").innerText()).trim();
    const button = page.locator("[data-island='copy-text'] button");
    await button.waitFor();
    const tooltip = page.locator("[data-island='copy-text'] [role=tooltip]");
    assert.equal(await tooltip.isVisible(), false, "no tooltip before");

    await button.hover();
    const hovered = Date.now();
    await tooltip.waitFor({ state: "visible", timeout: 3_000 });
    assert.ok(Date.now() - hovered >= 600, "the tooltip waits ~700 ms while hovering");
    assert.equal(await tooltip.innerText(), "受付メールアドレスをコピー");
    await page.mouse.move(0, 0);
    await tooltip.waitFor({ state: "hidden" });

    await page.evaluate(() => document.activeElement?.blur());
    await tabTo(page, "[data-island='copy-text'] button", { max: 60 });
    await tooltip.waitFor({ state: "visible", timeout: 1_000 });
    await page.keyboard.press("Escape");
    await tooltip.waitFor({ state: "hidden" });

    await page.keyboard.press("Enter");
    const toast = page.locator(".toaster .toast");
    await toast.waitFor();
    assert.match(await toast.innerText(), /受付メールアドレスをコピーしました/);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), address, "the address is on the clipboard");
    const box = await toast.boundingBox();
    const viewport = page.viewportSize();
    assert.ok(box.y < 100 && box.x + box.width > viewport.width - 100, `top-right (${JSON.stringify(box)})`);
    const violations = await axe(page);
    if (violations.length) assert.fail(`axe with the toast: ${formatViolations(violations)}\n(screenshot: ${await screenshot(page, "toast")})`);
    await toast.waitFor({ state: "detached", timeout: 10_000 });
    assert.deepEqual(errors, [], "no console errors, page errors or failed requests");
  });

  it("the island's live region keeps role=status", async () => {
    await signIn(page, SOLE);
    await page.locator("[data-island='snackbar'][data-island-mounted='true']").waitFor({ timeout: 10_000 });
    assert.ok((await page.locator("[data-island='snackbar'] [role='status']").count()) >= 1, "a role=status live region");
  });

  describe("no console errors or CSP violations", () => {
    for (const p of publicPages) {
      it(`${displayPath(p.path)} (anonymous)`, TIMEOUT, async () => {
        errors.length = 0;
        await page.goto(url(p.path), { waitUntil: "load" });
        assert.deepEqual(errors, [], `${p.path}: no console errors, page errors or failed requests`);
      });
    }
    it("the sign-in landing page with its island", TIMEOUT, async () => {
      errors.length = 0;
      await signIn(page, SOLE);
      await page.locator("[data-island='snackbar'][data-island-mounted='true']").waitFor({ timeout: 10_000 });
      assert.deepEqual(errors, [], "no console errors, page errors or failed requests");
    });
    for (const p of signedInPages) {
      it(`${p.path} (signed in as corp)`, TIMEOUT, async () => {
        errors.length = 0;
        await page.goto(url(p.path), { waitUntil: "load" });
        assert.deepEqual(errors, [], `${p.path}: no console errors, page errors or failed requests`);
      });
    }
    it("/signin after sign-out, with the ログアウトしました island", TIMEOUT, async () => {
      await page.goto(url("/payments/create"));
      errors.length = 0;
      await page.locator(".site-header details.menu--account > summary").click();
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/signin", { waitUntil: "load" }),
        page.locator(".site-header details.menu--account button[type=submit]").click(),
      ]);
      await page.locator("[data-island='snackbar'][data-island-mounted='true']").waitFor({ timeout: 10_000 });
      assert.match(await page.locator("[data-island='snackbar'] .snackbar").innerText(), /ログアウトしました/);
      assert.deepEqual(errors, [], "no console errors, page errors or failed requests");
    });
  });
});

describe("notice without JavaScript (JS off, 360px)", () => {
  let context;
  let page;
  before(async () => {
    context = await launch({ js: false, width: 360 });
    page = await firstPage(context);
  });
  after(async () => {
    await context?.close();
  });

  it("after sign-in ログインしました is plain HTML with role=status and a 閉じる link", TIMEOUT, async () => {
    await signIn(page, SOLE);
    const notice = page.locator("[data-island='snackbar'] .snackbar[role='status']");
    assert.equal(await notice.count(), 1, "one server-rendered notice with role=status");
    assert.ok(await notice.isVisible(), "the notice is visible without JavaScript");
    assert.match(await notice.innerText(), /ログインしました/);
    const close = notice.locator("a.snackbar__close");
    assert.equal(await close.innerText(), "閉じる");
    assert.equal(await close.getAttribute("href"), "/payments/waiting", "閉じる reloads the page (the landing: a request waits)");
    assert.equal(await page.locator("[data-island-mounted]").count(), 0, "nothing mounted the island");
    // 閉じる without JavaScript: the reload no longer has the one-time notice.
    await Promise.all([page.waitForURL((u) => u.pathname === "/payments/waiting", { waitUntil: "load" }), close.click()]);
    assert.equal(await page.locator(".snackbar").count(), 0, "the notice is gone after 閉じる");
  });
});

describe("pages without a notice ship no JavaScript", () => {
  let context;
  let page;
  before(async () => {
    // JavaScript off: count the <script> elements the server sent, nothing added later.
    context = await launch({ js: false, width: 1280 });
    page = await firstPage(context);
  });
  after(async () => {
    await context?.close();
  });

  async function noScripts(path) {
    const res = await page.goto(url(path));
    assert.ok(res, `a response for ${path}`);
    const islands = await page.locator("[data-island]").count();
    assert.equal(islands, 0, `${path} has no island (no notice) on a plain visit`);
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 120)));
    const preloads = await page.locator("link[rel='modulepreload'], link[rel='preload'][as='script']").count();
    if (scripts.length || preloads) await screenshot(page, `scripts ${path}`);
    assert.deepEqual(scripts, [], `${path}: no <script> elements`);
    assert.equal(preloads, 0, `${path}: no script preloads`);
  }

  for (const p of publicPages.filter((p) => !p.island)) {
    it(`${displayPath(p.path)} (anonymous) has zero <script>`, TIMEOUT, () => noScripts(p.path));
  }
  describe("signed in", () => {
    before(async () => {
      await signIn(page, SOLE);
    });
    for (const p of signedInPages.filter((p) => !p.island)) {
      it(`${p.path} has zero <script>`, TIMEOUT, () => noScripts(p.path));
    }
    for (const p of islandPages) {
      it(`${p.path} has module scripts for its ${p.island} island and the empty snackbar`, TIMEOUT, async () => {
        await page.goto(url(p.path));
        await islandScripts(p);
      });
    }
  });
  describe("signed in as the corporation", () => {
    before(async () => {
      await signIn(page, CORP);
    });
    for (const p of collectionIslandPages) {
      it(`${p.path} has module scripts for its ${p.island} island and the empty snackbar`, TIMEOUT, async () => {
        await page.goto(url(p.path));
        await islandScripts(p);
      });
    }
  });
  /**
   * A page with an island carries it and an empty snackbar (for the notices islands raise,
   * SPEC.md §2): one module script each, from /static/.
   */
  async function islandScripts(p) {
    await page.goto(url(p.path));
    const islands = await page.locator("[data-island]").evaluateAll((els) => els.map((e) => e.dataset.island));
    assert.deepEqual(islands.sort(), [p.island, "snackbar"].sort(), `${p.path} carries the ${p.island} island and the snackbar, no other`);
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => ({ type: e.type, src: e.getAttribute("src") })));
    assert.equal(scripts.length, 2, `two <script>, got ${JSON.stringify(scripts)}`);
    for (const s of scripts) {
      assert.equal(s.type, "module");
      assert.match(s.src, /^\/static\//, "served from /static/");
    }
  }

  it("the page with a notice has one module script for the snackbar, besides the page's own island", TIMEOUT, async () => {
    await signIn(page, SOLE);
    // The landing page may carry an island of its own (/payments/create: invoice-upload).
    const landing = all.find((p) => p.path === new URL(page.url()).pathname);
    const expected = ["snackbar", ...(landing?.island ? [landing.island] : [])].sort();
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => ({ type: e.type, src: e.getAttribute("src") })));
    assert.equal(scripts.length, expected.length, `${expected.join(" and ")}, got ${JSON.stringify(scripts)}`);
    for (const s of scripts) {
      assert.equal(s.type, "module");
      assert.match(s.src, /^\/static\//, "served from /static/");
    }
    const names = scripts.map((s) => s.src.match(/islands\/([a-z-]+)-[A-Z0-9]+\.js$/)?.[1]).sort();
    assert.deepEqual(names, expected, "one script per island on the page");
  });
});
