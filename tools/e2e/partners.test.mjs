// A partner application (issue 30) in a real Chromium, JavaScript on at 1280px and off at
// 360px, by keyboard, axe on every page, as a new sole proprietor with a registered
// supplier and a card that asks for 3-D Secure:
//   - the consent page of the demo partner (demo-accounting, a public client): its name
//     and what it may do; 許可しない sends access_denied back; 許可する, by keyboard, sends
//     a code that becomes tokens with its PKCE verifier;
//   - the partner creates a payment draft through the API with its token; the buyer's
//     drafts list says which application made it; the buyer resumes it and pays it with
//     3-D Secure;
//   - セキュリティ設定 lists the application and disconnects it: its token stops at once.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import { after, before, describe, it } from "node:test";

import {
  activate, assertNoProblems, bankDay, chooseByKeyboard, comboName, createPayer, JOURNEY_COMBOS as COMBOS, firstPage, launch,
  mainText, pageProblems, pagePath, passChallenge, signInWithForm, tabTo, url, watchErrors,
} from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };
const PASSWORD = "e2ePartners2026pw";
const CLIENT = "demo-accounting";
// The demo client's registered callback (cmd/partnerdemo's listener; not running here).
const CALLBACK = "http://127.0.0.1:8765/callback";

const b64url = (buf) => buf.toString("base64url");

for (const combo of COMBOS) {
  const name = comboName(combo);

  describe(`partner application (${name})`, () => {
    let context;
    let page;
    let errors;
    let challengeURL;
    let supplierID;
    let accountID;
    let token;

    const check = async (t, res, label, status = 200) => {
      if (combo.js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    };
    const choose = (selector) => chooseByKeyboard(page, selector);
    /** Opens the authorisation request and answers it by keyboard; returns the callback URL. */
    const authorize = async (t, decision, scope, verifier) => {
      const challenge = b64url(crypto.createHash("sha256").update(verifier).digest());
      const q = new URLSearchParams({ response_type: "code", client_id: CLIENT, redirect_uri: CALLBACK, scope,
        state: `state-${decision}-${Date.now()}`, code_challenge: challenge, code_challenge_method: "S256" });
      const res = await page.goto(url(`/oauth/authorize?${q}`));
      await check(t, res, `the consent page (${decision})`);
      const text = await mainText(page);
      assert.match(text, /「デモ会計クラウド」と連携しますか？/);
      assert.match(text, /お支払いの下書きを作る/);
      await tabTo(page, `main button[value=${decision}]`);
      await Promise.all([page.waitForURL((u) => u.href.startsWith(CALLBACK)), page.keyboard.press("Enter")]);
      return new URL(page.url());
    };

    let listener;
    before(async () => {
      // The partner's listener on its registered redirect URI (as cmd/partnerdemo's).
      listener = http.createServer((req, res) => {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end("<!doctype html><html lang=ja><title>callback</title><h1>ok</h1></html>");
      });
      await new Promise((resolve) => listener.listen(8765, "127.0.0.1", resolve));
      let email;
      ({ email, supplierID, accountID, challengeURL } = await createPayer(`e2e-partner-${combo.js ? "js" : "nojs"}${combo.width}`,
        PASSWORD, "株式会社連携テスト"));
      context = await launch(combo);
      page = await firstPage(context);
      errors = await watchErrors(context, page);
      await signInWithForm(page, email, PASSWORD);
      if (challengeURL) await passChallenge(page, null, challengeURL);
    });
    after(async () => {
      await context?.close();
      await new Promise((resolve) => listener?.close(resolve));
    });

    it("refuses (許可しない) and approves (許可する) by keyboard; the code becomes tokens with PKCE", TIMEOUT, async (t) => {
      const refused = await authorize(t, "deny", "payments:read payments:draft", b64url(crypto.randomBytes(32)));
      assert.equal(refused.searchParams.get("error"), "access_denied");
      const verifier = b64url(crypto.randomBytes(32));
      const back = await authorize(t, "approve", "payments:read payments:draft", verifier);
      const code = back.searchParams.get("code");
      assert.ok(code, `a code: ${back}`);
      const res = await fetch(url("/oauth/token"), {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: CALLBACK, client_id: CLIENT, code_verifier: verifier }),
      });
      const json = await res.json();
      assert.equal(res.status, 200, JSON.stringify(json));
      assert.match(json.access_token, /^ory_at_/);
      assert.ok(json.refresh_token);
      token = json.access_token;
    });

    it("a draft the partner made is paid by the buyer with 3-D Secure", TIMEOUT, async (t) => {
      const res = await fetch(url("/api/v1/drafts"), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ step: "/payments/add/invoice", supplier_id: supplierID, account_id: accountID,
          invoice: { amount: "66000", invoice_number: "PARTNER-E2E", due_date: bankDay(20) } }),
      });
      assert.equal(res.status, 201, await res.text());
      const denied = await fetch(url("/api/v1/invoices/credit_cards"), { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(denied.status, 403, "a partner never touches cards");

      let r = await page.goto(url("/payments/draft"));
      await check(t, r, "下書き (a partner's draft)");
      assert.match(await mainText(page), /デモ会計クラウドが作成/);
      r = await activate(page, "main a[href^='/payments/draft/']");
      assert.equal(pagePath(page), "/payments/add/invoice");
      await check(t, r, "請求書の内容と振込日 (the partner's draft)");
      await choose(`#transfer_date-${bankDay(14)}`);
      r = await activate(page, "main form button:has-text('確認へ進む')");
      assert.equal(pagePath(page), "/payments/add/confirm");
      await check(t, r, "申請内容の確認 (the partner's draft)");
      assert.match(await mainText(page), /¥66,000/);
      r = await activate(page, "button[value=submit]");
      r = await passChallenge(page, r);
      assert.equal(pagePath(page), "/payments/complete");
      await check(t, r, "支払申請の完了 (the partner's draft)");
    });

    it("セキュリティ設定 lists the application and disconnects it; its token stops", TIMEOUT, async (t) => {
      let r = await page.goto(url("/myaccount/security"));
      await check(t, r, "セキュリティ設定 (a connected application)");
      assert.match(await mainText(page), /デモ会計クラウド/);
      r = await activate(page, "main button:has-text('デモ会計クラウドの連携を解除')");
      await check(t, r, "セキュリティ設定 (disconnected)");
      assert.match(await mainText(page), /連携中のアプリケーションはありません/);
      const gone = await fetch(url("/api/v1/drafts"), { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(gone.status, 401);
      assert.deepEqual(errors, [], "no console errors");
    });
  });
}
