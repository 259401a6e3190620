// Paying a supplier's invoice by card (issue 12) in the browser, with JavaScript on and off,
// at 360px and 1280px, by keyboard, each combination as a buyer of its own (signed up
// through the JSON API, with a supplier and a card that asks for 3-D Secure):
//   - an uploaded invoice paid to a new supplier: the file's page → 請求書の情報を入力する →
//     新しい取引先を追加する (business form, details) → its bank account (the bank and branch
//     pickers: links without JavaScript, the supplier-account island's comboboxes with it)
//     → the invoice with a day chosen on the bank-day calendar → the confirm page (fee,
//     deadline plan, card) → この内容で申請する → the PSP's challenge → 支払申請の完了 → the
//     payment's page;
//   - a draft saved at the invoice step (下書き保存), listed, resumed with its answers, then
//     deleted (選択した下書きを削除 asks はい / いいえ first: いいえ keeps it, はい deletes it);
//   - the payment sent back (as screening would, with `bin/server -send-back`), corrected
//     with a new amount (a new authorisation, challenged again) and resubmitted;
//   - the payment cancelled (はい) and found in 支払履歴;
//   - first, the card's 締め日・支払日 set on お支払い方法, so that the plan says when the card
//     is debited.
// axe runs on every page and state on the way: each step, the confirm page, the complete
// page, the lists, the drafts, the payment's page, the correction and the cancel question.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";

import { activate, andWait, assertNoProblems, BASE_URL, enterCardOnAddPage, noticeText, chooseOption, comboName, JOURNEY_COMBOS as COMBOS, createSoleProprietor, describeFocus, firstPage, launch, mainText, pageProblems, pagePath, ROOT, screenshot, submitFrom, textPDF, typeInto, url, watchErrors, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 180_000 };
const PASSWORD = "e2ePayments2026pw";
const PSP_URL = (process.env.PSP_URL || "").replace(/\/$/, "");
const API = `${BASE_URL}/api/v1`;
const SUPPLIER = "株式会社テスト商会";

// --- Set-up through the API ------------------------------------------------------------------

async function api(method, p, tokens, body) {
  const headers = { "Content-Type": "application/json" };
  if (tokens) {
    headers.Authorization = `Bearer ${tokens.id_token}`;
    headers["X-Access-Token"] = tokens.access_token;
  }
  const res = await fetch(API + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (res.status >= 300) throw new Error(`${method} /api/v1${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A supplier with its bank account, and a card token at the sandbox PSP (its own origin). */
async function setUp(email) {
  const tokens = await api("POST", "/login", null, { email_address: email, password: PASSWORD });
  const sup = await api("POST", "/suppliers/corporation", tokens, {
    name: SUPPLIER, name_kana: "テストショウカイ", corporate_number: "1180301018771",
    account: { bank_code: "0001", branch_code: "001", account_type: 2, account_number: "7654321", holder_name: "ｶ)ﾃｽﾄｼﾖｳｶｲ" },
  });
  const res = await fetch(`${PSP_URL}/v1/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    body: JSON.stringify({ number: "4000000000003220", exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvc: "123", name: "HANAKO SATO" }),
  });
  const { token } = await res.json();
  const card = await api("POST", "/invoices/credit_cards", tokens, { token });
  return { supplierID: sup.id, challengeURL: card.challenge_url };
}

/** An invoice uploaded through the API: its file page is where the browser starts. */
async function uploadInvoice(email) {
  const tokens = await api("POST", "/login", null, { email_address: email, password: PASSWORD });
  const form = new FormData();
  form.append("invoice_file", new Blob([textPDF(["INVOICE", "Total JPY 88,000"])], { type: "application/pdf" }), "invoice.pdf");
  const res = await fetch(`${API}/invoices/files/upload`, {
    method: "POST",
    headers: { Authorization: `Bearer ${tokens.id_token}`, "X-Access-Token": tokens.access_token },
    body: form,
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`upload: ${res.status} ${JSON.stringify(json)}`);
  return json.id;
}

/** Sends a payment back as screening would (development only; the ops console comes later). */
function sendBack(id, reason) {
  const r = spawnSync(path.join(ROOT, "bin/server"), ["-send-back", `${id}:${reason}`], {
    env: { ...process.env, DATABASE_NAME: process.env.E2E_DB_NAME || "cardpay_e2e" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `bin/server -send-back: ${r.stderr}`);
}

/** A bank business day about two weeks ahead (Mon–Fri; the calendar offers only bank days). */
function transferDay(offset = 14) {
  const d = new Date(Date.now() + 9 * 3600_000); // Japan's date
  d.setUTCDate(d.getUTCDate() + offset);
  while ([0, 6].includes(d.getUTCDay())) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

for (const combo of COMBOS) {
  const name = comboName(combo);
  const { js } = combo;

  describe(`payments (${name})`, () => {
    let context;
    let page;
    let errors = [];
    let email;
    let setup;
    let paymentID;

    before(async () => {
      email = await createSoleProprietor(`e2e-pay-${js ? "js" : "nojs"}${combo.width}`, PASSWORD);
      setup = await setUp(email);
      context = await launch(combo);
      page = await firstPage(context);
      errors = await watchErrors(context, page);
      await page.goto(url("/signin"));
      await typeInto(page, "#email_address", email);
      await typeInto(page, "#password", PASSWORD);
      await submitFrom(page, "#password");
      assert.notEqual(pagePath(page), "/signin", "the buyer signs in");
      // The card asked for a challenge when it was saved: pass it.
      if (setup.challengeURL) await passChallenge();
    });
    after(async () => {
      await context?.close();
    });

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          errors.length = 0;
          await fn(t);
          assert.deepEqual(errors, [], "no script errors or CSP violations");
        } catch (err) {
          const shot = await screenshot(page, `payments ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        }
      });

    /** The checks every page of ours passes; with JavaScript the snackbar is let settle. */
    async function check(t, res, label, status = 200) {
      if (js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    /** On the PSP's challenge page (already open or at setup.challengeURL): the shown passcode. */
    async function passChallenge(res) {
      if (!res) res = await page.goto(setup.challengeURL);
      assert.equal(new URL(page.url()).origin, PSP_URL, "the challenge is on the PSP's origin");
      const passcode = (await page.locator(".passcode strong").innerText()).trim();
      await typeInto(page, "#passcode", passcode);
      return submitFrom(page, "#passcode");
    }

    /** Chooses a radio by keyboard: focus, Space. */
    async function choose(selector) {
      await page.locator(selector).focus();
      await page.keyboard.press("Space");
      assert.ok(await page.locator(selector).isChecked(), `${selector} is chosen`);
    }

    const button = (label) => `main form button:has-text('${label}')`;

    /** The invoice step: amount, due date, a day on the calendar. */
    async function fillInvoice(amount) {
      await page.locator("#amount").fill("");
      await typeInto(page, "#amount", amount);
      await typeInto(page, "#invoice_number", "E2E-001");
      const day = transferDay();
      // A date input takes its value in the browser's own format when typed; fill sets the ISO value.
      await page.locator("#due_date").fill(transferDay(20));
      await choose(`#transfer_date-${day}`);
      return day;
    }

    test("the card's 締め日・支払日 set on お支払い方法", async (t) => {
      let res = await page.goto(url("/myaccount/creditcards"));
      res = await activate(page, "main a[href$='/cycle']");
      assert.match(pagePath(page), /^\/myaccount\/creditcards\/\d+\/cycle$/);
      await check(t, res, "締め日・支払日の設定");
      // Nothing chosen: refused with the reasons next to the fields.
      res = await activate(page, button("保存する"));
      await check(t, res, "締め日・支払日の設定 (errors)", 422);
      // Choices made in the selects (selectOption stands for the arrow keys a person uses).
      await page.selectOption("#closing_day", "15");
      await page.selectOption("#months_later", "1");
      await page.selectOption("#payment_day", "10");
      res = await activate(page, button("保存する"));
      assert.equal(pagePath(page), "/myaccount/creditcards");
      await check(t, res, "お支払い方法 (cycle saved)");
      assert.match(await mainText(page), /15日締め・翌月10日払い/);
    });

    test("an uploaded invoice paid to a new supplier, with a 3-D Secure challenge", async (t) => {
      const fileID = await uploadInvoice(email);
      let res = await page.goto(url(`/payments/create/files/${fileID}`));
      for (let i = 0; i < 40 && (await mainText(page)).includes("読み取り中"); i++) {
        await new Promise((r) => setTimeout(r, 250));
        res = await page.reload();
      }
      res = await activate(page, "main a[href^='/payments/add/invoiceinfo']");
      assert.equal(pagePath(page), "/payments/add/invoiceinfo");
      await check(t, res, "支払先の選択");
      assert.match(await mainText(page), /読み取り/, "it says the fields were read from the invoice");
      await choose("input[name=supplier][value='new']");
      res = await activate(page, button("次へ"));
      assert.equal(pagePath(page), "/payments/add/supplier");
      await check(t, res, "新しい取引先の事業形態");
      await choose("#business_form");
      res = await activate(page, button("次へ"));
      await check(t, res, "新しい取引先の情報");
      await typeInto(page, "#corporate_number", "2180301018770");
      await typeInto(page, "#name", "株式会社新規取引");
      await typeInto(page, "#name_kana", "しんきとりひき");
      res = await activate(page, button("次へ"));
      assert.equal(pagePath(page), "/payments/add/account/new");
      const accountForm = "form[action='/payments/add/account/new']";
      if (js) {
        await page.waitForSelector("[data-island='supplier-account'][data-island-mounted='true']");
        await check(t, res, "新しい振込先口座 (island)");
        await chooseOption(page, "#bank_search", "#bank_listbox", "みずほ", "みずほ銀行");
        await chooseOption(page, "#branch_search", "#branch_listbox", "東京営業部", "東京営業部");
      } else {
        await check(t, res, "新しい振込先口座 (主な金融機関)");
        res = await activate(page, ".choice-list a[href='/payments/add/account/new?bank_code=0001']");
        await check(t, res, "新しい振込先口座 (支店)");
        await typeInto(page, "#branch_q", "東京営業部");
        res = await submitFrom(page, "#branch_q");
        res = await activate(page, ".choice-list a[href='/payments/add/account/new?bank_code=0001&branch_code=001']");
        await check(t, res, "新しい振込先口座 (口座)");
      }
      await choose("#account_type");
      await typeInto(page, "#account_number", "7654321");
      await typeInto(page, "#holder_name", "カ）シンキトリヒキ");
      res = await activate(page, `${accountForm} button[type=submit]`);
      assert.equal(pagePath(page), "/payments/add/invoice");
      await check(t, res, "請求書の内容と振込日");
      await fillInvoice("88000");
      res = await activate(page, button("確認へ進む"));
      assert.equal(pagePath(page), "/payments/add/confirm");
      await check(t, res, "申請内容の確認");
      const text = await mainText(page);
      assert.match(text, /¥88,000/);
      assert.match(text, /¥2,640/, "the 3.0 % fee");
      assert.match(text, /¥90,640/, "the total charged");
      assert.match(text, /お支払いの予定/);
      assert.match(text, /にカードのお引き落とし（15日締め・翌月10日払い）/, "the plan says when the card is debited");
      assert.match(text, /株式会社新規取引/);
      assert.match(text, /新規登録/);
      assert.ok(await page.locator("input[name=card_id]").first().isChecked(), "the saved card is chosen");
      res = await activate(page, "button[value=submit]");
      res = await passChallenge(res);
      assert.equal(pagePath(page), "/payments/complete");
      await check(t, res, "支払申請の完了");
      assert.match(await mainText(page), /支払申請を受け付けました/);
      res = await activate(page, "main a:has-text('このお支払いを見る')");
      paymentID = pagePath(page).match(/^\/payments\/review\/(\d+)$/)?.[1];
      assert.ok(paymentID, `on the payment's page: ${pagePath(page)}`);
      await check(t, res, "the payment's page");
      assert.match(await mainText(page), /VISA •••• 3220/);
      res = await page.goto(url("/payments/review"));
      await check(t, res, "/payments/review");
      assert.match(await mainText(page), /審査中（1）/);
    });

    test("a draft saved at the invoice step, listed and resumed", async (t) => {
      let res = await page.goto(url("/payments/add/invoiceinfo?new=1"));
      await choose(`input[name=supplier][value='${setup.supplierID}']`);
      await activate(page, button("次へ"));
      await choose("#account");
      await activate(page, button("次へ"));
      await typeInto(page, "#amount", "45678");
      res = await activate(page, button("下書き保存"));
      assert.equal(pagePath(page), "/payments/draft");
      await check(t, res, "下書き");
      assert.match(await mainText(page), /¥45,678/);
      res = await activate(page, "main a[href^='/payments/draft/']");
      assert.equal(pagePath(page), "/payments/add/invoice", "it resumes at the step it was saved on");
      assert.equal(await page.locator("#amount").inputValue(), "45678");
      // Bad input keeps what was typed and says why next to the field.
      await page.locator("#amount").fill("");
      await typeInto(page, "#amount", "12.5");
      res = await activate(page, button("確認へ進む"));
      await check(t, res, "the invoice step with errors", 422);
      assert.equal(await focusedId(page, "error-summary"), "error-summary", "focus on the error summary");
      assert.equal(await page.locator("#amount").inputValue(), "12.5");
    });

    test("deleting a draft asks はい / いいえ first", async (t) => {
      let res = await page.goto(url("/payments/draft"));
      await check(t, res, "下書き");
      await choose("main input[name=draft]");
      res = await activate(page, button("選択した下書きを削除"));
      assert.equal(pagePath(page), "/payments/draft/delete");
      await check(t, res, "the drafts' delete question");
      assert.match(await mainText(page), /下書きを削除しますか？/);
      assert.match(await mainText(page), /¥45,678/, "the question names the draft");
      // いいえ: back to the list, the draft kept.
      res = await activate(page, "main a:has-text('いいえ')");
      assert.equal(pagePath(page), "/payments/draft");
      assert.match(await mainText(page), /¥45,678/);
      await choose("main input[name=draft]");
      await activate(page, button("選択した下書きを削除"));
      res = await activate(page, button("はい"));
      assert.equal(pagePath(page), "/payments/draft");
      await check(t, res, "下書き after deleting");
      assert.match(await noticeText(page), /下書きを1件削除しました/);
      assert.doesNotMatch(await mainText(page), /¥45,678/);
    });

    test("a payment paid with a card added from the confirm page (the PSP's fields or hosted page)", async (t) => {
      let res = await page.goto(url("/payments/add/invoiceinfo?new=1"));
      await choose(`input[name=supplier][value='${setup.supplierID}']`);
      await activate(page, button("次へ"));
      await choose("#account");
      await activate(page, button("次へ"));
      await fillInvoice("23456");
      res = await activate(page, button("確認へ進む"));
      assert.equal(pagePath(page), "/payments/add/confirm");
      // カードを追加 on the confirm page: the add page, then back here with the new card chosen.
      res = await activate(page, "main a[href^='/myaccount/creditcards/new?return=']");
      assert.equal(pagePath(page), "/myaccount/creditcards/new");
      if (js) await page.waitForSelector("[data-island='card-entry'][data-island-mounted='true']");
      await assertNoProblems(t, page, await pageProblems(page, res, { frames: js }), `カードの追加 from the confirm page (${name})`);
      const expiry = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`;
      res = await enterCardOnAddPage(page, { js, pspURL: PSP_URL, number: "5555 5555 5555 4444", expiry });
      assert.equal(pagePath(page), "/payments/add/confirm", "back on the confirm page");
      await check(t, res, "申請内容の確認 (a card just added)");
      assert.match(await noticeText(page), /カードを登録しました/);
      const chosen = page.locator("input[name=card_id]:checked");
      assert.equal(await chosen.count(), 1);
      assert.match(await page.locator(`label[for='${await chosen.getAttribute("id")}']`).innerText(), /4444/, "the new card is chosen");
      res = await activate(page, "button[value=submit]");
      assert.equal(pagePath(page), "/payments/complete", "a frictionless card: no challenge");
      await check(t, res, "支払申請の完了 (the new card)");
      res = await activate(page, "main a:has-text('このお支払いを見る')");
      assert.match(await mainText(page), /Mastercard •••• 4444|MASTER •••• 4444/);
    });

    test("the payment sent back, corrected with a new amount and resubmitted", async (t) => {
      assert.ok(paymentID, "the first test made a payment");
      sendBack(paymentID, "請求書の金額と入力された金額が異なります。");
      let res = await page.goto(url("/payments/review"));
      await check(t, res, "/payments/review with 要対応");
      assert.match(await mainText(page), /要対応/);
      res = await activate(page, `main a[href='/payments/review/${paymentID}']`);
      await check(t, res, "the sent-back payment's page");
      assert.match(await mainText(page), /請求書の金額と入力された金額が異なります。/);
      res = await activate(page, "main a:has-text('内容を修正して再申請する')");
      assert.equal(pagePath(page), `/payments/edit/${paymentID}/invoiceinfo`);
      await check(t, res, "the correction");
      await page.locator("#amount").fill("");
      await typeInto(page, "#amount", "99000");
      res = await activate(page, button("確認へ進む"));
      assert.equal(pagePath(page), `/payments/edit/${paymentID}/confirm`);
      await check(t, res, "the correction's confirm page");
      assert.match(await mainText(page), /¥101,970/, "the new total");
      res = await activate(page, button("この内容で再申請する"));
      res = await passChallenge(res);
      assert.equal(pagePath(page), `/payments/review/${paymentID}`);
      await check(t, res, "the payment resubmitted");
      const text = await mainText(page);
      assert.match(text, /修正して再申請/);
      assert.doesNotMatch(text, /要対応/);
    });

    test("the payment cancelled (はい) and found in 支払履歴", async (t) => {
      let res = await page.goto(url(`/payments/review/${paymentID}`));
      res = await activate(page, "main a:has-text('このお支払いをキャンセルする')");
      await check(t, res, "the cancel question");
      res = await activate(page, "main form button:has-text('はい')");
      assert.equal(pagePath(page), `/payments/history/${paymentID}`);
      await check(t, res, "the cancelled payment");
      assert.match(await mainText(page), /キャンセル（お客様による）/);
      res = await page.goto(url("/payments/history"));
      await check(t, res, "/payments/history");
      assert.match(await mainText(page), /支払履歴（1）/);
    });
  });
}
