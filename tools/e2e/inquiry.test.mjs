// お問い合わせ (issue 31) in a real Chromium, axe on every new page:
//   - the public form with JavaScript off at 360px, by keyboard: empty, it is refused at
//     its fields (the error summary takes the focus); filled, the thanks page gives the
//     reference number and the acknowledgement is mailed;
//   - a signed-in buyer with JavaScript on at 1280px: the form names the account and
//     offers the buyer's payment; the inquiry is sent with it and listed in お問い合わせ履歴;
//   - an operator answers it in the console (its list, its page, the answer form); the
//     answer is mailed, and the buyer reads it on the inquiry's page and in the bell.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  activate, api, assertNoProblems, BASE_URL, createSoleProprietor, firstPage, focusedId, lastMailId, launch, mainText,
  OPERATORS, pageProblems, pagePath, signInOperator, signInWithForm, typeInto, url, waitForMail, watchErrors,
} from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };
const PASSWORD = "e2eInquiry2026pw";
const PSP_URL = (process.env.PSP_URL || "").replace(/\/$/, "");

/** A bank business day about ten days ahead. */
function transferDay(offset = 10) {
  const d = new Date(Date.now() + 9 * 3600_000);
  d.setUTCDate(d.getUTCDate() + offset);
  while ([0, 6].includes(d.getUTCDay())) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** A sole proprietor with one submitted payment (through the API); answers the address and the payment's id. */
async function buyerWithPayment(prefix) {
  const email = await createSoleProprietor(prefix, PASSWORD);
  const tokens = await api("POST", "/login", null, { email_address: email, password: PASSWORD });
  const sup = await api("POST", "/suppliers/corporation", tokens, {
    name: "株式会社問合せ試験", name_kana: "トイアワセシケン", corporate_number: "1180301018771",
    account: { bank_code: "0001", branch_code: "001", account_type: 2, account_number: "2345670", holder_name: "ｶ)ﾄｲｱﾜｾｼｹﾝ" },
  });
  const accounts = await api("GET", `/suppliers/${sup.id}/accounts`, tokens);
  const res = await fetch(`${PSP_URL}/v1/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE_URL },
    body: JSON.stringify({ number: "4111111111111111", exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvc: "123", name: "HANAKO SATO" }),
  });
  const { token } = await res.json();
  const card = await api("POST", "/invoices/credit_cards", tokens, { token });
  const paid = await api("POST", "/invoices", tokens, {
    supplier_id: sup.id, account_id: accounts.accounts[0].id, card_id: card.credit_card.id,
    invoice: { amount: "54,000", due_date: transferDay(20), transfer_date: transferDay(), invoice_number: "INQ-1" },
  }, { "Idempotency-Key": `${prefix}-inquiry` });
  return { email, paymentID: paid.invoice?.id ?? paid.id };
}

/** Chooses the option of a closed <select> by keyboard: focus, then arrow down until it is chosen. */
async function chooseOption(page, selector, value) {
  await page.focus(selector);
  for (let i = 0; i < 20; i++) {
    if ((await page.locator(selector).inputValue()) === value) return;
    await page.keyboard.press("ArrowDown");
  }
  assert.equal(await page.locator(selector).inputValue(), value, `${selector} reaches ${value} by keyboard`);
}

const numberOf = (text) => {
  const m = text.match(/Q-\d{8}/);
  assert.ok(m, `a reference number in:\n${text}`);
  return m[0];
};

describe("public inquiry (JS off, 360px)", () => {
  let context;
  let page;
  let errors;
  const name = "JS off, 360px";
  const check = async (t, res, label, status = 200) =>
    assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);

  before(async () => {
    context = await launch({ js: false, width: 360 });
    page = await firstPage(context);
    errors = await watchErrors(context, page);
  });
  after(async () => {
    await context?.close();
  });

  it("is refused at its fields, then sent with a reference number and mailed", TIMEOUT, async (t) => {
    let res = await page.goto(url("/inquiry"));
    await check(t, res, "the public form");
    assert.equal(await page.locator("#invoice_id").count(), 0, "signed out, no payment to choose");

    res = await activate(page, "main form button[type=submit]");
    await check(t, res, "the form refused", 422);
    assert.equal(await focusedId(page, "error-summary"), "error-summary", "the error summary takes the focus");
    const refused = await mainText(page);
    assert.match(refused, /お名前を入力してください/);
    assert.match(refused, /お問い合わせ内容を入力してください/);

    // Base 36: a 13-digit millisecond count in a stored address reads as a card number to
    // the card-data scan.
    const email = `inquiry-public-${Date.now().toString(36)}@e2e.example`;
    await typeInto(page, "#name", "佐藤 花子");
    await typeInto(page, "#email_address", email);
    await typeInto(page, "#company", "佐藤商店");
    await chooseOption(page, "#category", "card");
    await typeInto(page, "#body", "登録できるカードの種類を教えてください。");
    const before = await lastMailId();
    res = await activate(page, "main form button[type=submit]");
    await check(t, res, "the thanks page");
    assert.equal(pagePath(page), "/inquiry/thanks");
    const number = numberOf(await mainText(page));
    const mail = await waitForMail(email, `お問い合わせを受け付けました（${number}）`, before);
    assert.match(mail, /お問い合わせの種類：カード/);
    assert.doesNotMatch(mail, /登録できるカードの種類/, "a stranger's words are not mailed back");
    assert.deepEqual(errors, []);
  });
});

describe("a signed-in buyer's inquiry answered in the console (JS on, 1280px)", () => {
  let context;
  let page;
  let errors;
  const name = "JS on, 1280px";
  const check = async (t, res, label, status = 200) => {
    if ((await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
      await page.locator(".snackbar[data-state='shown']").waitFor();
    }
    await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
  };

  before(async () => {
    context = await launch({ js: true, width: 1280 });
    page = await firstPage(context);
    errors = await watchErrors(context, page);
  });
  after(async () => {
    await context?.close();
  });

  it("sends an inquiry about a payment, an operator answers, the buyer reads it", TIMEOUT, async (t) => {
    const { email, paymentID } = await buyerWithPayment(`inquiry-${Date.now().toString(36)}`);
    await signInWithForm(page, email, PASSWORD);
    let res = await page.goto(url("/inquiry"));
    await check(t, res, "the signed-in form");
    assert.equal(await page.locator("#email_address").count(), 0, "the account's address is used");
    assert.match(await mainText(page), new RegExp(email.replace(/[.+]/g, "\\$&")));
    const option = page.locator("#invoice_id option", { hasText: "株式会社問合せ試験" });
    assert.equal(await option.count(), 1, "the buyer's payment is offered");
    assert.match(await option.innerText(), /^I-\d{8}　株式会社問合せ試験　¥54,000$/);
    const paymentValue = await option.getAttribute("value");
    if (paymentID) assert.equal(paymentValue, String(paymentID));

    await chooseOption(page, "#category", "payment");
    await chooseOption(page, "#invoice_id", paymentValue);
    await typeInto(page, "#body", "振込日を変更できますか？");
    const sent = await lastMailId();
    res = await activate(page, "main form button[type=submit]");
    await check(t, res, "the thanks page, signed in");
    const number = numberOf(await mainText(page));
    await waitForMail(email, `お問い合わせを受け付けました（${number}）`, sent);

    res = await activate(page, "main a[href^='/inquiries/']");
    await check(t, res, "the inquiry's page");
    const inquiryPath = pagePath(page);
    let text = await mainText(page);
    assert.match(text, /振込日を変更できますか？/);
    assert.match(text, /株式会社問合せ試験/);
    assert.match(text, /担当者が確認しています/);
    res = await page.goto(url("/inquiries"));
    await check(t, res, "お問い合わせ履歴");
    assert.match(await mainText(page), new RegExp(number));

    // An operator answers in the console (its own session, beside the buyer's).
    res = await signInOperator(page, OPERATORS.admin);
    res = await page.goto(url("/ops/inquiries"));
    await check(t, res, "the console's inquiries");
    assert.match(await mainText(page), new RegExp(number));
    res = await activate(page, `main a:text-is("${number}")`);
    await check(t, res, "the console's inquiry");
    text = await mainText(page);
    assert.match(text, /振込日を変更できますか？/);
    assert.match(text, /株式会社問合せ試験/);
    await typeInto(page, "#answer", "振込日は審査の前であれば変更できます。");
    const answered = await lastMailId();
    res = await activate(page, "main form button:has-text('回答を送信する')");
    await check(t, res, "the answered inquiry in the console");
    assert.match(await mainText(page), /回答済み/);
    const mail = await waitForMail(email, `お問い合わせへの回答（${number}）`, answered);
    assert.match(mail, /振込日は審査の前であれば変更できます。/);

    // The buyer reads it on the inquiry's page and in the bell.
    res = await page.goto(url(inquiryPath));
    await check(t, res, "the answered inquiry");
    text = await mainText(page);
    assert.match(text, /振込日は審査の前であれば変更できます。/);
    assert.match(text, /回答済み/);
    res = await page.goto(url("/notifications"));
    assert.match(await mainText(page), new RegExp(`お問い合わせに回答しました（${number}）`));
    assert.deepEqual(errors, []);
  });
});
