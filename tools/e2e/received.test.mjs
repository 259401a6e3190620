// Received invoices (受取請求書, /receipt-invoices, issue 29) in a real Chromium, JavaScript on
// at 1280px and off at 360px, by keyboard, axe on every page and state, signed in as the
// demo corporation:
//   - the upload form: a wrong file comes back with 422 and the message at the field; a
//     text PDF lands on its invoice's page, which reads it (its dates and registration
//     number shown) with the kept file's SHA-256;
//   - a correction with a bad amount comes back with 422 at the field; a good one is
//     saved and the history shows the value it replaced;
//   - marking it not to be paid without a reason is refused at the field; with one it
//     moves to 支払不要, and back to 新着;
//   - the law's search finds it by date, amount and counterparty together, and its CSV
//     index lists it;
//   - 「この請求書をカードで支払う」, reached with Tab and pressed with Enter, opens the payment
//     journey filled from its file.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  activate, andWait, assertNoProblems, bankDay, chooseByKeyboard, comboName, createPayer, JOURNEY_COMBOS as COMBOS, CORP, firstPage,
  lastMailId, launch, mainText, mimeMail, pageProblems, pagePath, passChallenge, sendMail, signIn, signInWithForm, submitFrom, tabTo,
  textPDF, typeInto, url, waitForMail, watchErrors,
} from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };
const INVOICE = /^\/receipt-invoices\/(\d+)$/;

for (const combo of COMBOS) {
  const name = comboName(combo);

  describe(`received invoices (${name})`, () => {
    let context;
    let page;
    let errors;
    let invoicePath;
    // Each combination its own counterparty, so that the search finds its own invoice.
    const counterparty = `株式会社受取テスト${combo.js ? "A" : "B"}${Date.now().toString(36)}`;
    const pdf = {
      name: "受け取った請求書.pdf",
      mimeType: "application/pdf",
      buffer: textPDF(["INVOICE", "Registration No. T9234567890123", "Invoice date 2026/11/02", "Due date 2026/11/30", "Total JPY 125,400"]),
    };

    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
      errors = await watchErrors(context, page);
      await signIn(page, CORP);
    });
    after(async () => {
      await context?.close();
    });

    it("refuses a wrong file at the field, then registers a PDF and reads it", TIMEOUT, async (t) => {
      let res = await page.goto(url("/receipt-invoices/upload"));
      await assertNoProblems(t, page, await pageProblems(page, res), "the upload form");
      await page.setInputFiles("#invoice_file", { name: "memo.pdf", mimeType: "application/pdf", buffer: Buffer.from("請求書ではありません\n") });
      res = await andWait(page, () => page.click("main form button[type=submit]"));
      await assertNoProblems(t, page, await pageProblems(page, res, { status: 422 }), "the upload form refused");
      assert.equal(await page.getAttribute("#invoice_file", "aria-invalid"), "true");
      assert.match(await page.locator("#invoice_file-error").innerText(), /JPEG、PNG、PDF/);

      await page.setInputFiles("#invoice_file", pdf);
      res = await andWait(page, () => page.click("main form button[type=submit]"));
      const m = INVOICE.exec(pagePath(page));
      assert.ok(m, `on the invoice's page, not ${pagePath(page)}`);
      invoicePath = m[0];
      for (let i = 0; i < 120 && (await mainText(page)).includes("読み取っています"); i++) {
        await new Promise((r) => setTimeout(r, 500));
        res = await page.goto(url(invoicePath));
      }
      await assertNoProblems(t, page, await pageProblems(page, res), "the invoice's page, read");
      const text = await mainText(page);
      // The text layer read (an ASCII PDF: its dates and its T-number, which has a valid
      // check digit; "Total JPY" is no Japanese label, so the amount is corrected below).
      assert.match(text, /請求日\s*2026年11月2日/);
      assert.match(text, /支払期日\s*2026年11月30日/);
      assert.match(text, /T9234567890123/);
      assert.match(text, /SHA-256（ハッシュ値）\s*[0-9a-f]{64}/);
    });

    it("corrects it: a bad amount at its field, then saved with the earlier value kept", TIMEOUT, async (t) => {
      await page.fill("#amount", "abc");
      let res = await andWait(page, () => page.click("form[action$='/correct'] button[type=submit]"));
      await assertNoProblems(t, page, await pageProblems(page, res, { status: 422 }), "the correction refused");
      assert.equal(await page.getAttribute("#amount", "aria-invalid"), "true");
      await page.fill("#amount", "130000");
      await page.fill("#counterparty", counterparty);
      res = await andWait(page, () => page.click("form[action$='/correct'] button[type=submit]"));
      await assertNoProblems(t, page, await pageProblems(page, res), "the invoice corrected");
      const text = await mainText(page);
      assert.match(text, /¥130,000/);
      assert.match(text, /請求金額：（読取値） → ¥130,000/, "the amount the reading did not find, now typed");
    });

    it("marks it not to be paid (a reason needed), then new again", TIMEOUT, async (t) => {
      await page.check("input[name=disposition][value=not_to_pay]");
      let res = await andWait(page, () => page.click("form[action$='/mark'] button[type=submit]"));
      await assertNoProblems(t, page, await pageProblems(page, res, { status: 422 }), "the mark refused");
      assert.equal(await page.getAttribute("#reason", "aria-invalid"), "true");
      await page.check("input[name=disposition][value=not_to_pay]");
      await page.fill("#reason", "宛先違い");
      res = await andWait(page, () => page.click("form[action$='/mark'] button[type=submit]"));
      await assertNoProblems(t, page, await pageProblems(page, res), "marked not to be paid");
      assert.match(await mainText(page), /状態：支払不要/);
      res = await page.goto(url("/receipt-invoices/set-aside"));
      await assertNoProblems(t, page, await pageProblems(page, res), "the 支払不要 list");
      assert.equal(await page.locator(`main a[href='${invoicePath}']`).count(), 1);
      await page.goto(url(invoicePath));
      await page.check("input[name=disposition][value=open]");
      res = await andWait(page, () => page.click("form[action$='/mark'] button[type=submit]"));
      assert.match(await mainText(page), /状態：新着/);
    });

    it("is found by date, amount and counterparty together, and in the CSV index", TIMEOUT, async (t) => {
      const q = `from=2026-11-01&to=2026-11-30&min=100000&max=200000&counterparty=${encodeURIComponent(counterparty)}`;
      const res = await page.goto(url(`/receipt-invoices/search?${q}`));
      await assertNoProblems(t, page, await pageProblems(page, res), "the search");
      assert.equal(await page.locator(`main a[href='${invoicePath}']`).count(), 1);
      const csv = await page.request.get(url(`/receipt-invoices/search.csv?${q}`));
      assert.equal(csv.status(), 200);
      const lines = (await csv.text()).trim().split("\r\n");
      assert.equal(lines.length, 2, "the header and this invoice");
      assert.match(lines[1], new RegExp(`2026-11-02,130000,${counterparty}`));
    });

    it("is paid from its page: the payment journey, by keyboard, filled from its file", TIMEOUT, async (t) => {
      await page.goto(url(invoicePath));
      await tabTo(page, "main a[href^='/payments/add/invoiceinfo?file=']");
      const res = await andWait(page, () => page.keyboard.press("Enter"));
      await assertNoProblems(t, page, await pageProblems(page, res), "the journey from the received invoice");
      assert.match(pagePath(page), /^\/payments\/add\//);
      assert.match(await mainText(page), /アップロードした請求書の内容を読み取り/);
      assert.deepEqual(errors, [], "no console errors");
    });
  });
}

// The whole way of an invoice by mail, as a new sole proprietor (its own counts) with a
// registered supplier and a card that asks for 3-D Secure:
//   - the receiving address page: issued (はい), shown;
//   - a supplier's mail with a PDF (and a ZIP, refused) sent over SMTP to the listener;
//   - listed under 新着 with the count on the tab, its page warning of a first-time sender
//     and showing the verdicts; the address page's log shows the ZIP refused;
//   - 「この請求書をカードで支払う」 by keyboard → the journey (the supplier chosen, the account,
//     the invoice step) → the confirm page → the PSP's challenge → 支払申請の完了;
//   - the invoice is then 支払予定, linked to its payment, in the 支払予定 list;
//   - the supplier's upload link: a bad address refused at the field, the link mailed; the
//     supplier, in a browser of its own, signed out, uploads by keyboard; the buyer's list
//     shows it.
const MAIL_PASSWORD = "e2eReceivedMail2026pw";

for (const combo of COMBOS) {
  const name = comboName(combo);

  describe(`received invoices by mail (${name})`, () => {
    let context;
    let page;
    let errors;
    let challengeURL;
    let address;
    let invoicePath;
    let supplierID;
    const supplier = `株式会社メール請求${combo.js ? "イチ" : "ニ"}`;

    const check = async (t, res, label, status = 200) => {
      if (combo.js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    };
    const choose = (selector) => chooseByKeyboard(page, selector);

    before(async () => {
      let email;
      ({ email, supplierID, challengeURL } = await createPayer(`e2e-recv-${combo.js ? "js" : "nojs"}${combo.width}`, MAIL_PASSWORD, supplier));
      context = await launch(combo);
      page = await firstPage(context);
      errors = await watchErrors(context, page);
      await signInWithForm(page, email, MAIL_PASSWORD);
      if (challengeURL) await passChallenge(page, null, challengeURL);
    });
    after(async () => {
      await context?.close();
    });

    it("issues the receiving address (はい) and shows it", TIMEOUT, async (t) => {
      let res = await page.goto(url("/receipt-invoices"));
      res = await activate(page, "main a[href='/receipt-invoices/address']");
      await check(t, res, "請求書受付メールアドレス (none yet)");
      res = await activate(page, "main form button[type=submit]");
      await check(t, res, "請求書受付メールアドレス (issued)");
      address = (await page.locator("#receiving-address").innerText()).trim();
      assert.match(address, /^[a-z0-9]{16}@inbox\.localhost$/);
      res = await activate(page, "main a[href='/receipt-invoices/address/renew']");
      await check(t, res, "受付メールアドレスの変更");
      assert.match(await mainText(page), /受付メールアドレスを変更しますか/);
      res = await activate(page, "main a:has-text('いいえ')");
      assert.equal((await page.locator("#receiving-address").innerText()).trim(), address, "いいえ keeps it");
    });

    it("takes a supplier's mail: the PDF listed, the ZIP refused and logged", TIMEOUT, async (t) => {
      const raw = mimeMail({
        from: `${supplier} 経理部 <keiri@mail-supplier.example>`, subject: "11月分 請求書送付のご案内",
        authResults: ["inbox.localhost; spf=pass smtp.mailfrom=mail-supplier.example; dkim=pass header.d=mail-supplier.example; dmarc=pass header.from=mail-supplier.example"],
        files: [
          { name: "請求書_11月.pdf", mimeType: "application/pdf", buffer: textPDF(["INVOICE", "Invoice date 2026/11/05", "Total JPY 88,000"]) },
          { name: "請求書.zip", mimeType: "application/zip", buffer: Buffer.concat([Buffer.from("PK\x03\x04"), Buffer.alloc(40)]) },
        ],
      });
      assert.match(await sendMail("keiri@mail-supplier.example", address, raw), /^250/);
      assert.match(await sendMail("keiri@mail-supplier.example", `nobody@inbox.localhost`, raw), /^550/, "an unknown address is refused");

      let res = await page.goto(url("/receipt-invoices"));
      await check(t, res, "受取請求書（新着）");
      assert.match(await mainText(page), /新着（1）/);
      assert.match(await mainText(page), /初めての送信元/);
      invoicePath = await page.locator("main table a[href^='/receipt-invoices/']").first().getAttribute("href");
      assert.ok(invoicePath && INVOICE.test(invoicePath), `a link to the invoice: ${invoicePath}`);
      res = await page.goto(url("/receipt-invoices/address"));
      await check(t, res, "請求書受付メールアドレス (the log)");
      const log = await mainText(page);
      assert.match(log, /11月分 請求書送付のご案内/);
      assert.match(log, /1件を受け付け、1件を受け付けませんでした/);
      assert.match(log, /請求書\.zip：ZIP などの圧縮ファイル/);
    });

    it("warns of the first-time sender and is paid with 3-D Secure from its page, by keyboard", TIMEOUT, async (t) => {
      let res = await page.goto(url(invoicePath));
      for (let i = 0; i < 120 && (await mainText(page)).includes("読み取っています"); i++) {
        await new Promise((r) => setTimeout(r, 500));
        res = await page.goto(url(invoicePath));
      }
      await check(t, res, "the mailed invoice's page");
      let text = await mainText(page);
      assert.match(text, /初めての送信元からのメールです/);
      assert.match(text, /SPF 成功／DKIM 成功／DMARC 成功/);
      assert.match(text, /11月分 請求書送付のご案内/);

      await tabTo(page, "main a[href^='/payments/add/invoiceinfo?file=']");
      res = await andWait(page, () => page.keyboard.press("Enter"));
      assert.equal(pagePath(page), "/payments/add/invoiceinfo");
      await check(t, res, "支払先の選択 (from the mailed invoice)");
      await choose(`input[name=supplier]:not([value='new'])`);
      res = await activate(page, "main form button:has-text('次へ')");
      await choose("#account");
      res = await activate(page, "main form button:has-text('次へ')");
      assert.equal(pagePath(page), "/payments/add/invoice");
      await check(t, res, "請求書の内容と振込日 (from the mailed invoice)");
      await page.locator("#amount").fill("");
      await typeInto(page, "#amount", "88000");
      await page.locator("#due_date").fill(bankDay(20));
      await choose(`#transfer_date-${bankDay(14)}`);
      res = await activate(page, "main form button:has-text('確認へ進む')");
      assert.equal(pagePath(page), "/payments/add/confirm");
      await check(t, res, "申請内容の確認 (from the mailed invoice)");
      res = await activate(page, "button[value=submit]");
      res = await passChallenge(page, res);
      assert.equal(pagePath(page), "/payments/complete");
      await check(t, res, "支払申請の完了 (from the mailed invoice)");

      res = await page.goto(url(invoicePath));
      await check(t, res, "the mailed invoice, being paid");
      text = await mainText(page);
      assert.match(text, /状態：支払予定/);
      assert.equal(await page.locator("main a[href^='/payments/review/']").count(), 1, "linked to its payment");
      res = await page.goto(url("/receipt-invoices/scheduled"));
      await check(t, res, "受取請求書（支払予定）");
      assert.equal(await page.locator(`main a[href='${invoicePath}']`).count(), 1);
      assert.deepEqual(errors, [], "no console errors");
    });

    it("mails the supplier an upload link; the supplier, signed out, uploads by keyboard", TIMEOUT, async (t) => {
      const to = `keiri-${combo.js ? "js" : "nojs"}-${Date.now().toString(36)}@mail-supplier.example`;
      let res = await page.goto(url(`/suppliers/${supplierID}`));
      await check(t, res, "the supplier's page (upload link)");
      const mark = await lastMailId();
      await page.locator("#email").fill("not-an-address");
      res = await activate(page, "form[action$='/upload-link'] button[type=submit]");
      await check(t, res, "the supplier's page (bad address)", 422);
      assert.equal(await page.getAttribute("#email", "aria-invalid"), "true");
      await page.locator("#email").fill("");
      await typeInto(page, "#email", to);
      res = await submitFrom(page, "#email");
      await check(t, res, "the supplier's page (link sent)");
      assert.match(await mainText(page), /アップロード件数\s*0件/);
      const text = await waitForMail(to, "請求書アップロードのご案内", mark);
      const link = text.match(/https?:\/\/\S+\/supplier-upload\/[A-Za-z0-9_-]+/)?.[0];
      assert.ok(link, `the mail holds the link: ${text}`);

      // The supplier: a browser of its own, never signed in.
      const theirs = await launch(combo);
      try {
        const sp = await firstPage(theirs);
        const spErrors = await watchErrors(theirs, sp);
        res = await sp.goto(url(new URL(link).pathname));
        await assertNoProblems(t, sp, await pageProblems(sp, res), `the supplier's upload page (${name})`);
        assert.match(await mainText(sp), new RegExp(supplier));
        await sp.setInputFiles("#invoice_file", { name: "請求書_リンク.pdf", mimeType: "application/pdf", buffer: textPDF(["INVOICE", "Total JPY 33,000"]) });
        await tabTo(sp, "main form button[type=submit]");
        res = await andWait(sp, () => sp.keyboard.press("Enter"));
        await assertNoProblems(t, sp, await pageProblems(sp, res), `the supplier's upload page (sent) (${name})`);
        assert.match(await mainText(sp), /これまでにお送りいただいた件数\s*1件/);
        assert.deepEqual(spErrors, [], "no console errors on the supplier's page");
      } finally {
        await theirs.close();
      }
      res = await page.goto(url("/receipt-invoices"));
      await check(t, res, "受取請求書（新着）with the supplier's upload");
      assert.match(await mainText(page), /取引先のアップロード/);
    });
  });
}
