// 操作マニュアル's pictures and よくあるご質問's search (issue 31).
//
// The manual (handlers/info/manual.go) shows a picture of the real page at each step of
// each journey. This file walks the journeys as a buyer would (JavaScript on, 1280×800:
// a new sole proprietor signed up through the API for most, the demo corporation for the
// receipts and the card-payment requests) and takes each picture into
// static/manual/<name>.jpg on every run, so that the pictures stay true: a page that
// changes fails its journey or changes its picture (commit the pictures with the change;
// `task dev` serves them from the binary without running this). Pictures are JPEG at
// quality 65, clipped to the page's main region (at most MAX_HEIGHT px tall), so the set
// stays small; the Go test (handlers/info TestManualPictures) prints their size.
// At the end, the manual page names exactly the pictures taken.
//
// よくあるご質問 is searched by keyboard with JavaScript off at 360px (type, Enter,
// results), and its results and no-result pages pass axe in both combinations.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";

import {
  CORP,
  ROOT,
  activate,
  andWait,
  assertNoProblems,
  bankDay,
  chooseByKeyboard,
  chooseOption,
  createSoleProprietor,
  describeFocus,
  firstPage,
  lastMailId,
  launch,
  mailCode,
  mainText,
  pageProblems,
  pagePath,
  passChallenge,
  screenshot,
  signIn,
  signInWithForm,
  submitFrom,
  tabTo,
  textPDF,
  totp,
  typeInto,
  url,
  waitForMail,
} from "./lib.mjs";

const TIMEOUT = { timeout: 180_000 };
const PASSWORD = "e2eManual2026pw";
const PSP_URL = (process.env.PSP_URL || "").replace(/\/$/, "");
const OUT = path.join(ROOT, "static/manual");
const WIDTH = 1280;
const HEIGHT = 800;
/** The tallest picture: a long page is shown from its top, where the step is done. */
const MAX_HEIGHT = 900;
const SUPPLIER = "株式会社マニュアル商事";

/** The names of the pictures taken in this run. */
const taken = new Set();

/**
 * Takes picture `name` of the page: the box round every element that `select` matches
 * (the main region's content by default), from the top of `from` and down to the bottom
 * of `until` when given, padded a little, at most MAX_HEIGHT tall. Focus is taken off the
 * page (no focus ring in the picture) and the flash notice hidden: it comes and goes, and
 * would cover the page.
 */
async function shoot(page, name, { select = "main > *", from, until } = {}) {
  await page.evaluate(() => document.fonts.ready);
  // Through the CSSOM: the pages' policy allows no <style> element (Playwright's
  // screenshot option `style` would add one).
  await page.evaluate(() => {
    document.activeElement?.blur();
    for (const r of document.querySelectorAll(".snackbar-region")) r.style.visibility = "hidden";
    window.scrollTo(0, 0);
  });
  const boxes = [];
  for (const el of await page.locator(select).all()) {
    const b = await el.boundingBox();
    if (b && b.width > 0 && b.height > 0) boxes.push(b);
  }
  assert.ok(boxes.length > 0, `${name}: ${select} is on the page`);
  const box = async (selector) => {
    const b = await page.locator(selector).first().boundingBox();
    assert.ok(b, `${name}: ${selector} is on the page`);
    return b;
  };
  const pad = 12;
  const x = Math.max(0, Math.min(...boxes.map((b) => b.x)) - pad);
  const right = Math.min(WIDTH, Math.max(...boxes.map((b) => b.x + b.width)) + pad);
  const y = Math.max(0, (from ? (await box(from)).y : Math.min(...boxes.map((b) => b.y))) - pad);
  const u = until ? await box(until) : null;
  const bottom = (u ? u.y + u.height : Math.max(...boxes.map((b) => b.y + b.height))) + pad;
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({
    path: path.join(OUT, `${name}.jpg`),
    type: "jpeg",
    quality: 65,
    fullPage: true,
    clip: { x, y, width: right - x, height: Math.min(bottom - y, MAX_HEIGHT) },
    animations: "disabled",
    caret: "hide",
  });
  taken.add(name);
}

/** Sends a payment back as screening would (development only: bin/server -send-back). */
function sendBack(id, reason) {
  const r = spawnSync(path.join(ROOT, "bin/server"), ["-send-back", `${id}:${reason}`], {
    env: { ...process.env, DATABASE_NAME: process.env.E2E_DB_NAME || "cardpay_e2e" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `bin/server -send-back: ${r.stderr}`);
}

const button = (label) => `main form button:has-text('${label}')`;

describe("操作マニュアル: the journeys and their pictures (JS on, 1280px)", () => {
  let context;
  let page;
  let email;
  let paymentID;

  before(async () => {
    email = await createSoleProprietor("e2e-manual", PASSWORD);
    context = await launch({ js: true, width: WIDTH, height: HEIGHT });
    page = await firstPage(context);
  });
  after(async () => {
    await context?.close();
  });

  const test = (title, fn) =>
    it(title, TIMEOUT, async () => {
      try {
        await fn();
      } catch (err) {
        const shot = await screenshot(page, `manual ${title}`);
        if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
        throw err;
      }
    });

  test("会員登録: the form, the code, the business form", async () => {
    const address = `e2e-manual-signup-${Date.now().toString(36)}@e2e.example`;
    await page.goto(url("/signup"));
    await typeInto(page, "#email_address", address);
    await typeInto(page, "#password", PASSWORD);
    await chooseByKeyboard(page, "#consent");
    await shoot(page, "signup-form");
    const mark = await lastMailId();
    await activate(page, "form[action='/signup'] button[type=submit]");
    assert.equal(pagePath(page), "/signup/code");
    await shoot(page, "signup-code");
    const code = mailCode(await waitForMail(address, "認証コード", mark));
    await typeInto(page, "#code", code);
    await submitFrom(page, "#code");
    assert.equal(pagePath(page), "/registration");
    await chooseByKeyboard(page, "#business_form");
    await shoot(page, "signup-registration");
  });

  test("カードの登録: お支払い方法, the PSP's fields, 3-D Secure, the card listed", async () => {
    await signInWithForm(page, email, PASSWORD);
    await page.goto(url("/myaccount/creditcards"));
    assert.match(await mainText(page), /新しいカードを追加する|最初のカードを追加する/);
    await shoot(page, "card-list");
    // The empty list offers the add page twice (the page's button and the empty state's).
    await andWait(page, async () => {
      await page.locator("main a[href='/myaccount/creditcards/new']").first().focus();
      await page.keyboard.press("Enter");
    });
    await page.waitForSelector("[data-island='card-entry'][data-island-mounted='true']");
    await page.locator("[data-island='card-entry'] iframe").waitFor();
    let frame;
    for (let i = 0; i < 100 && !frame; i++) {
      frame = page.frames().find((f) => f.url().startsWith(`${PSP_URL}/fields/`));
      if (!frame) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(frame, "the PSP's fields are framed on the add page");
    const type = async (selector, text) => {
      await frame.locator(selector).waitFor();
      await frame.focus(selector);
      await page.keyboard.type(text);
    };
    await type("#number", "4000 0000 0000 3220");
    await type("#exp", `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`);
    await type("#cvc", "123");
    await type("#name", "HANAKO SATO");
    await shoot(page, "card-add");
    const res = await andWait(page, async () => {
      await frame.focus("#card-submit");
      await page.keyboard.press("Enter");
    });
    assert.equal(new URL(page.url()).origin, PSP_URL, "the card asks for 3-D Secure on the PSP's page");
    await shoot(page, "card-3ds", { select: "main" });
    await passChallenge(page, res);
    assert.equal(pagePath(page), "/myaccount/creditcards");
    assert.match(await mainText(page), /3220/);
    await shoot(page, "card-added");
  });

  test("取引先の登録: business form, details, bank account, confirm", async () => {
    await page.goto(url("/suppliers?status=enable"));
    await activate(page, ".page-head a[href='/suppliers/add/company']");
    await chooseByKeyboard(page, "#business_form");
    await shoot(page, "supplier-form");
    await activate(page, "form[action='/suppliers/add/company'] button[type=submit]");
    await typeInto(page, "#corporate_number", "2180301018770");
    await typeInto(page, "#name", SUPPLIER);
    await typeInto(page, "#name_kana", "マニュアルショウジ");
    await shoot(page, "supplier-details");
    await activate(page, "form[action='/suppliers/add/company'][method=post] button[type=submit]");
    assert.equal(pagePath(page), "/suppliers/add/bank");
    await page.waitForSelector("[data-island='supplier-account'][data-island-mounted='true']");
    await chooseOption(page, "#bank_search", "#bank_listbox", "みずほ", "みずほ銀行");
    await chooseOption(page, "#branch_search", "#branch_listbox", "東京営業部", "東京営業部");
    await chooseByKeyboard(page, "#account_type");
    await typeInto(page, "#account_number", "2345678");
    await typeInto(page, "#holder_name", "マニュアルショウジ（カ）");
    await page.keyboard.press("Tab");
    await page.waitForFunction(() => /登録される口座名義：/.test(document.querySelector("#holder_name-preview")?.textContent ?? ""));
    await shoot(page, "supplier-bank");
    await activate(page, "form[action='/suppliers/add/bank'] button[type=submit]");
    assert.equal(pagePath(page), "/suppliers/add/confirm");
    await shoot(page, "supplier-confirm");
    await activate(page, "form[action='/suppliers/add/confirm'] button[type=submit]");
    assert.match(pagePath(page), /^\/suppliers\/\d+$/, "registered");
  });

  test("請求書をカードで支払う: upload, the file, supplier, account, invoice, confirm, 3-D Secure, complete", async () => {
    await page.goto(url("/payments/create"));
    const island = "[data-island='invoice-upload']";
    await page.waitForSelector(`${island}[data-island-mounted='true']`);
    await page.setInputFiles("#invoice_file", { name: "請求書.pdf", mimeType: "application/pdf", buffer: textPDF(["INVOICE", "Total JPY 88,000"]) });
    await page.locator(`${island} figure.invoice-upload__preview`).waitFor();
    await shoot(page, "pay-upload");
    // アップロードする: the island uploads, waits for the reading, and opens the file's page.
    await page.locator(`${island} .form-actions button`).focus();
    await Promise.all([
      page.waitForURL((u) => /^\/payments\/create\/files\/\d+$/.test(u.pathname), { timeout: 90_000, waitUntil: "load" }),
      page.keyboard.press("Enter"),
    ]);
    for (let i = 0; i < 60 && (await mainText(page)).includes("読み取り中"); i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    await shoot(page, "pay-file", { from: "main h2:has-text('読み取り結果')", until: "main a[href^='/payments/add/invoiceinfo']" });
    await activate(page, "main a[href^='/payments/add/invoiceinfo']");
    assert.equal(pagePath(page), "/payments/add/invoiceinfo");
    const label = page.locator("main label", { hasText: SUPPLIER });
    await chooseByKeyboard(page, `#${await label.first().getAttribute("for")}`);
    await shoot(page, "pay-supplier");
    await activate(page, button("次へ"));
    await chooseByKeyboard(page, "#account");
    await shoot(page, "pay-account");
    await activate(page, button("次へ"));
    assert.equal(pagePath(page), "/payments/add/invoice");
    await page.locator("#amount").fill("");
    await typeInto(page, "#amount", "88000");
    await typeInto(page, "#invoice_number", "INV-2026-001");
    await page.locator("#due_date").fill(bankDay(20));
    await chooseByKeyboard(page, `#transfer_date-${bankDay(14)}`);
    await shoot(page, "pay-invoice");
    await activate(page, button("確認へ進む"));
    assert.equal(pagePath(page), "/payments/add/confirm");
    assert.match(await mainText(page), /¥88,000/);
    await shoot(page, "pay-confirm", { from: "#fee", until: "button[value=submit]" });
    const res = await activate(page, "button[value=submit]");
    assert.equal(new URL(page.url()).origin, PSP_URL, "the payment asks for 3-D Secure");
    await shoot(page, "pay-3ds", { select: "main" });
    await passChallenge(page, res);
    assert.equal(pagePath(page), "/payments/complete");
    await shoot(page, "pay-complete");
    await activate(page, "main a:has-text('このお支払いを見る')");
    paymentID = pagePath(page).match(/^\/payments\/review\/(\d+)$/)?.[1];
    assert.ok(paymentID, `on the payment's page: ${pagePath(page)}`);
  });

  test("差し戻しへの対応: the reason on the payment, the correction", async () => {
    assert.ok(paymentID, "the payment journey made a payment");
    sendBack(paymentID, "請求書の金額と入力された金額が異なります。請求書をご確認のうえ、修正してください。");
    await page.goto(url(`/payments/review/${paymentID}`));
    assert.match(await mainText(page), /要対応/);
    await shoot(page, "send-back-payment");
    await activate(page, "main a:has-text('内容を修正して再申請する')");
    assert.equal(pagePath(page), `/payments/edit/${paymentID}/invoiceinfo`);
    await shoot(page, "send-back-edit");
  });

  test("請求書受付メールアドレス: the address issued", async () => {
    await page.goto(url("/receipt-invoices/address"));
    if ((await page.locator(button("アドレスを発行する")).count()) > 0) await activate(page, button("アドレスを発行する"));
    assert.match(await mainText(page), /@/, "the address is shown");
    await shoot(page, "inbox-address");
  });

  test("セキュリティ設定: the authenticator app, its QR code, the recovery codes", async () => {
    await page.goto(url("/myaccount/security"));
    await chooseByKeyboard(page, "input[name='two_factor_method'][value='totp']");
    await typeInto(page, "#current_password", PASSWORD);
    await shoot(page, "security", { until: "form[action='/myaccount/security'] button[type=submit]" });
    await submitFrom(page, "#current_password");
    assert.equal(pagePath(page), "/myaccount/security/totp");
    await shoot(page, "security-totp");
    const secret = (await page.locator("#totp-secret").innerText()).replace(/\s+/g, "");
    await typeInto(page, "#code", totp(secret));
    await submitFrom(page, "#code");
    assert.equal(pagePath(page), "/myaccount/security/recovery-codes");
    await shoot(page, "security-recovery");
  });

  test("領収書 and カード払い依頼 (the demo corporation)", async () => {
    await signIn(page, CORP);
    await page.goto(url("/payments/history"));
    const links = page.locator("main a[href^='/payments/history/']");
    let found = false;
    for (let i = 0; i < (await links.count()) && !found; i++) {
      await page.goto(url(await links.nth(i).getAttribute("href")));
      found = (await page.locator("main h2.section-title", { hasText: "領収書" }).count()) > 0;
      if (!found) await page.goto(url("/payments/history"));
    }
    assert.ok(found, "the demo corporation has a transferred payment with its receipts");
    const heading = "main h2.section-title:has-text('領収書')";
    await shoot(page, "receipts", { from: heading, until: `${heading} + ul.link-list` });
    await page.goto(url("/collections/create"));
    assert.equal(pagePath(page), "/collections/create");
    await shoot(page, "collections-create");
    await page.goto(url("/collections/request"));
    assert.match(await mainText(page), /依頼中/);
    await shoot(page, "collections-list");
  });

  test("the manual names exactly the pictures taken", async () => {
    const res = await page.goto(url("/help/manual"));
    assert.equal(res.status(), 200);
    const srcs = await page.locator("main img").evaluateAll((imgs) => imgs.map((i) => new URL(i.src).pathname));
    const names = srcs.map((s) => s.match(/^\/static\/manual\/(.+)\.[0-9a-f]{12}\.jpg$/)?.[1]);
    assert.ok(names.every(Boolean), `every picture is a hashed static/manual URL: ${srcs.join(", ")}`);
    assert.deepEqual([...names].sort(), [...taken].sort());
  });
});

describe("よくあるご質問: searched without JavaScript", () => {
  for (const combo of [{ js: false, width: 360 }, { js: true, width: 1280 }]) {
    const name = `JS ${combo.js ? "on" : "off"}, ${combo.width}px`;
    let context;
    let page;
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
    });
    after(async () => {
      await context?.close();
    });

    it(`by keyboard: type 振込日, Enter, the results (${name})`, TIMEOUT, async (t) => {
      await page.goto(url("/help/faq"));
      await tabTo(page, "#faq-q", { max: 60 });
      await page.keyboard.type("振込日");
      const res = await andWait(page, () => page.keyboard.press("Enter"));
      const u = new URL(page.url());
      assert.equal(u.pathname, "/help/faq");
      assert.equal(u.searchParams.get("q"), "振込日");
      const n = await page.locator("main h3").count();
      assert.ok(n > 0, "some questions match");
      assert.match(await mainText(page), new RegExp(`「振込日」を含む質問：${n}件`));
      assert.equal(await page.inputValue("#faq-q"), "振込日", "the search stays in the box");
      await assertNoProblems(t, page, await pageProblems(page, res), `よくあるご質問 ?q=振込日 (${name})`);
    });

    it(`a search that finds nothing says so and leads back to every question (${name})`, TIMEOUT, async (t) => {
      const res = await page.goto(url(`/help/faq?q=${encodeURIComponent("宇宙旅行")}`));
      assert.match(await mainText(page), /「宇宙旅行」を含む質問：0件/);
      assert.match(await mainText(page), /見つかりませんでした/);
      await assertNoProblems(t, page, await pageProblems(page, res), `よくあるご質問 no result (${name})`);
      await activate(page, "main a[href='/help/faq']");
      assert.ok((await page.locator("main h3").count()) >= 25, "every question again");
    });
  }
});
