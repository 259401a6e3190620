// Registered suppliers in the browser (DESIGN.md §5), with JavaScript on and off, at
// 360px and 1280px, signed in as the demo corporation: add a corporation supplier through
// the wizard (company search, bank and branch, account details with a 422 state, check
// answers), add a sole proprietor and find it in the list, delete it (いいえ, then はい),
// see that the demo 山田商事株式会社 (a payment in progress) cannot be deleted, and axe on
// the list tabs, a supplier page, its payment history, a payment, the account edit page
// and every wizard step. Journeys are done by keyboard: links and buttons are focused and
// activated with Enter or Space, radios chosen with Space and the arrows, fields typed.
// Without JavaScript the bank step is one question per screen (links and GET searches);
// with it, the supplier-account island makes it one form with two comboboxes.
//
// The journeys add suppliers to the shared demo corporation, so every name carries a
// per-run, per-combination tag and nothing depends on exact counts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { activate, andWait, chooseOption, assertNoProblems, comboName, JOURNEY_COMBOS as COMBOS, CORP, describeFocus, firstPage, launch, mainText, noticeText, pageProblems, pagePath as path, screenshot, signIn, submitFrom, tabTo, typeInto, url, watchErrors, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 180_000 };
const RUN = Date.now().toString(36).slice(-5);

// The demo corporation's suppliers (cmd/server/demo.go).
const DEMO_YAMADA = "山田商事株式会社";
const YAMADA_NUMBER = "2010401099991";

// --- Page helpers --------------------------------------------------------------------------

const pathAndQuery = (page) => {
  const u = new URL(page.url());
  return u.pathname + u.search;
};
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// --- The tests -----------------------------------------------------------------------------

for (const combo of COMBOS) {
  const name = comboName(combo);
  const { js } = combo;
  const tag = `${js ? "js" : "nojs"}${combo.width}-${RUN}`;

  describe(`registered suppliers (${name})`, () => {
    let context;
    let page;
    // Script errors and CSP violations (reported as console errors); a 4xx document is
    // logged by Chromium as a failed load, which a 404 or 422 page is meant to be.
    let consoleErrors = [];
    /** The sole proprietor added by the second journey, for the delete journey. */
    let added;

    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
      consoleErrors = await watchErrors(context, page);
      await signIn(page, CORP);
    });
    after(async () => {
      await context?.close();
    });

    /**
     * The checks every page passes (status, lang, title, one h1, axe). With JavaScript the
     * snackbar island fades a notice in: axe runs once it is fully shown.
     */
    async function check(t, res, label, status = 200) {
      await islandReady();
      if (js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    /** A validation failure: 422, エラー： title, focus on the summary, linked and inline messages. */
    async function checkInvalid(t, res, fields, label) {
      await islandReady();
      assert.equal(res.status(), 422, `${label}: status`);
      assert.ok((await page.title()).startsWith("エラー："), `${label}: title starts with エラー：`);
      assert.equal(await focusedId(page, "error-summary"), "error-summary", `${label}: focus on the error summary`);
      for (const [field, message] of Object.entries(fields)) {
        assert.ok((await page.locator(`.error-summary a[href='#${field}']`).count()) >= 1, `${label}: the summary links to #${field}`);
        assert.match(await page.locator(`#${field}-error`).innerText(), new RegExp(message), `${label}: message at #${field}`);
        assert.equal(await page.getAttribute(`#${field}`, "aria-invalid"), "true", `${label}: #${field} is aria-invalid`);
      }
      await check(t, res, `${label} with errors`, 422);
    }

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          consoleErrors.length = 0;
          await fn(t);
          assert.deepEqual(consoleErrors, [], "no script errors or CSP violations");
        } catch (err) {
          const shot = await screenshot(page, `suppliers ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        }
      });

    /** From the list, 取引先を追加, then the business form chosen by keyboard. */
    async function startWizard(t, form, { checks }) {
      let res = await page.goto(url("/suppliers?status=enable"));
      if (checks) await check(t, res, "/suppliers?status=enable");
      res = await activate(page, ".page-head a[href='/suppliers/add/company']");
      assert.equal(path(page), "/suppliers/add/company");
      assert.match(await page.locator("main").innerText(), /取引先の事業形態/);
      if (checks) {
        await check(t, res, "/suppliers/add/company (事業形態)");
        // Nothing chosen: refused with the reason.
        res = await activate(page, "form[action='/suppliers/add/company'] button[type=submit]");
        await checkInvalid(t, res, {}, "/suppliers/add/company (事業形態) empty");
        assert.match(await page.locator("#business_form-error").innerText(), /取引先の事業形態を選択してください/);
      }
      await tabTo(page, "input[name='business_form']", { max: 80 });
      if (form === "法人") await page.keyboard.press("Space");
      else await page.keyboard.press("ArrowDown");
      const id = form === "法人" ? "#business_form" : "#business_form-2";
      assert.equal(await page.isChecked(id), true, `${form} is chosen by keyboard`);
      // Submitted with Space on the button (Enter elsewhere).
      res = await activate(page, "form[action='/suppliers/add/company'] button[type=submit]", "Space");
      assert.equal(path(page), "/suppliers/add/company");
      assert.match(await page.locator("h1").innerText(), new RegExp(`取引先情報の入力（${form}）`));
      if (checks) await check(t, res, `/suppliers/add/company (${form})`);
      return res;
    }

    /** Waits for the supplier-account island, with JavaScript on. */
    async function islandReady() {
      if (js && (await page.locator("[data-island='supplier-account']").count()) > 0) {
        await page.waitForSelector("[data-island='supplier-account'][data-island-mounted='true']");
      }
    }

    /**
     * The bank step up to the account details. Without JavaScript: a major bank's link or
     * a bank search, then a branch search and its result. With it: the island's comboboxes.
     */
    async function chooseBankAndBranch(t, res, { bank, bankQuery, bankCode, branchQuery, branchCode, branchName }, { checks }) {
      assert.equal(path(page), "/suppliers/add/bank");
      if (js) {
        await islandReady();
        if (checks) await check(t, res, "/suppliers/add/bank (island)");
        // axe also runs with the bank list open (once per combination).
        const onOpen = checks ? () => check(t, res, "/suppliers/add/bank (island, bank list open)") : null;
        await chooseInCombobox("#bank_search", "#bank_listbox", bankQuery, bank, onOpen);
        await chooseInCombobox("#branch_search", "#branch_listbox", branchQuery, branchName);
        return;
      }
      if (checks) await check(t, res, "/suppliers/add/bank (主な金融機関)");
      const bankLink = `a[href='/suppliers/add/bank?bank_code=${bankCode}']`;
      if (!bankQuery) {
        assert.match(await page.locator("#bank_q-choices").innerText(), /主な金融機関/);
        res = await activate(page, `.choice-list ${bankLink}`);
      } else {
        await typeInto(page, "#bank_q", bankQuery);
        res = await submitFrom(page, "#bank_q");
        assert.match(await page.locator("#bank_q-choices").innerText(), /検索結果/);
        if (checks) await check(t, res, `/suppliers/add/bank?bank_q=${bankQuery}`);
        res = await activate(page, `.choice-list ${bankLink}`);
      }
      assert.match(await page.locator(".summary-list").innerText(), new RegExp(`${escapeRe(bank)}（${bankCode}）`), "the chosen bank is shown");
      if (checks) await check(t, res, `/suppliers/add/bank?bank_code=${bankCode} (支店)`);
      await typeInto(page, "#branch_q", branchQuery);
      res = await submitFrom(page, "#branch_q");
      assert.match(await page.locator("main").innerText(), new RegExp(escapeRe(branchName)));
      if (checks) await check(t, res, `/suppliers/add/bank 支店検索 ${branchQuery}`);
      res = await activate(page, `.choice-list a[href='/suppliers/add/bank?bank_code=${bankCode}&branch_code=${branchCode}']`);
      assert.match(await page.locator(".summary-list").innerText(), new RegExp(`${escapeRe(branchName)}（${branchCode}）`), "the chosen branch is shown");
      if (checks) await check(t, res, `/suppliers/add/bank?bank_code=${bankCode}&branch_code=${branchCode} (口座)`);
    }

    const chooseInCombobox = (input, listbox, query, want, onOpen) => chooseOption(page, input, listbox, query, want, onOpen);

    /** Account details: 口座種別 by keyboard, number and holder typed. */
    async function fillAccount({ type, number, holder }) {
      await tabTo(page, "input[name='account_type']", { max: 80 });
      if (type === "当座") await page.keyboard.press("ArrowDown");
      else await page.keyboard.press("Space");
      assert.equal(await page.isChecked(type === "当座" ? "#account_type-2" : "#account_type"), true, `${type} is chosen by keyboard`);
      await typeInto(page, "#account_number", number);
      await typeInto(page, "#holder_name", holder);
    }

    /** The account form's submit button (次へ in the wizard). */
    const accountSubmit = "form[action='/suppliers/add/bank'] button[type=submit]";

    /** The check-answers page shows `wants`, each answer with a 変更 link; 登録する registers. */
    async function confirmAndRegister(t, res, wants, { checks }) {
      assert.equal(path(page), "/suppliers/add/confirm");
      if (checks) await check(t, res, "/suppliers/add/confirm");
      const rows = await page.locator("main").innerText();
      for (const w of wants) assert.ok(rows.includes(w), `the check-answers page shows ${w}`);
      const change = page.locator(".summary-list a", { hasText: "変更" });
      assert.ok((await change.count()) >= 8, "every answer has a 変更 link");
      res = await activate(page, "form[action='/suppliers/add/confirm'] button[type=submit]", "Space");
      assert.match(path(page), /^\/suppliers\/\d+$/, "registered: on the supplier's page");
      assert.match(await noticeText(page), /取引先を登録しました/);
      if (checks) await check(t, res, "/suppliers/:id (just registered)");
      return res;
    }

    /** The href of the list entry whose name is exactly `supplierName`, following pages. */
    async function findInList(t, status, supplierName) {
      let res = await page.goto(url(`/suppliers?status=${status}`));
      for (let n = 0; n < 20; n++) {
        await check(t, res, `/suppliers?status=${status} page ${n + 1}`);
        const link = page.locator(".supplier-list__link").filter({ has: page.locator(".supplier-list__name", { hasText: new RegExp(`^${escapeRe(supplierName)}$`) }) });
        if ((await link.count()) > 0) return link.first().getAttribute("href");
        const next = page.locator(".pagination a[rel=next]");
        if ((await next.count()) === 0) return null;
        res = await page.goto(new URL(await next.first().getAttribute("href"), page.url()).href);
      }
      return null;
    }

    test("adds a corporation: company search, bank and branch, a 422 on the account, check answers, 登録する", async (t) => {
      let res = await startWizard(t, "法人", { checks: true });

      // The company search: 山田, the result chosen by keyboard fills the form.
      await typeInto(page, "#corp_q", "山田");
      res = await submitFrom(page, "#corp_q");
      assert.match(await page.locator("main").innerText(), /法人が\d+件見つかりました/);
      await check(t, res, "/suppliers/add/company?corp_q=山田");
      res = await activate(page, `.choice-list a[href='/suppliers/add/company?corporate_number=${YAMADA_NUMBER}']`);
      assert.equal(await page.inputValue("#corporate_number"), YAMADA_NUMBER, "choosing a result fills the number");
      assert.equal(await page.inputValue("#name"), DEMO_YAMADA, "and the name");
      assert.equal(await page.inputValue("#name_kana"), "ヤマダショウジ", "and the kana");
      await check(t, res, "/suppliers/add/company?corporate_number=… (filled)");

      // A name of this run's own; first a kana in kanji, refused.
      const supplierName = `イーツーイー商事株式会社（${tag}）`;
      await typeInto(page, "#name", supplierName);
      await typeInto(page, "#name_kana", "山田商事");
      res = await submitFrom(page, "#name");
      await checkInvalid(t, res, { name_kana: "法人名（カナ）は全角カタカナで入力してください" }, "/suppliers/add/company (法人) kana");
      assert.equal(await page.inputValue("#name"), supplierName, "the answers are kept");
      await typeInto(page, "#name_kana", "いーつーいーしょうじ");
      res = await activate(page, "form[action='/suppliers/add/company'][method=post] button[type=submit]");
      await chooseBankAndBranch(
        t,
        res,
        { bank: "みずほ銀行", bankCode: "0001", branchQuery: "とうきょう", branchCode: "001", branchName: "東京営業部", bankQuery: js ? "みずほ" : "" },
        { checks: true },
      );

      // The error path: 6 digits and a kanji holder name.
      await fillAccount({ type: "普通", number: "123456", holder: "山田商事" });
      res = await activate(page, accountSubmit);
      assert.equal(path(page), "/suppliers/add/bank");
      await checkInvalid(
        t,
        res,
        { account_number: "口座番号は7桁の数字で入力してください", holder_name: "口座名義に「山」は使えません" },
        "/suppliers/add/bank (口座) wrong",
      );
      await islandReady();

      // Corrected: full-width katakana, registered as half-width.
      const number = String(1000000 + Math.floor(Math.random() * 8999999)).slice(0, 7);
      await fillAccount({ type: "普通", number, holder: "ヤマダショウジ（カ）" });
      if (js) {
        // On change (leaving the field), the island shows the half-width name to be registered.
        await page.keyboard.press("Tab");
        await page.waitForFunction(() => /登録される口座名義：/.test(document.querySelector("#holder_name-preview")?.textContent ?? ""));
        assert.equal(await page.locator("#holder_name-preview").innerText(), "登録される口座名義：ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ)");
        assert.equal(await page.locator("#holder_name-error").count(), 0, "no message at the holder name");
        await check(t, res, "/suppliers/add/bank (island, preview shown)", 422);
      }
      res = await activate(page, accountSubmit);
      res = await confirmAndRegister(
        t,
        res,
        ["法人", YAMADA_NUMBER, supplierName, "イーツーイーショウジ", "みずほ銀行（0001）", "東京営業部（001）", "普通", number, "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ)"],
        { checks: true },
      );

      // The supplier page: 未承認, and the account.
      assert.equal((await page.locator("h1").innerText()).trim(), supplierName);
      assert.equal((await page.locator(".page-head .status-badge").innerText()).trim(), "未承認");
      const text = await mainText(page);
      for (const w of ["みずほ銀行（0001）", "東京営業部（001）", "普通", number, "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ)", YAMADA_NUMBER]) {
        assert.ok(text.includes(w), `the supplier page shows ${w}`);
      }

      // The wizard forgot its answers.
      await page.goto(url("/suppliers/add/confirm"));
      assert.equal(path(page), "/suppliers/add/company", "after registering the wizard starts again");
    });

    test("adds a sole proprietor (kana in hiragana, ゆうちょ銀行 by search); it is listed", async (t) => {
      await startWizard(t, "個人事業主", { checks: true });
      assert.equal(await page.locator("#corporate_number").count(), 0, "no corporate number for a sole proprietor");
      const supplierName = `佐藤　花子（${tag}）`;
      await typeInto(page, "#name", supplierName);
      await typeInto(page, "#name_kana", "さとう　はなこ");
      await typeInto(page, "#business_name", "さとう工房");
      let res = await submitFrom(page, "#business_name");
      await chooseBankAndBranch(
        t,
        res,
        { bank: "ゆうちょ銀行", bankQuery: "ゆうちょ", bankCode: "9900", branchQuery: "018", branchCode: "018", branchName: "〇一八" },
        { checks: !js },
      );
      const number = String(1000000 + Math.floor(Math.random() * 8999999)).slice(0, 7);
      await fillAccount({ type: "普通", number, holder: "さとう　はなこ" });
      res = await submitFrom(page, "#holder_name");
      await confirmAndRegister(
        t,
        res,
        ["個人事業主", supplierName, "サトウ　ハナコ", "さとう工房", "ゆうちょ銀行（9900）", "（018）", number, "ｻﾄｳ ﾊﾅｺ"],
        { checks: false },
      );
      assert.equal((await page.locator(".page-head .status-badge").innerText()).trim(), "未承認");
      added = { href: path(page), name: supplierName };

      const href = await findInList(t, "enable", supplierName);
      assert.equal(href, added.href, "the new supplier is in 有効");
      assert.match(await page.locator(".list-tabs").innerText(), /有効（\d+件）/);
    });

    test("deletes a supplier (いいえ, then はい); the demo 山田商事株式会社 cannot be deleted", async (t) => {
      assert.ok(added, "the sole proprietor of the previous journey exists");
      let res = await page.goto(url(added.href));
      await check(t, res, "/suppliers/:id (to delete)");
      const deleteHref = `${added.href}/delete`;
      await tabTo(page, `a[href='${deleteHref}']`, { max: 80 });
      res = await andWait(page, () => page.keyboard.press("Enter"));
      assert.equal(path(page), deleteHref);
      assert.match(await page.locator("h1").innerText(), /取引先を削除しますか？/);
      assert.ok((await mainText(page)).includes(added.name), "the page names the supplier");
      await check(t, res, "/suppliers/:id/delete");

      // いいえ goes back, nothing deleted.
      assert.match(await page.locator(`form[action='${deleteHref}'] a`).innerText(), /いいえ/);
      res = await activate(page, `form[action='${deleteHref}'] a[href='${added.href}']`);
      assert.equal(path(page), added.href, "いいえ goes back to the supplier");
      assert.equal(res.status(), 200);

      // はい deletes.
      await page.goto(url(deleteHref));
      const yes = `form[action='${deleteHref}'] button[type=submit]`;
      assert.match(await page.locator(yes).innerText(), /はい/);
      res = await activate(page, yes, "Space");
      assert.equal(pathAndQuery(page), "/suppliers?status=enable");
      assert.match(await noticeText(page), /取引先を削除しました/);
      await check(t, res, "/suppliers?status=enable (deleted)");
      assert.ok(!(await mainText(page)).includes(added.name), "the supplier is no longer listed");
      res = await page.goto(url(added.href));
      assert.equal(res.status(), 404, "the deleted supplier's page is gone");
      await check(t, res, "/suppliers/:id (deleted)", 404);

      // The demo supplier with a payment in progress.
      const yamada = await findInList(t, "enable", DEMO_YAMADA);
      assert.ok(yamada, `${DEMO_YAMADA} is listed`);
      res = await page.goto(url(`${yamada}/delete`));
      await check(t, res, "/suppliers/:id/delete (blocked)");
      assert.match(await page.locator("h1").innerText(), /この取引先は削除できません/);
      assert.match(await page.locator("main [role=alert]").innerText(), /この取引先への支払いが進行中のため削除できません/);
      assert.equal(await page.locator(`form[action='${yamada}/delete']`).count(), 0, "no はい button");
    });

    test("pages pass axe: both list tabs, a supplier, its payment history, a payment, the account edit page", async (t) => {
      let res = await page.goto(url("/suppliers?status=disable"));
      await check(t, res, "/suppliers?status=disable");
      assert.match(await mainText(page), /株式会社さくら製作所/, "the rejected demo supplier is under 否認");
      assert.equal(await page.getAttribute(".list-tabs a[href='/suppliers?status=disable']", "aria-current"), "page");

      const yamada = await findInList(t, "enable", DEMO_YAMADA);
      assert.ok(yamada, `${DEMO_YAMADA} is listed`);
      res = await activate(page, `.supplier-list__link[href='${yamada}']`);
      await check(t, res, "/suppliers/:id (demo)");
      assert.equal((await page.locator(".page-head .status-badge").innerText()).trim(), "承認済");

      res = await activate(page, `main a[href='${yamada}/payment-history']`);
      await check(t, res, "/suppliers/:id/payment-history");
      const payment = page.locator(`main a[href^='${yamada}/payment-history/']`);
      assert.ok((await payment.count()) >= 1, "the demo supplier has payments");
      const paymentHref = await payment.first().getAttribute("href");
      res = await activate(page, `main a[href='${paymentHref}']`);
      assert.equal(path(page), paymentHref);
      await check(t, res, "/suppliers/:id/payment-history/:paymentid");

      res = await page.goto(url(yamada));
      const edit = page.locator(`main a[href^='${yamada}/accounts/'][href$='/edit']`);
      const editHref = await edit.first().getAttribute("href");
      res = await activate(page, `main a[href='${editHref}']`);
      assert.equal(path(page), editHref);
      await islandReady();
      await check(t, res, "/suppliers/:id/accounts/:accountid/edit");
    });
  });
}
