// Shared helpers for the browser tests (tools/e2e/*.test.mjs) and tools/pageweight.mjs.
//
// The tests expect a running server: tools/e2e.sh starts bin/server and exports
// BASE_URL and DEMO_PASSWORD. To run one file by hand against a server you started:
//   BASE_URL=http://localhost:8080 DEMO_PASSWORD=… node --test tools/e2e/journey.test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const RESULTS_DIR = path.join(ROOT, "test-results");
export const SERVICE_NAME = process.env.SERVICE_NAME || "請求書カード払い";
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
export const WIDTHS = [360, 1280];
/** Below this width the header's items live in the drawer (SPEC.md §2). */
export const PC_MIN_WIDTH = 1024;

export const CORP = "corp@demo.example";
export const SOLE = "sole@demo.example";

/** Whether each launched context runs JavaScript (axe needs to know). */
const jsEnabled = new WeakMap();

function requireEnv(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(
      `${name} is not set. Run the browser tests with 'bash tools/e2e.sh', which starts the server and sets BASE_URL and DEMO_PASSWORD.`,
    );
  }
  return v;
}

export const BASE_URL = requireEnv("BASE_URL").replace(/\/$/, "");
export const DEMO_PASSWORD = requireEnv("DEMO_PASSWORD");

/** Absolute URL of an app path. */
export const url = (p) => BASE_URL + p;

let pageList;
/**
 * Every page that exists, from `bin/server -pages`: [{path, title, access}] with access
 * "public", "signed_in" or "collections".
 */
export function pages() {
  if (pageList) return pageList;
  const bin = path.join(ROOT, "bin/server");
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build it first (go build -o bin/server ./cmd/server)`);
  const out = execFileSync(bin, ["-pages"], { cwd: ROOT, encoding: "utf8" });
  pageList = JSON.parse(out);
  if (!Array.isArray(pageList) || pageList.length === 0) throw new Error(`bin/server -pages printed no pages: ${out}`);
  return pageList;
}

/** The HTTP status a page answers with when it is shown to someone allowed to see it. */
export function expectedStatus(p) {
  return p.path === "/no-such-page" ? 404 : 200;
}

/** Percent-decoded path, for titles of tests and rows of tables. */
export function displayPath(p) {
  try {
    return decodeURI(p);
  } catch {
    return p;
  }
}

/**
 * A fresh persistent Chromium context (its own profile directory, removed on close).
 * One context per JavaScript on/off × width combination, reused across pages.
 */
export async function launch({ js = true, width = 1280, height } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (tools/e2e.sh does this when run as root)`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "cardpay-e2e-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    javaScriptEnabled: js,
    viewport: { width, height: height ?? (width < PC_MIN_WIDTH ? 740 : 900) },
    locale: "ja-JP",
    timezoneId: "Asia/Tokyo",
  });
  jsEnabled.set(context, js);
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(20_000);
  const close = context.close.bind(context);
  context.close = async () => {
    try {
      await close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return context;
}

/** The context's first page (a persistent context opens with one). */
export async function firstPage(context) {
  return context.pages()[0] ?? (await context.newPage());
}

/** Human name of a context combination, used in test titles. */
export const comboName = ({ js, width }) => `JS ${js ? "on" : "off"}, ${width}px`;

/** All four JavaScript on/off × width combinations (axe on every page, the keyboard journeys). */
export const COMBOS = [true, false].flatMap((js) => WIDTHS.map((width) => ({ js, width })));

/**
 * The two combinations the long journeys run in: JavaScript on at the PC width and off
 * at the phone width. Every page's axe check and the keyboard journeys still run in all
 * four (a11y, journey); running each journey four times doubled the browser stage (54 of
 * the test command's 74 minutes) for branches these two already take.
 */
export const JOURNEY_COMBOS = [{ js: true, width: 1280 }, { js: false, width: 360 }];

/**
 * Signs in through the form (fill + Enter, no mouse, so the pointer never rests on the
 * snackbar) and waits for the landing page. Returns the landing response.
 */
export async function signIn(page, email, { redirect, password = DEMO_PASSWORD } = {}) {
  const q = redirect ? `?redirect=${encodeURIComponent(redirect)}` : "";
  await page.goto(url(`/signin${q}`));
  await page.fill("#email_address", email);
  await page.fill("#password", password);
  const landed = page.waitForResponse(
    (r) => r.request().resourceType() === "document" && r.status() < 300 && r.request().method() === "GET",
  );
  await page.press("#password", "Enter");
  const res = await landed;
  await page.waitForLoadState("load");
  const p = new URL(page.url()).pathname;
  if (p === "/signin") {
    const errors = await page.locator(".error-summary").innerText().catch(() => "");
    throw new Error(`sign-in as ${email} failed, still on /signin: ${errors}`);
  }
  return res;
}

/**
 * Runs axe with the WCAG 2.x A/AA tags; returns the violations. Legacy mode runs axe.run()
 * in the page itself: the default mode finishes in a new blank page, which never answers
 * in a context with JavaScript switched off (and our pages have no iframes to combine).
 *
 * With JavaScript off, Chromium still evaluates what the test injects, and runs promise
 * jobs, but never fires timers, which axe uses to yield between rules. For that page only
 * (the app's own scripts are not running there anyway) timers are replaced by promise jobs
 * (not queueMicrotask, whose callbacks are blocked there too).
 */
export async function axe(page, { exclude, frames = false } = {}) {
  const { AxeBuilder } = await import("@axe-core/playwright");
  if (jsEnabled.get(page.context()) === false) {
    await page.evaluate(() => {
      let last = 0;
      const cancelled = new Set();
      const later = (fn, args) => {
        const id = ++last;
        Promise.resolve().then(() => cancelled.has(id) || fn(...args));
        return id;
      };
      window.setTimeout = (fn, _ms, ...args) => later(fn, args);
      window.requestAnimationFrame = (fn) => later(fn, [performance.now()]);
      window.clearTimeout = window.cancelAnimationFrame = (id) => cancelled.add(id);
    });
  }
  // Legacy mode checks the top document only; frames (the PSP's card fields, another
  // origin) need axe run inside each frame and the results put together.
  let b = new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode(!frames);
  if (exclude) b = b.exclude(exclude);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`axe did not finish within 30 s on ${page.url()}`)), 30_000);
  });
  try {
    const r = await Promise.race([b.analyze(), timeout]);
    return r.violations;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How many elements axe checked inside frames of page (rules passed or failed on them):
 * proof that axe's frames mode reaches the PSP's card fields rather than stopping at our
 * document. A node in a frame is targeted by a selector per frame ([iframe, element]).
 */
export async function axeFrameNodes(page) {
  const { AxeBuilder } = await import("@axe-core/playwright");
  const r = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  return [...r.passes, ...r.violations].flatMap((rule) => rule.nodes).filter((n) => n.target.length > 1).length;
}

/** Readable multi-line report of axe violations: id, impact, help, and each target. */
export function formatViolations(violations) {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .map((n) => {
          const summary = (n.failureSummary || "").split("\n").slice(1, 3).join(" ").trim();
          return `      - ${n.target.join(" ")}${summary ? `  (${summary})` : ""}`;
        })
        .join("\n");
      return `  ${v.id} [${v.impact}] ${v.help}\n    ${v.helpUrl}\n${nodes}`;
    })
    .join("\n");
}

/**
 * The checks every page passes: status, html[lang=ja], a title naming the service,
 * exactly one <h1>, and no axe violations. Returns {problems}: readable problems.
 */
export async function pageProblems(page, response, { status = 200, where = page.url(), runAxe = true, frames = false } = {}) {
  const problems = [];
  if (!response) problems.push(`no response for ${where}`);
  else if (response.status() !== status) problems.push(`status ${response.status()}, want ${status}`);
  const lang = await page.getAttribute("html", "lang");
  if (lang !== "ja") problems.push(`html[lang] is ${JSON.stringify(lang)}, want "ja"`);
  const title = (await page.title()).trim();
  if (!title) problems.push("<title> is empty");
  else if (!title.includes(SERVICE_NAME)) problems.push(`<title> ${JSON.stringify(title)} does not contain ${SERVICE_NAME}`);
  const h1 = await page.locator("h1").count();
  if (h1 !== 1) problems.push(`${h1} <h1> elements, want exactly 1`);
  // An id on two elements breaks the label, aria-describedby or fragment that names it
  // (axe no longer checks this itself); the islands' markup counts as much as the server's.
  const repeated = await page.evaluate(() => {
    const seen = new Map();
    for (const el of document.querySelectorAll("[id]")) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} (${n}×)`);
  });
  if (repeated.length) problems.push(`repeated id(s): ${repeated.join(", ")}`);
  if (!runAxe) return { problems };
  // The snackbar island fades its notice in: axe would measure the contrast of a
  // half-faded one, so the notice is let settle first (with JavaScript: the island
  // mounted; without it the server's notice is shown as it is).
  if ((await page.locator("[data-island='snackbar'][data-island-mounted='true'] .snackbar").count()) > 0) {
    await page
      .waitForFunction(() => {
        const s = document.querySelector(".snackbar[data-state='shown']");
        return s && getComputedStyle(s).opacity === "1";
      }, null, { timeout: 5000 })
      .catch(() => {});
  }
  const violations = await axe(page, { frames });
  if (violations.length) problems.push(`axe found ${violations.length} violation(s):\n${formatViolations(violations)}`);
  return { problems };
}

/** Fails the test with every problem listed, after saving a screenshot to test-results/. */
export async function assertNoProblems(t, page, { problems }, label) {
  if (problems.length === 0) return;
  const shot = await screenshot(page, label);
  throw new Error(`${label}:\n- ${problems.join("\n- ")}${shot ? `\n(screenshot: ${shot})` : ""}`);
}

/** Saves a full-page screenshot under test-results/e2e/; returns its path or "". */
export async function screenshot(page, label) {
  try {
    const dir = path.join(RESULTS_DIR, "e2e");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${label.replace(/[^\w.-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 120)}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return path.relative(ROOT, file);
  } catch {
    return "";
  }
}

/** Opens every visible header menu or drawer (<details>) by clicking its <summary>. */
export async function openHeaderMenus(page, selector) {
  const summaries = page.locator(`${selector} > summary`);
  const n = await summaries.count();
  const opened = [];
  for (let i = 0; i < n; i++) {
    const s = summaries.nth(i);
    if (!(await s.isVisible())) continue;
    await s.click();
    const d = s.locator("xpath=..");
    if (!(await d.evaluate((el) => el.open))) throw new Error(`clicking ${selector} > summary #${i} did not open it`);
    opened.push(await d.getAttribute("class"));
  }
  return opened;
}

/**
 * Presses Tab until the focused element matches `selector`; fails after `max` presses
 * listing where focus went.
 */
export async function tabTo(page, selector, { max = 40, key = "Tab" } = {}) {
  const seen = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const hit = await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector);
    if (hit) return i + 1;
    seen.push(await describeFocus(page));
  }
  throw new Error(`pressed Tab ${max} times without reaching ${selector}; focus went to:\n  ${seen.join("\n  ")}`);
}

/** Short description of the focused element, such as `a.skip-link "本文へ移動"`. */
export function describeFocus(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return "(body)";
    const cls = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    const id = el.id ? `#${el.id}` : "";
    const text = (el.innerText || el.value || "").trim().replace(/\s+/g, " ").slice(0, 40);
    return `${el.tagName.toLowerCase()}${id}${cls}${text ? ` "${text}"` : ""}`;
  });
}

// --- The development mailbox ---------------------------------------------------------------

const decode = (s) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#34;|&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

/** Id of the newest mail in the mailbox (0 when empty), to wait for mails after it. */
export async function lastMailId() {
  const res = await fetch(url("/dev/mailbox"));
  if (res.status === 404) throw new Error("/dev/mailbox is missing: the development mailbox is not routed yet");
  const ids = [...(await res.text()).matchAll(/href="\/dev\/mailbox\/(\d+)"/g)].map((m) => Number(m[1]));
  return ids.length ? Math.max(...ids) : 0;
}

/**
 * Waits for a mail to `to` whose subject contains `subject`, newer than mail `after`;
 * returns its body text.
 */
export async function waitForMail(to, subject, after) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const html = await (await fetch(url("/dev/mailbox"))).text();
    for (const m of html.matchAll(/<tr><td>[^<]*<\/td><td>([^<]*)<\/td><td><a href="\/dev\/mailbox\/(\d+)">([^<]*)<\/a>/g)) {
      const [, rcpt, id, subj] = m;
      if (Number(id) > after && decode(rcpt).includes(to) && decode(subj).includes(subject)) {
        const body = await (await fetch(url(`/dev/mailbox/${id}`))).text();
        const pre = body.match(/<pre[^>]*>([\s\S]*?)<\/pre>/);
        if (!pre) throw new Error(`mail ${id} has no <pre> body`);
        return decode(pre[1]);
      }
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} with subject ${subject} after #${after} within 15 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The six-digit code standing on its own line in a mail. */
export function mailCode(text) {
  const m = text.match(/^[ \t　]*(\d{6})[ \t　]*$/m);
  if (!m) throw new Error(`no code in mail:\n${text}`);
  return m[1];
}

// --- Keyboard journeys (shared by the suites that walk pages by keyboard) ---------------

/** The page's path (imported as `path` by the suites). */
export const pagePath = (page) => new URL(page.url()).pathname;

/**
 * Runs `act` (a key press) and waits for the document it leads to, after any 303 (also
 * across another origin, such as the sandbox PSP's, and back); returns its response.
 */
export async function andWait(page, act) {
  // The main frame's document only: a page may frame another (the PSP's card fields).
  const answered = page.waitForResponse((r) => r.request().resourceType() === "document" && r.status() !== 303 && r.frame() === page.mainFrame());
  const committed = page.waitForEvent("framenavigated", (f) => f === page.mainFrame());
  await act();
  const [res] = await Promise.all([answered, committed]);
  await page.waitForLoadState("load");
  return res;
}

/**
 * The id of the focused element once it is `want`, or what it still is after `timeout`
 * ms. A page's autofocus (the error summary, the field after 住所を検索) is applied when
 * Chromium next updates the rendering, which can come just after the load event: asking
 * once right after the navigation raced it. Polled from here, not in the page, because a
 * page with JavaScript off never fires the timers an in-page wait would use.
 */
export async function focusedId(page, want, { timeout = 3000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const id = await page.evaluate(() => document.activeElement?.id ?? "");
    if (id === want || Date.now() > deadline) return id;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Focuses a link or button and activates it with `key` (Enter, or Space for a button). */
export async function activate(page, selector, key = "Enter") {
  const el = page.locator(selector);
  assert.equal(await el.count(), 1, `exactly one ${selector}`);
  return andWait(page, async () => {
    await el.focus();
    await page.keyboard.press(key);
  });
}

/** Types into a field by keyboard: focus, select what is there, delete, type. */
export async function typeInto(page, selector, text) {
  await page.focus(selector);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  if (text) await page.keyboard.type(text);
}

/** Presses Enter in a field, submitting its form; returns the answering document's response. */
export async function submitFrom(page, selector) {
  await page.focus(selector);
  return andWait(page, () => page.keyboard.press("Enter"));
}

/** Text of the flash notice, server-rendered or from the snackbar island. */
export async function noticeText(page) {
  const n = page.locator("[data-island='snackbar'] .snackbar");
  await n.first().waitFor({ state: "attached" });
  return (await n.first().textContent()).replace(/\s+/g, " ");
}

/** The main region's text, runs of spaces and tabs made one. */
export const mainText = async (page) => (await page.locator("main").innerText()).replace(/[ \t]+/g, " ");

/** A one-page A4 PDF whose text layer holds lines (ASCII, no parentheses), xref and all. */
export function textPDF(lines) {
  const content = `BT /F1 14 Tf 72 770 Td 22 TL ${lines.map((l) => `(${l}) Tj T*`).join(" ")} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets = objects.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/**
 * Collects a page's script errors and the CSP violations an init script reports to the
 * console, leaving out failed loads (a 4xx answer a test means to get is logged as one).
 * Answers the live list; a test empties it with `errors.length = 0`.
 */
export async function watchErrors(context, page) {
  const errors = [];
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "(inline)"}`);
    });
  });
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  page.on("pageerror", (err) => errors.push(String(err)));
  return errors;
}

/**
 * A fresh sole proprietor through the JSON API (sign-up, the mailed code, registration),
 * so that a suite's counts start at zero. Answers the e-mail address; the password is
 * password.
 */
export async function createSoleProprietor(prefix, password) {
  return createBuyer(prefix, password, "/users/sole_proprietor", {
    user_last_name: "佐藤", user_first_name: "花子", phone_number: "090-1234-5678",
    business_name: "カード試験工房", business_name_kana: "カードシケンコウボウ", business_category: "L",
    business_postal_code: "1500001", business_address_state: "東京都", business_address_city: "渋谷区",
    business_address_street: "神宮前1-1", representative_last_name: "佐藤", representative_first_name: "花子",
    representative_last_name_kana: "サトウ", representative_first_name_kana: "ハナコ",
    representative_birthday: "1985-06-15", home_postal_code: "1500001", home_address_state: "東京都",
    home_address_city: "渋谷区", home_address_street: "神宮前2-2",
  });
}

/**
 * A corporation through the JSON API whose 法人番号 the registry cannot confirm (the demo
 * corporation's number, which the development registry does not list and an active
 * account already holds), so the account is held for the operators (issue 24).
 */
export async function createHeldCorporation(prefix, password, name = "なりすまし商事株式会社") {
  return createBuyer(prefix, password, "/users/corporation", {
    user_last_name: "山田", user_first_name: "太郎", phone_number: "03-1234-5678",
    corporate_name: name, corporate_name_kana: "ナリスマシショウジ", corporate_number: "7000012050002",
    representative_last_name: "山田", representative_first_name: "一郎",
    representative_last_name_kana: "ヤマダ", representative_first_name_kana: "イチロウ",
    representative_birthday: "1970-04-01", representative_postal_code: "1000001",
    representative_address_state: "東京都", representative_address_city: "千代田区",
    representative_address_street: "千代田1-1", representative_phone_number: "0312345678",
    postal_code: "1000001", address_state: "東京都", address_city: "千代田区", address_street: "千代田1-1",
    business_category: "I",
  });
}

async function createBuyer(prefix, password, registration, answers) {
  const email = `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@e2e.example`;
  const post = async (p, body) => {
    const res = await fetch(`${BASE_URL}/api/v1${p}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = await res.json().catch(() => ({}));
    if (res.status >= 300) throw new Error(`POST /api/v1${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const mark = await lastMailId();
  const { signup_token } = await post("/users", { email_address: email, password, consent: true });
  const code = mailCode(await waitForMail(email, "認証コード", mark));
  await post("/users/certification", { signup_token, code });
  await post(registration, { signup_token, ...answers });
  return email;
}

/**
 * Types query into a combobox (input), moves to the option that contains want with
 * ArrowDown, and takes it with Enter (the supplier-account island's bank and branch
 * pickers). onOpen runs while the list is open.
 */
export async function chooseOption(page, input, listbox, query, want, onOpen) {
  assert.equal(await page.getAttribute(input, "role"), "combobox", `${input} is a combobox`);
  await typeInto(page, input, query);
  const option = page.locator(`${listbox} [role=option]`, { hasText: want });
  await option.first().waitFor();
  assert.equal(await page.getAttribute(input, "aria-expanded"), "true", `${input} is expanded`);
  if (onOpen) await onOpen();
  // ArrowDown until the wanted option is the active one (aria-activedescendant). The
  // answer to the last keystroke's search may replace the list meanwhile (the option
  // then named is gone): that option is not the one, and the keys go on in the new list.
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press("ArrowDown");
    const active = await page.getAttribute(input, "aria-activedescendant");
    const text = active ? await page.locator(`#${active}`).innerText({ timeout: 1000 }).catch(() => "") : "";
    if (text.includes(want)) break;
  }
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    ([sel, w]) => (document.querySelector(sel)?.value ?? "").includes(w),
    [input, want],
  );
}

/** The development demo operators' authenticator secret (cmd/server DemoOperatorSecret). */
export const DEMO_OPERATOR_SECRET = "DEMOOPSDEMOOPSDEMOOPSDEMOOPSDEMO";
/** The demo operators: two screeners (dual control) and one for transfers and administration. */
export const OPERATORS = {
  first: "screening1@ops.demo.example", second: "screening2@ops.demo.example", admin: "admin@ops.demo.example",
  admin2: "admin2@ops.demo.example",
};

/** totp is the authenticator app's 6-digit code of secret (base32) for the 30-second step. */
export function totp(secret, step = Math.floor(Date.now() / 30000)) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret.replace(/=+$/, "")) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(step));
  const h = crypto.createHmac("sha1", key).update(msg).digest();
  const o = h[h.length - 1] & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

// A code signs in once, and the server takes the current step's code or the next one's
// (30 s of clock skew) but never a step at or before the last it took: the step each
// operator last used, so that a sign-in soon after the last one uses the next step's code
// instead of waiting up to 30 s for a new step.
const usedSteps = new Map();

/** signInOperator signs a demo operator in to the console (address, password, code). */
export async function signInOperator(page, email, retry = true) {
  let now = Math.floor(Date.now() / 30000);
  let step = Math.max(now, (usedSteps.get(email) ?? -1) + 1);
  if (step > now + 1) {
    await new Promise((r) => setTimeout(r, (step - 1) * 30000 - Date.now() + 200));
    now = Math.floor(Date.now() / 30000);
    step = Math.max(now, step);
  }
  usedSteps.set(email, step);
  await page.goto(url("/ops/signin"));
  if (new URL(page.url()).pathname !== "/ops/signin") {
    // Another operator is signed in in this browser: sign out first.
    await page.request.post(url("/ops/signout"), { headers: { Origin: BASE_URL } });
    await page.goto(url("/ops/signin"));
  }
  await page.fill("#email_address", email);
  await page.fill("#password", DEMO_PASSWORD);
  await page.fill("#code", totp(DEMO_OPERATOR_SECRET, step));
  // The answer: the landing page (after the 303), or the form again with its errors (422).
  const landed = page.waitForResponse((r) => r.request().resourceType() === "document" && r.status() !== 303);
  await page.press("#code", "Enter");
  const res = await landed;
  await page.waitForLoadState("load");
  if (new URL(page.url()).pathname === "/ops/signin") {
    const errors = await page.locator(".error-summary").innerText().catch(() => "");
    // Another process (the tests before the page-weight script) may have used this
    // step's code: the next step's is new.
    if (retry && /確認コード/.test(errors)) return signInOperator(page, email, false);
    throw new Error(`console sign-in as ${email} failed: ${errors}`);
  }
  return res;
}

/**
 * Saves a card for the signed-in browser of page without typing it, as the card-entry
 * island would: opens the add page (which opens a card setup at the PSP), posts the card
 * to the PSP's fields endpoint from the PSP's own origin, and posts the setup's id to us.
 * Answers our server's response to that post.
 */
export async function addCardThroughFields(page, pspURL, number) {
  const add = await page.request.get(url("/myaccount/creditcards/new"));
  const html = await add.text();
  const m = html.match(/data-island="card-entry" data-props="([^"]*)"/);
  if (!m) throw new Error(`the add page has no card-entry island (status ${add.status()})`);
  const props = JSON.parse(m[1].replace(/&#34;|&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
  const res = await fetch(props.fieldsUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: pspURL },
    body: JSON.stringify({ number, exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvc: "123", name: "TARO YAMADA" }),
  });
  if (res.status !== 201) throw new Error(`the PSP's fields refused the card: ${res.status}`);
  return page.request.post(url(props.action), { headers: { Origin: BASE_URL }, form: { setup: props.setup } });
}

/**
 * On our add-card page, enters a test card as the buyer does: with JavaScript into the
 * PSP's fields that the card-entry island frames (their own origin), without it on the
 * PSP's hosted page after カード情報を入力する. By keyboard. Answers the response of the
 * document it leads to (our page, or the PSP's challenge).
 */
export async function enterCardOnAddPage(page, { js, pspURL, number, expiry, holder = "TARO YAMADA", cvc = "123" }) {
  const type = async (target, selector, text) => {
    await target.focus(selector);
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Backspace");
    await page.keyboard.type(text);
  };
  if (js) {
    await page.waitForSelector("[data-island='card-entry'][data-island-mounted='true']");
    await page.locator("[data-island='card-entry'] iframe").waitFor();
    let frame;
    for (let i = 0; i < 100 && !frame; i++) {
      frame = page.frames().find((f) => f.url().startsWith(`${pspURL}/fields/`));
      if (!frame) await new Promise((r) => setTimeout(r, 50));
    }
    if (!frame) throw new Error("the PSP's fields are not framed on the add page");
    await frame.locator("#number").waitFor();
    await type(frame, "#number", number);
    await type(frame, "#exp", expiry);
    await type(frame, "#cvc", cvc);
    await type(frame, "#name", holder);
    return andWait(page, async () => {
      await frame.focus("#card-submit");
      await page.keyboard.press("Enter");
    });
  }
  await activate(page, "form[action='/myaccount/creditcards/new/hosted'] button[type=submit]");
  if (new URL(page.url()).origin !== pspURL) throw new Error(`カード情報を入力する did not open the PSP's hosted page: ${page.url()}`);
  await type(page, "#number", number);
  await type(page, "#exp", expiry);
  await type(page, "#cvc", cvc);
  await type(page, "#name", holder);
  return activate(page, "main form button[type=submit]");
}

/** A JSON API call with a buyer's tokens (from POST /login); answers the JSON, throws on >= 300. */
export async function api(method, p, tokens, body, headers = {}) {
  const h = { "Content-Type": "application/json", ...headers };
  if (tokens) {
    h.Authorization = `Bearer ${tokens.id_token}`;
    h["X-Access-Token"] = tokens.access_token;
  }
  const res = await fetch(`${BASE_URL}/api/v1${p}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (res.status >= 300) throw new Error(`${method} /api/v1${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * A supplier's mail as a mailer writes it: a text body and each file attached in base64,
 * the subject in RFC 2047, and the receiving MTA's Authentication-Results on top.
 */
export function mimeMail({ from, subject, authResults = [], files = [] }) {
  const b64 = (buf) => buf.toString("base64").replace(/.{76}/g, "$&\r\n");
  const word = (s) => `=?UTF-8?B?${Buffer.from(s).toString("base64")}?=`;
  const lines = [
    ...authResults.map((a) => `Authentication-Results: ${a}`),
    `From: ${from}`, "To: inbox", `Subject: ${word(subject)}`,
    `Message-ID: <${crypto.randomUUID()}@e2e.example>`, "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="e2e-boundary"', "",
    "--e2e-boundary", "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: base64", "",
    b64(Buffer.from("いつもお世話になっております。請求書をお送りします。")),
  ];
  for (const f of files) {
    lines.push("--e2e-boundary", `Content-Type: ${f.mimeType}; name="${word(f.name)}"`,
      `Content-Disposition: attachment; filename="${word(f.name)}"`, "Content-Transfer-Encoding: base64", "", b64(f.buffer));
  }
  lines.push("--e2e-boundary--", "");
  return lines.join("\r\n");
}

/**
 * Speaks SMTP to the server's inbound listener (INBOUND_SMTP, host:port, which tools/e2e.sh
 * exports): EHLO, MAIL, RCPT, DATA. Answers the last reply ("250 …", or the refusal).
 */
export async function sendMail(envelopeFrom, to, raw, hostport = process.env.INBOUND_SMTP) {
  assert.ok(hostport, "INBOUND_SMTP names the inbound listener (tools/e2e.sh sets it)");
  const [host, port] = hostport.split(":");
  const sock = net.connect(Number(port), host);
  sock.setEncoding("utf8");
  let buf = "";
  let lines = [];
  const replies = [];
  let waiting = null;
  sock.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\r\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      lines.push(line);
      if (/^\d{3} /.test(line)) {
        const reply = lines.join("\n");
        lines = [];
        if (waiting) {
          const w = waiting;
          waiting = null;
          w(reply);
        } else replies.push(reply);
      }
    }
  });
  const next = () => (replies.length ? Promise.resolve(replies.shift()) : new Promise((r) => (waiting = r)));
  const say = async (cmd, want) => {
    if (cmd !== null) sock.write(`${cmd}\r\n`);
    const reply = await next();
    return { ok: reply.startsWith(want), reply };
  };
  try {
    for (const [cmd, want] of [[null, "220"], ["EHLO e2e.example", "250"], [`MAIL FROM:<${envelopeFrom}>`, "250"], [`RCPT TO:<${to}>`, "250"], ["DATA", "354"]]) {
      const r = await say(cmd, want);
      if (!r.ok) return r.reply;
    }
    // Dot-stuffing: a line that starts with "." gets another.
    sock.write(raw.replace(/\r\n\./g, "\r\n..") + "\r\n.\r\n");
    const { reply } = await say(null, "250");
    await say("QUIT", "221").catch(() => {});
    return reply;
  } finally {
    sock.destroy();
  }
}

/** A bank business day about offset days ahead (Mon–Fri, Japan's date; the calendar offers only bank days). */
export function bankDay(offset) {
  const d = new Date(Date.now() + 9 * 3600_000);
  d.setUTCDate(d.getUTCDate() + offset);
  while ([0, 6].includes(d.getUTCDay())) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Chooses a radio by keyboard: focus, Space. */
export async function chooseByKeyboard(page, selector) {
  await page.locator(selector).focus();
  await page.keyboard.press("Space");
  assert.ok(await page.locator(selector).isChecked(), `${selector} is chosen`);
}

/**
 * A new sole proprietor through the JSON API with a registered supplier (name, with one
 * account) and a card that asks for 3-D Secure when saved. Answers the e-mail address, the
 * supplier's and its account's ids, and the card's challenge URL (pass it with
 * passChallenge once signed in).
 */
export async function createPayer(prefix, password, supplier) {
  const email = await createSoleProprietor(prefix, password);
  const tokens = await api("POST", "/login", null, { email_address: email, password });
  const supplierID = (await api("POST", "/suppliers/corporation", tokens, {
    name: supplier, name_kana: "トリヒキサキ", corporate_number: "1180301018771",
    account: { bank_code: "0001", branch_code: "001", account_type: 2, account_number: "3456789", holder_name: "ｶ)ﾄﾘﾋｷｻｷ" },
  })).id;
  const accountID = (await api("GET", `/suppliers/${supplierID}/accounts`, tokens)).accounts[0].id;
  const psp = (process.env.PSP_URL || "").replace(/\/$/, "");
  const res = await fetch(`${psp}/v1/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    body: JSON.stringify({ number: "4000000000003220", exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvc: "123", name: "HANAKO SATO" }),
  });
  const card = await api("POST", "/invoices/credit_cards", tokens, { token: (await res.json()).token });
  return { email, supplierID, accountID, challengeURL: card.challenge_url };
}

/** Passes the sandbox PSP's 3-D Secure challenge, open on page (res) or at challengeURL. */
export async function passChallenge(page, res, challengeURL) {
  if (!res) res = await page.goto(challengeURL);
  const psp = (process.env.PSP_URL || "").replace(/\/$/, "");
  assert.equal(new URL(page.url()).origin, psp, "the challenge is on the PSP's origin");
  const passcode = (await page.locator(".passcode strong").innerText()).trim();
  await typeInto(page, "#passcode", passcode);
  return submitFrom(page, "#passcode");
}

/** Signs a buyer in through the form (by keyboard, Enter in the password). */
export async function signInWithForm(page, email, password) {
  await page.goto(url("/signin"));
  await typeInto(page, "#email_address", email);
  await typeInto(page, "#password", password);
  await submitFrom(page, "#password");
  assert.notEqual(pagePath(page), "/signin", "the buyer signs in");
}
