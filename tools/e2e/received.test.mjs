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
  andWait, assertNoProblems, comboName, JOURNEY_COMBOS as COMBOS, CORP, firstPage, launch, mainText, pageProblems,
  pagePath, signIn, tabTo, textPDF, url, watchErrors,
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
