// The whole life of a payment through the operator console (issue 13), in a real
// Chromium with JavaScript on (1280px) and off (360px), by keyboard, axe on every page:
//   - a new buyer pays a new supplier (set up through the API: sign-up, supplier, card,
//     submission, as the journey's own tests do it through the pages);
//   - the first screener signs in (address, password, authenticator code), finds the
//     payment in the queue, approves the supplier and checks the payment (確認済);
//   - the second screener completes it (審査完了): the card is captured;
//   - the administrator (振込) makes the day's 総合振込 file, downloads it, marks it sent
//     and the payment transferred (振込完了);
//   - the buyer reads the notification and downloads both receipts;
//   - another payment is sent back from the console; the buyer sees why, corrects the
//     amount and resubmits it, and it is back in the screeners' queue;
//   - (issue 24) a held corporation's page in アカウントの確認; an administrator proposes an
//     operator, a second approves, and the invitee sets their own password and
//     authenticator from the mailed link.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  activate, assertNoProblems, BASE_URL, comboName, createHeldCorporation, createSoleProprietor, describeFocus, firstPage,
  lastMailId, launch, mainText, OPERATORS, pageProblems, pagePath, screenshot, signInOperator, submitFrom, totp, typeInto,
  url, waitForMail, watchErrors,
} from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };
const PASSWORD = "e2eOpsConsole2026pw";
const PSP_URL = (process.env.PSP_URL || "").replace(/\/$/, "");
const API = `${BASE_URL}/api/v1`;
const COMBOS = [{ js: true, width: 1280 }, { js: false, width: 360 }];

async function api(method, p, tokens, body, headers = {}) {
  const h = { "Content-Type": "application/json", ...headers };
  if (tokens) {
    h.Authorization = `Bearer ${tokens.id_token}`;
    h["X-Access-Token"] = tokens.access_token;
  }
  const res = await fetch(API + p, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (res.status >= 300) throw new Error(`${method} /api/v1${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A bank business day about ten days ahead (no Japanese holiday falls near it this season). */
function transferDay(offset = 10) {
  const d = new Date(Date.now() + 9 * 3600_000);
  d.setUTCDate(d.getUTCDate() + offset);
  while ([0, 6].includes(d.getUTCDay())) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** A buyer with a new (unapproved) supplier and a saved card, and two payments submitted. */
async function setUp(prefix) {
  const email = await createSoleProprietor(prefix, PASSWORD);
  const tokens = await api("POST", "/login", null, { email_address: email, password: PASSWORD });
  const supplierName = `株式会社運用試験${prefix.slice(-4)}`;
  const sup = await api("POST", "/suppliers/corporation", tokens, {
    name: supplierName, name_kana: "ウンヨウシケン", corporate_number: "1180301018771",
    account: { bank_code: "0001", branch_code: "001", account_type: 2, account_number: "2345678", holder_name: "ｶ)ｳﾝﾖｳｼｹﾝ" },
  });
  const accounts = await api("GET", `/suppliers/${sup.id}/accounts`, tokens);
  const account = accounts.accounts[0];
  const res = await fetch(`${PSP_URL}/v1/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    body: JSON.stringify({ number: "4111111111111111", exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvc: "123", name: "HANAKO SATO" }),
  });
  const { token } = await res.json();
  const card = await api("POST", "/invoices/credit_cards", tokens, { token });
  const day = transferDay();
  const due = transferDay(20);
  const submit = (key, amount) =>
    api("POST", "/invoices", tokens, {
      supplier_id: sup.id, account_id: account.id, card_id: card.credit_card.id,
      invoice: { amount, due_date: due, transfer_date: day, invoice_number: `OPS-${key}` },
    }, { "Idempotency-Key": `${prefix}-${key}` });
  const paid = await submit("life", "88,000");
  const back = await submit("back", "12,000");
  // One per combination (the database is new each run); kana only, which no
  // normalisation changes.
  const heldName = `なりすまし商事${prefix.includes("nojs") ? "ニ" : "イチ"}株式会社`;
  await createHeldCorporation(`${prefix}-held`, PASSWORD, heldName);
  return { email, supplierName, supplierID: sup.id, day, paid: paid.id, back: back.id, heldName };
}

const number = (id) => `I-${String(id).padStart(8, "0")}`;

for (const combo of COMBOS) {
  const name = comboName(combo);

  describe(`operator console (${name})`, () => {
    let setup;
    const contexts = [];
    const pages = {};
    let current; // the page a failure's screenshot shows

    before(async () => {
      setup = await setUp(`e2e-ops-${combo.js ? "js" : "nojs"}${combo.width}`);
      for (const who of ["buyer", "first", "second", "admin", "admin2", "invitee"]) {
        const context = await launch(combo);
        contexts.push(context);
        pages[who] = await firstPage(context);
        pages[who].errors = await watchErrors(context, pages[who]);
      }
    });
    after(async () => {
      for (const c of contexts) await c.close();
    });

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          for (const p of Object.values(pages)) p.errors.length = 0;
          await fn(t);
          for (const [who, p] of Object.entries(pages)) assert.deepEqual(p.errors, [], `no script errors or CSP violations (${who})`);
        } catch (err) {
          const shot = current ? await screenshot(current, `ops ${name} ${title}`) : "";
          if (shot) err.message += `\n(screenshot: ${shot}; page ${current.url()}; focus on ${await describeFocus(current).catch(() => "?")})`;
          throw err;
        }
      });

    async function check(t, page, res, label, status = 200) {
      current = page;
      if (combo.js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    const button = (text) => `main button:has-text("${text}")`;

    test("the first screener signs in with the authenticator, approves the supplier and checks the payment", async (t) => {
      const page = pages.first;
      current = page;
      let res = await page.goto(url("/ops/signin"));
      await check(t, page, res, "運用コンソールへのログイン");
      // A wrong code is refused next to the form, and nothing is signed in.
      await typeInto(page, "#email_address", OPERATORS.first);
      await typeInto(page, "#password", process.env.DEMO_PASSWORD);
      await typeInto(page, "#code", "000000");
      res = await submitFrom(page, "#code");
      await check(t, page, res, "ログイン (wrong code)", 422);
      assert.match(await mainText(page), /確認コードが正しくありません/);

      res = await signInOperator(page, OPERATORS.first);
      assert.equal(pagePath(page), "/ops/screening");
      await check(t, page, res, "審査の一覧");
      assert.match(await mainText(page), new RegExp(number(setup.paid)));

      // The supplier first: 承認済 (a radio and a button, by keyboard).
      res = await page.goto(url(`/ops/suppliers/${setup.supplierID}`));
      await check(t, page, res, "取引先の確認");
      await page.focus("#status");
      await page.keyboard.press("Space");
      res = await activate(page, button("結果を登録する"));
      assert.equal(pagePath(page), "/ops/suppliers");
      await check(t, page, res, "取引先の確認の一覧 (approved)");
      assert.doesNotMatch(await mainText(page), new RegExp(setup.supplierName));

      // Issue 24's screening pages: held accounts (法人番号 not confirmed or already
      // held) and buyers locked out of adding cards; both open, axe-clean, by keyboard.
      res = await page.goto(url("/ops/buyers"));
      await check(t, page, res, "アカウントの確認");
      res = await activate(page, `main a[href^='/ops/buyers/']:has-text("${setup.heldName}")`);
      await check(t, page, res, "アカウントの確認 (held corporation)");
      assert.match(await mainText(page), /7000012050002/);
      res = await page.goto(url("/ops/locks"));
      await check(t, page, res, "カード追加の停止");

      res = await page.goto(url(`/ops/screening/${setup.paid}`));
      await check(t, page, res, "お支払いの審査");
      assert.match(await mainText(page), /入力と読み取りの照合/);
      assert.match(await mainText(page), /¥88,000/);
      res = await activate(page, button("確認済にする"));
      await check(t, page, res, "お支払いの審査 (checked)");
      assert.match(await mainText(page), /あなたが書類を確認したため/);
      // The same operator cannot complete it.
      res = await activate(page, button("審査完了にする"));
      await check(t, page, res, "お支払いの審査 (same operator)", 422);
      assert.match(await mainText(page), /別の担当者が審査を完了してください/);
    });

    test("the second screener completes the screening: the card is captured", async (t) => {
      const page = pages.second;
      current = page;
      await signInOperator(page, OPERATORS.second);
      let res = await page.goto(url("/ops/screening?queue=checked"));
      await check(t, page, res, "確認済の一覧");
      res = await activate(page, `main a:has-text("${number(setup.paid)}")`);
      await check(t, page, res, "お支払いの審査 (second)");
      res = await activate(page, button("審査完了にする"));
      await check(t, page, res, "お支払いの審査 (completed)");
      // The capture is a job: the page says so once it ran.
      for (let i = 0; i < 50 && !/売上確定/.test(await mainText(page)); i++) {
        await new Promise((r) => setTimeout(r, 200));
        res = await page.reload();
      }
      assert.match(await mainText(page), /売上確定/);
      assert.match(await mainText(page), /審査完了/);
    });

    test("the administrator makes the transfer file, marks it sent and the payment transferred", async (t) => {
      const page = pages.admin;
      current = page;
      await signInOperator(page, OPERATORS.admin);
      assert.equal(pagePath(page), "/ops/transfers");
      let res = await page.goto(url(`/ops/transfers?date=${setup.day}`));
      await check(t, page, res, "振込");
      assert.match(await mainText(page), new RegExp(number(setup.paid)));
      res = await activate(page, button("総合振込ファイルを作成する"));
      await check(t, page, res, "振込 (file made)");
      const href = await page.locator("main a[href*='/ops/transfers/files/']").last().getAttribute("href");
      const file = await page.request.get(url(href));
      assert.equal(file.status(), 200);
      const body = await file.body();
      const lines = body.toString("latin1").split("\r\n").filter(Boolean);
      assert.ok(lines.length >= 4, "header, data, trailer, end");
      for (const l of lines) assert.equal(Buffer.byteLength(l, "latin1"), 120, "120-byte records");
      assert.ok(lines.some((l) => l.startsWith("2") && l.includes(String(setup.paid).padStart(10, "0"))), "the payment's record");
      res = await activate(page, button("銀行へ送信済みにする"));
      await check(t, page, res, "振込 (sent)");
      res = await activate(page, button(`${number(setup.paid)}を振込完了にする`));
      await check(t, page, res, "振込 (transferred)");
      assert.match(await mainText(page), /振込完了/);
      res = await page.goto(url(`/ops/reconciliation?from=${setup.day}&to=${setup.day}`));
      await check(t, page, res, "照合");
      res = await page.goto(url("/ops/ledger"));
      await check(t, page, res, "試算表");
      assert.match(await mainText(page), /借方合計と貸方合計は一致しています/);
      res = await page.goto(url("/ops/operators"));
      await check(t, page, res, "担当者");
      res = await page.goto(url(`/ops/audit?object=payment&object_id=${setup.paid}`));
      await check(t, page, res, "監査ログ");
      assert.match(await mainText(page), /振込完了/);
      assert.match(await mainText(page), /審査完了/);
    });

    test("the buyer reads the notification and downloads both receipts", async (t) => {
      const page = pages.buyer;
      current = page;
      await page.goto(url("/signin"));
      await typeInto(page, "#email_address", setup.email);
      await typeInto(page, "#password", PASSWORD);
      await submitFrom(page, "#password");
      let res = await page.goto(url("/notifications"));
      await check(t, page, res, "お知らせ");
      assert.match(await mainText(page), /取引先へのお振り込みが完了しました/);
      assert.match(await mainText(page), /未読/);
      res = await activate(page, `main a:has-text("取引先へのお振り込みが完了しました")`);
      await check(t, page, res, "お知らせ (transferred)");
      res = await activate(page, `main a:has-text("詳しく見る")`);
      await check(t, page, res, "お支払い (transferred)");
      for (const [text, kind] of [["支払明細（PDF）", "statement"], ["手数料の適格請求書（PDF）", "fee-invoice"]]) {
        const href = await page.locator(`main a:has-text("${text}")`).getAttribute("href");
        assert.ok(href.endsWith(`/${kind}`), href);
        const pdf = await page.request.get(url(href));
        assert.equal(pdf.status(), 200);
        assert.equal(pdf.headers()["content-type"], "application/pdf");
        assert.equal((await pdf.body()).subarray(0, 5).toString(), "%PDF-");
      }
    });

    test("a payment sent back from the console shows the reason to the buyer", async (t) => {
      const op = pages.first;
      current = op;
      let res = await op.goto(url(`/ops/screening/${setup.back}`));
      await check(t, op, res, "お支払いの審査 (to send back)");
      await op.selectOption("#reason", "amount");
      await typeInto(op, "#message", "請求書の金額は ¥12,100 です");
      res = await activate(op, button("差し戻す"));
      await check(t, op, res, "お支払いの審査 (sent back)");
      assert.match(await mainText(op), /差し戻し中/);

      const page = pages.buyer;
      current = page;
      res = await page.goto(url("/payments/review"));
      await check(t, page, res, "審査中 (要対応)");
      assert.match(await mainText(page), /要対応/);
      res = await page.goto(url(`/payments/review/${setup.back}`));
      await check(t, page, res, "お支払い (sent back)");
      assert.match(await mainText(page), /請求金額が請求書と一致しません：請求書の金額は ¥12,100 です/);
      // The buyer corrects the amount and resubmits (a new authorisation of the new total).
      res = await activate(page, "main a:has-text('内容を修正して再申請する')");
      assert.equal(pagePath(page), `/payments/edit/${setup.back}/invoiceinfo`);
      await check(t, page, res, "修正");
      await page.locator("#amount").fill("");
      await typeInto(page, "#amount", "12100");
      res = await activate(page, button("確認へ進む"));
      await check(t, page, res, "修正の確認");
      assert.match(await mainText(page), /¥12,463/, "the new total with the 3.0 % fee");
      res = await activate(page, button("この内容で再申請する"));
      assert.equal(pagePath(page), `/payments/review/${setup.back}`);
      await check(t, page, res, "お支払い (resubmitted)");
      assert.doesNotMatch(await mainText(page), /要対応/);
      // Back in the screeners' queue.
      res = await op.goto(url("/ops/screening?queue=new"));
      current = op;
      await check(t, op, res, "審査中の一覧 (resubmitted)");
      assert.match(await mainText(op), new RegExp(number(setup.back)));
    });

    test("an administrator proposes an operator, a second approves, the invitee enrols from the mailed link", async (t) => {
      const invitee = `e2e-invitee-${combo.js ? "js" : "nojs"}-${Date.now().toString(36)}@ops.e2e.example`;
      // pages.admin is still signed in from the transfer file: signing in again within the
      // minute would use the authenticator's step after next, and wait up to 30 s for it.
      let page = pages.admin;
      current = page;
      let res = await page.goto(url("/ops/operators"));
      await check(t, page, res, "担当者");
      await typeInto(page, "#email_address", invitee);
      await typeInto(page, "#name", "招待 三郎");
      await page.locator("input[name=roles][value=screening]").focus();
      await page.keyboard.press("Space");
      res = await activate(page, button("招待を提案する"));
      await check(t, page, res, "担当者 (proposed)");
      assert.match(await mainText(page), new RegExp(invitee));
      assert.equal(await page.locator(`main tr:has-text("${invitee}") form[action$='/approve']`).count(), 0, "the proposer cannot approve");

      page = pages.admin2;
      current = page;
      const mark = await lastMailId();
      await signInOperator(page, OPERATORS.admin2);
      res = await page.goto(url("/ops/operators"));
      await check(t, page, res, "担当者 (a proposal to approve)");
      res = await activate(page, `main tr:has-text("${invitee}") button:has-text("承認する")`);
      await check(t, page, res, "担当者 (approved)");

      const text = await waitForMail(invitee, "運用コンソールへの招待", mark);
      const link = text.match(/\/ops\/invite\/[A-Za-z0-9_-]+/);
      assert.ok(link, `the mail has the link: ${text}`);
      page = pages.invitee;
      current = page;
      res = await page.goto(url(link[0]));
      await check(t, page, res, "担当者の登録");
      const secret = (await page.locator("main .summary-list dd").first().innerText()).replace(/\s+/g, "");
      assert.match(secret, /^[A-Z2-7]{16,}$/, "the invitee sees their own secret");
      await typeInto(page, "#password", "e2eInvitedOperator2026");
      await typeInto(page, "#password_confirmation", "e2eInvitedOperator2026");
      await typeInto(page, "#code", totp(secret));
      res = await submitFrom(page, "#code");
      await check(t, page, res, "担当者の登録 (done)");
      assert.notEqual(pagePath(page), link[0], "the link is used");
      res = await page.goto(url(link[0]));
      await check(t, page, res, "担当者の登録 (used link)", 404);
    });
  });
}
