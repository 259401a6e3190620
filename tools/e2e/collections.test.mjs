// Card-payment requests in a real Chromium (issue 14), JavaScript on and off at 360 and
// 1280px (the four combinations), by keyboard, axe on every page and state:
//   - the demo corporation sends a request through the pages (by hand, its receiving
//     account, the fee on the customer), with the invoice step's 422 state on the way;
//   - the customer, who has no account, opens the mailed link: signs up and registers (a
//     sole proprietor) in the browser while the key waits in the session; signing in
//     lands on the request's creditcard page, which pays with a 3-D Secure challenge;
//   - two screeners check and complete it, the administrator makes the transfer file and
//     marks it transferred; the requester sees it in 支払確定, then in 依頼履歴;
//   - a second request is cancelled by the requester; its link then shows the dialog
//     請求支払の取得に失敗しました.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  activate, andWait, assertNoProblems, BASE_URL, enterCardOnAddPage, noticeText, JOURNEY_COMBOS as COMBOS, comboName, CORP, describeFocus, firstPage, lastMailId, launch, mailCode,
  mainText, OPERATORS, pageProblems, pagePath, screenshot, signIn, signInOperator, submitFrom, typeInto, url, waitForMail, watchErrors,
} from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };
const PASSWORD = "e2eCollections2026pw";
const PSP_URL = (process.env.PSP_URL || "").replace(/\/$/, "");
const API = `${BASE_URL}/api/v1`;

async function api(method, p, tokens, body) {
  const h = { "Content-Type": "application/json" };
  if (tokens) {
    h.Authorization = `Bearer ${tokens.id_token}`;
    h["X-Access-Token"] = tokens.access_token;
  }
  const res = await fetch(API + p, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (res.status >= 300) throw new Error(`${method} /api/v1${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A date n days ahead, as a date input takes it. */
function daysAhead(n) {
  const d = new Date(Date.now() + 9 * 3600_000 + n * 86400_000);
  return d.toISOString().slice(0, 10);
}

const number = (id) => `I-${String(id).padStart(8, "0")}`;

for (const combo of COMBOS) {
  const name = comboName(combo);

  describe(`card-payment requests (${name})`, () => {
    const contexts = [];
    const pages = {};
    let current;
    let customer; // the customer's address
    const state = {};

    before(async () => {
      customer = `e2e-req-${combo.js ? "js" : "nojs"}${combo.width}-${Date.now().toString(36)}@e2e.example`;
      for (const who of ["requester", "customer", "first", "second", "admin"]) {
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
          const shot = current ? await screenshot(current, `collections ${name} ${title}`) : "";
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

    /** The PSP's challenge page (open already, or at href): the passcode it shows. */
    async function passChallenge(page, href) {
      if (href) await page.goto(href);
      assert.equal(new URL(page.url()).origin, PSP_URL, "the challenge is on the PSP's origin");
      const passcode = (await page.locator(".passcode strong").innerText()).trim();
      await typeInto(page, "#passcode", passcode);
      return submitFrom(page, "#passcode");
    }

    /** Sends a request from the demo corporation through the pages; answers its id. */
    async function sendRequest(t, page, amount, checks) {
      let res = await page.goto(url("/collections/create"));
      if (checks) await check(t, page, res, "カード払い依頼を作成");
      res = await activate(page, "main a:has-text('請求書の内容を手で入力して依頼する')");
      assert.equal(pagePath(page), "/collections/add/invoice");
      if (checks) {
        await check(t, page, res, "請求書情報の入力");
        // Nothing typed: refused next to the fields.
        res = await activate(page, button("次へ"));
        await check(t, page, res, "請求書情報の入力 (errors)", 422);
        assert.match(await mainText(page), /会社名を入力してください/);
      }
      await typeInto(page, "#customer_name", "株式会社カード試験工房");
      await typeInto(page, "#customer_email", customer);
      await typeInto(page, "#amount", amount);
      await typeInto(page, "#invoice_number", "E2E-REQ");
      await page.locator("#deadline").fill(daysAhead(20));
      await typeInto(page, "#message", "いつもお世話になっております。");
      res = await activate(page, button("次へ"));
      assert.equal(pagePath(page), "/collections/add/bank");
      if (checks) await check(t, page, res, "入金先口座の選択");
      await page.locator("#account").focus();
      await page.keyboard.press("Space");
      res = await activate(page, button("次へ"));
      assert.equal(pagePath(page), "/collections/add/confirm");
      if (checks) await check(t, page, res, "依頼内容の確認");
      assert.match(await mainText(page), /支払者（お客さま）が負担/);
      res = await activate(page, button("依頼を送信する"));
      assert.equal(pagePath(page), "/collections/complete");
      if (checks) await check(t, page, res, "依頼の完了");
      assert.match(await mainText(page), new RegExp(customer.replace(/[.+]/g, "\\$&")));
      return Number(new URL(page.url()).searchParams.get("id"));
    }

    test("the corporation sends a request through the pages", async (t) => {
      const page = pages.requester;
      current = page;
      await signIn(page, CORP);
      state.mark = await lastMailId();
      state.request = await sendRequest(t, page, "54,321", true);
      const res = await page.goto(url(`/collections/request/${state.request}`));
      await check(t, page, res, "カード払い依頼 (購入者未登録)");
      assert.match(await mainText(page), /購入者未登録/);
      assert.match(await mainText(page), /¥54,321/);
    });

    test("the customer opens the mailed link, signs up, registers and pays with a 3-D Secure challenge", async (t) => {
      const text = await waitForMail(customer, "カード払いのご依頼", state.mark);
      assert.match(text, /¥55,950/, "the amount with the customer's 3.0 % fee");
      const link = text.match(/https?:\/\/\S+\/payments\/request\/[A-Za-z0-9_-]{43}/)[0];
      const page = pages.customer;
      current = page;
      let res = await page.goto(link);
      assert.equal(pagePath(page), "/signin");
      await check(t, page, res, "ログイン (request link)");
      assert.match(await page.locator(".snackbar-region").innerText(), /カード払いのご依頼を受け取るには、ログインしてください/);

      // Sign-up: the address, the mailed code.
      res = await activate(page, "main a:has-text('新規登録はこちら')");
      assert.equal(pagePath(page), "/signup");
      await check(t, page, res, "新規登録 (request link)");
      await typeInto(page, "#email_address", customer);
      await typeInto(page, "#password", PASSWORD);
      await page.locator("#consent").focus();
      await page.keyboard.press("Space");
      const before = await lastMailId();
      res = await activate(page, "form[action='/signup'] button[type=submit]");
      assert.equal(pagePath(page), "/signup/code");
      const code = mailCode(await waitForMail(customer, "認証コード", before));
      await typeInto(page, "#code", code);
      res = await submitFrom(page, "#code");
      assert.equal(pagePath(page), "/registration");
      // Registration as a sole proprietor.
      await page.locator("#business_form-2").focus();
      await page.keyboard.press("Space");
      res = await activate(page, "form[action='/registration'] button[type=submit]");
      assert.equal(pagePath(page), "/registration");
      if (combo.js) await page.waitForSelector("[data-island='registration'][data-island-mounted='true']");
      const answers = {
        business_name: "カード試験工房", business_name_kana: "カードシケンコウボウ", business_postal_code: "1000001",
        business_address_city: "千代田区", business_address_street: "千代田1-1", representative_last_name: "佐藤",
        representative_first_name: "花子", representative_last_name_kana: "サトウ", representative_first_name_kana: "ハナコ",
        home_postal_code: "1000001", home_address_city: "千代田区", home_address_street: "千代田2-2", user_last_name: "佐藤",
        user_first_name: "花子", phone_number: "03-1234-5678",
      };
      for (const [id, v] of Object.entries(answers)) await page.fill(`#${id}`, v);
      await page.selectOption("#business_address_state", "東京都");
      await page.selectOption("#home_address_state", "東京都");
      await page.selectOption("#business_category", "L");
      await page.fill("#representative_birthday", "1985-06-15");
      res = await andWait(page, () => page.press("#business_name", "Enter"));
      assert.equal(pagePath(page), "/registration/confirm", await mainText(page));
      res = await activate(page, "form[action='/registration/confirm'] button[type=submit]");
      assert.equal(pagePath(page), "/registration/result");
      await check(t, page, res, "登録完了 (request link)");

      // Signing in: the first signed-in page is the request's (the key waited in the session).
      res = await activate(page, "main a[href='/signin']");
      await typeInto(page, "#email_address", customer);
      await typeInto(page, "#password", PASSWORD);
      res = await submitFrom(page, "#password");
      assert.match(pagePath(page), /^\/payments\/waiting\/\d+\/creditcard$/, "signing in lands on the request");
      await check(t, page, res, "カード払いのご依頼：お支払い");
      state.payment = Number(pagePath(page).split("/")[3]);
      assert.match(await mainText(page), /¥55,950/);
      assert.match(await mainText(page), /いつもお世話になっております。/);
      assert.match(await mainText(page), /登録済みのカードがありません/);

      // A card added from the request's page: typed into the PSP's fields (or its hosted
      // page without JavaScript), its challenge passed, and back on the request's page.
      res = await activate(page, "main a[href^='/myaccount/creditcards/new?return=']");
      assert.equal(pagePath(page), "/myaccount/creditcards/new");
      const expiry = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`;
      res = await enterCardOnAddPage(page, { js: combo.js, pspURL: PSP_URL, number: "4000 0000 0000 3220", expiry, holder: "HANAKO SATO" });
      res = await passChallenge(page);
      assert.equal(pagePath(page), `/payments/waiting/${state.payment}/creditcard`, "back on the request's page");
      await check(t, page, res, "カード払いのご依頼：お支払い (with a card)");
      assert.match(await noticeText(page), /カードを登録しました/);
      await page.locator("#card_id").focus();
      await page.keyboard.press("Space");
      res = await activate(page, button("カードで支払う"));
      res = await passChallenge(page);
      assert.equal(pagePath(page), `/payments/review/${state.payment}`);
      await check(t, page, res, "お支払い (paid)");
      assert.match(await mainText(page), /審査中/);
      // A fresh sign-in: the e2e server's access tokens live 3 s.
      const fresh = await api("POST", "/login", null, { email_address: customer, password: PASSWORD });
      const inv = await api("GET", `/invoices/${state.payment}`, fresh);
      state.day = inv.transfer_date;
      assert.ok(state.day, "a transfer date");
    });

    test("two screeners complete it; the requester sees it in 支払確定", async (t) => {
      let page = pages.first;
      await signInOperator(page, OPERATORS.first);
      let res = await page.goto(url(`/ops/screening/${state.payment}`));
      await check(t, page, res, "審査 (request)");
      assert.match(await mainText(page), /承認済/, "the requester needs no supplier review");
      // The requester's receiving account came with the request: it is new on the
      // customer's side and no transfer takes it until an operator approves it (issue 24).
      assert.match(await mainText(page), /口座未承認|新しい口座/);
      res = await activate(page, button("この口座を承認する"));
      await check(t, page, res, "審査 (account approved)");
      res = await activate(page, button("確認済にする"));
      await check(t, page, res, "審査 (checked)");
      page = pages.second;
      await signInOperator(page, OPERATORS.second);
      res = await page.goto(url(`/ops/screening/${state.payment}`));
      res = await activate(page, button("審査完了にする"));
      await check(t, page, res, "審査 (completed)");
      for (let i = 0; i < 50 && !/売上確定/.test(await mainText(page)); i++) {
        await new Promise((r) => setTimeout(r, 200));
        res = await page.reload();
      }
      assert.match(await mainText(page), /売上確定/);

      page = pages.requester;
      current = page;
      res = await page.goto(url("/collections/decided"));
      await check(t, page, res, "支払確定");
      assert.match(await mainText(page), new RegExp(number(state.request)));
      res = await activate(page, `main a:has-text("${number(state.request)}")`);
      await check(t, page, res, "カード払い依頼 (支払確定)");
      assert.match(await mainText(page), /審査完了/);
    });

    test("the administrator transfers it; the requester sees it in 依頼履歴", async (t) => {
      let page = pages.admin;
      await signInOperator(page, OPERATORS.admin);
      let res = await page.goto(url(`/ops/transfers?date=${state.day}`));
      await check(t, page, res, "振込 (request)");
      assert.match(await mainText(page), new RegExp(number(state.payment)));
      if ((await page.locator(button("総合振込ファイルを作成する")).count()) > 0) {
        res = await activate(page, button("総合振込ファイルを作成する"));
        await check(t, page, res, "振込 (file made)");
      }
      for (let i = 0; i < 5 && (await page.locator(button("銀行へ送信済みにする")).count()) > 0; i++) {
        res = await activate(page, `${button("銀行へ送信済みにする")} >> nth=0`);
      }
      res = await activate(page, button(`${number(state.payment)}を振込完了にする`));
      await check(t, page, res, "振込 (transferred)");

      page = pages.requester;
      current = page;
      res = await page.goto(url("/collections/history"));
      await check(t, page, res, "依頼履歴");
      assert.match(await mainText(page), new RegExp(number(state.request)));
      res = await page.goto(url(`/collections/history/${state.request}`));
      await check(t, page, res, "カード払い依頼 (入金完了)");
      assert.match(await mainText(page), /入金完了/);
    });

    test("a cancelled request's link shows the dialog", async (t) => {
      const page = pages.requester;
      current = page;
      const mark = await lastMailId();
      const id = await sendRequest(t, page, "12,000", false);
      let res = await page.goto(url(`/collections/request/${id}`));
      res = await activate(page, "main a:has-text('この依頼をキャンセルする')");
      await check(t, page, res, "カード払い依頼のキャンセル");
      res = await activate(page, button("はい"));
      assert.equal(pagePath(page), `/collections/history/${id}`);
      await check(t, page, res, "カード払い依頼 (キャンセル)");
      const text = await waitForMail(customer, "カード払いのご依頼", mark);
      const link = text.match(/https?:\/\/\S+\/payments\/request\/[A-Za-z0-9_-]{43}/)[0];
      const cp = pages.customer;
      current = cp;
      res = await cp.goto(link);
      await check(t, cp, res, "請求支払の取得に失敗しました", 400);
      assert.match(await mainText(cp), /請求支払の取得に失敗しました/);
      assert.match(await mainText(cp), /有効期限が切れているか/);
      assert.equal(await cp.locator("dialog[open]").count(), 1);
      res = await activate(cp, "dialog a:has-text('閉じる')");
      assert.equal(pagePath(cp), "/payments/waiting");
      await check(t, cp, res, "支払待ち (after the dialog)");
    });
  });
}
