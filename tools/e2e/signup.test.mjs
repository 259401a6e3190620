// Sign-up and registration in the browser (DESIGN.md §5), with JavaScript on and off, at
// 360px and 1280px: sign up with a mailed code (read from the development mailbox,
// /dev/mailbox), register a corporation and a sole proprietor through the wizard, sign
// in with the new account; re-registration; axe on every new page and on its
// validation-failure (422) state. The sign-up and code pages are done by keyboard alone;
// the long registration form is filled directly but submitted with Enter. With
// JavaScript on, the registration island checks fields on change and fills addresses
// from postal codes as they are typed; with it off, 住所を検索 asks the server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { JOURNEY_COMBOS as COMBOS, assertNoProblems, comboName, describeFocus, firstPage, launch, pageProblems, screenshot, tabTo, url, lastMailId, waitForMail, mailCode, watchErrors, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 180_000 };
const PASSWORD = "e2eSignup2026pw";

// --- Page helpers --------------------------------------------------------------------------

const path = (page) => new URL(page.url()).pathname;

/** Waits for the document a key press or click leads to; returns its response (after any 303). */
async function andWait(page, act) {
  const answered = page.waitForResponse((r) => r.request().resourceType() === "document" && r.status() !== 303);
  const committed = page.waitForEvent("framenavigated", (f) => f === page.mainFrame());
  await act();
  const [res] = await Promise.all([answered, committed]);
  await page.waitForLoadState("load");
  return res;
}

const pressEnter = (page) => andWait(page, () => page.keyboard.press("Enter"));
// Buttons and links are activated from the keyboard: focus, then Enter (a mouse is never used).
const click = (page, selector) =>
  andWait(page, async () => {
    await page.locator(selector).focus();
    await page.keyboard.press("Enter");
  });
const goto = (page, p) => page.goto(url(p));

/** The registration island is mounted (JavaScript on) or not there to mount (off). */
async function islandReady(page, js) {
  if (js) await page.waitForSelector("[data-island='registration'][data-island-mounted='true']");
}

const uniqueEmail = (tag, { js, width }) =>
  `e2e-${tag}-${js ? "js" : "nojs"}-${width}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@e2e.example`;

// The answers of the two journeys; postal codes are typed, so the lookup fills the rest.
const CORPORATION = {
  corporate_name: "株式会社イーツーイー商事",
  corporate_name_kana: "かぶしきがいしゃいーつーいーしょうじ",
  corporate_number: "7000012050002",
  address_street: "千代田1-1",
  representative_last_name: "山田",
  representative_first_name: "太郎",
  representative_last_name_kana: "ヤマダ",
  representative_first_name_kana: "タロウ",
  representative_address_street: "北1条西2丁目",
  representative_phone_number: "011-123-4567",
  user_last_name: "佐藤",
  user_first_name: "花子",
  phone_number: "090-1234-5678",
};
const SOLE_PROPRIETOR = {
  business_name: "イーツーイー工房",
  business_name_kana: "イーツーイーコウボウ",
  business_address_street: "千代田1-1",
  representative_last_name: "鈴木",
  representative_first_name: "一郎",
  representative_last_name_kana: "スズキ",
  representative_first_name_kana: "イチロウ",
  home_address_street: "北1条西2丁目",
  home_address_building_name: "コーポ101",
  user_last_name: "鈴木",
  user_first_name: "一郎",
  phone_number: "03-1234-5678",
  transfer_person_name: "スズキ　イチロウ",
};

for (const combo of COMBOS) {
  const name = comboName(combo);
  const { js } = combo;
  describe(`sign-up and registration (${name})`, () => {
    let context;
    let page;
    // Script errors and CSP violations (reported as console errors); a 4xx document is
    // logged by Chromium as a failed load, which a 422 page is meant to be.
    let consoleErrors = [];
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
      consoleErrors = await watchErrors(context, page);
    });
    after(async () => {
      await context?.close();
    });

    /** The checks every page passes (status, lang, title, one h1, axe). */
    async function check(t, res, label, status = 200) {
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    /** A validation failure: 422, エラー： title, focus on the summary, message at the field, axe. */
    async function checkInvalid(t, res, field, message, label) {
      assert.equal(res.status(), 422, `${label}: status`);
      assert.ok((await page.title()).startsWith("エラー："), `${label}: title starts with エラー：`);
      assert.equal(await focusedId(page, "error-summary"), "error-summary", `${label}: focus on the error summary`);
      assert.ok((await page.locator(`.error-summary a[href='#${field}']`).count()) >= 1, `${label}: summary links to #${field}`);
      assert.match(await page.locator(`#${field}-error`).innerText(), new RegExp(message), `${label}: message at #${field}`);
      if (field !== "business_form") assert.equal(await page.getAttribute(`#${field}`, "aria-invalid"), "true", `${label}: aria-invalid`);
      await check(t, res, `${label} with errors`, 422);
    }

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          consoleErrors.length = 0;
          await fn(t);
          assert.deepEqual(consoleErrors, [], "no script errors or CSP violations");
        } catch (err) {
          const shot = await screenshot(page, `signup ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        }
      });

    /** /signup and /signup/code by keyboard alone; ends on the registration wizard. */
    async function signUpByKeyboard(t, email, { checks }) {
      let res = await goto(page, "/signup");
      if (checks) {
        await check(t, res, "/signup");
        // Submitted empty: every field says what is missing.
        await tabTo(page, "form[action='/signup'] button[type=submit]");
        res = await pressEnter(page);
        await checkInvalid(t, res, "email_address", "メールアドレスを入力してください", "/signup empty");
        assert.match(await page.locator("#consent-error").innerText(), /利用規約とプライバシーポリシーに同意してください/);
      }
      await tabTo(page, "#email_address");
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type(email);
      await page.keyboard.press("Tab");
      assert.match(await describeFocus(page), /^input#password/, "Tab from the address reaches the password");
      await page.keyboard.type(PASSWORD);
      await tabTo(page, "#consent");
      await page.keyboard.press("Space");
      assert.equal(await page.isChecked("#consent"), true, "Space ticks the consent");
      const before = await lastMailId();
      await tabTo(page, "form[action='/signup'] button[type=submit]");
      res = await pressEnter(page);
      assert.equal(path(page), "/signup/code");
      if (checks) await check(t, res, "/signup/code");
      assert.match(await page.locator("main").innerText(), new RegExp(`${email.replace(/[.+]/g, "\\$&")} 宛てに認証コードを送信しました`));
      const code = mailCode(await waitForMail(email, "認証コード", before));

      if (checks) {
        await tabTo(page, "#code");
        await page.keyboard.type(code === "000000" ? "111111" : "000000");
        res = await pressEnter(page);
        await checkInvalid(t, res, "code", "認証コードが正しくありません", "/signup/code wrong code");
      }
      await tabTo(page, "#code");
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type(code);
      res = await pressEnter(page);
      assert.equal(path(page), "/registration", "the right code opens the registration wizard");
      return res;
    }

    /** Answers the business-form question by keyboard. */
    async function chooseBusinessForm(t, label, { checks, res }) {
      if (checks) {
        await check(t, res, "/registration (事業形態)");
        await tabTo(page, "form[action='/registration'] button[type=submit]");
        res = await pressEnter(page);
        await checkInvalid(t, res, "business_form", "事業形態を選択してください", "/registration (事業形態) empty");
      }
      const id = label === "法人" ? "#business_form" : "#business_form-2";
      await tabTo(page, "#business_form");
      if (id !== "#business_form") await page.keyboard.press("ArrowDown");
      else await page.keyboard.press("Space");
      assert.equal(await page.isChecked(id), true, `${label} is chosen by keyboard`);
      await tabTo(page, "form[action='/registration'] button[type=submit]");
      res = await pressEnter(page);
      assert.equal(path(page), "/registration");
      assert.match(await page.locator("h1").innerText(), new RegExp(`利用者情報の登録（${label}）`));
      return res;
    }

    /** Types a postal code and has the prefecture and city filled: by the island, or by 住所を検索. */
    async function lookUp(postalField, code, prefix, expect) {
      const state = `#${prefix}address_state`;
      const city = `#${prefix}address_city`;
      if (js) {
        await page.focus(`#${postalField}`);
        await page.keyboard.type(code);
        await page.waitForFunction(([s, want]) => document.querySelector(s)?.value === want, [state, expect.prefecture]);
        assert.match(await page.locator(`#${postalField}-status`).innerText(), /郵便番号から住所を入力しました/);
      } else {
        await page.fill(`#${postalField}`, code);
        const res = await click(page, `button[name='lookup'][value='${postalField}']`);
        assert.equal(res.status(), 200, "a lookup answers 200");
        assert.equal(await focusedId(page, `${prefix}address_street`), `${prefix}address_street`, "focus moves to the street");
      }
      assert.equal(await page.inputValue(state), expect.prefecture);
      assert.equal(await page.inputValue(city), expect.city);
    }

    async function fill(values) {
      for (const [id, v] of Object.entries(values)) await page.fill(`#${id}`, v);
    }

    /** Confirms, registers, and signs in with the new account. */
    async function confirmRegisterAndSignIn(t, email, wants, { checks }) {
      assert.equal(path(page), "/registration/confirm");
      const rows = await page.locator(".summary-list").innerText();
      for (const w of wants) assert.ok(rows.includes(w), `the check-answers page shows ${w}`);
      const change = page.locator(".summary-list a", { hasText: "変更" });
      assert.ok((await change.count()) > 10, "every answer has a 変更 link");
      // The 変更 links are named for their answer: 法人名を変更, ….
      assert.match(await change.nth(1).evaluate((a) => a.textContent), /を変更$/);
      let res = await click(page, "form[action='/registration/confirm'] button[type=submit]");
      assert.equal(path(page), "/registration/result");
      if (checks) await check(t, res, "/registration/result");
      assert.match(await page.locator("h1").innerText(), /登録が完了しました/);

      await tabTo(page, "main a[href='/signin']");
      res = await pressEnter(page);
      assert.equal(path(page), "/signin");
      await page.fill("#email_address", email);
      await page.fill("#password", PASSWORD);
      res = await andWait(page, () => page.press("#password", "Enter"));
      assert.notEqual(path(page), "/signin", "the new account signs in");
      assert.equal(res.status(), 200);
      // Sign out, so the next journey starts anonymous.
      await goto(page, "/signin");
    }

    test("signs up and registers a corporation", async (t) => {
      const email = uniqueEmail("corp", combo);
      let res = await signUpByKeyboard(t, email, { checks: true });
      res = await chooseBusinessForm(t, "法人", { checks: true, res });
      await islandReady(page, js);
      await check(t, res, "/registration (法人)");

      // Enter in a field submits the whole form, not the first 住所を検索; empty, it is refused.
      await page.focus("#corporate_name");
      res = await pressEnter(page);
      await checkInvalid(t, res, "corporate_name", "法人名を入力してください", "/registration (法人) empty");
      assert.ok((await page.locator(".error-summary li").count()) > 10, "every missing answer is listed");
      await islandReady(page, js);

      if (js) {
        // The island checks a field when it changes (here, on leaving it), with the server's words.
        const kanaError = page.locator("#representative_last_name_kana-error");
        assert.match(await kanaError.innerText(), /代表者の姓（カナ）を入力してください/, "the server's message first");
        await page.focus("#representative_last_name_kana");
        await page.keyboard.type("山田");
        assert.match(await kanaError.innerText(), /を入力してください/, "nothing is checked while typing");
        await page.keyboard.press("Tab");
        assert.match(await page.locator("#representative_last_name_kana-error").innerText(), /代表者の姓（カナ）は全角カタカナで入力してください/);
        assert.equal(await page.getAttribute("#representative_last_name_kana", "aria-invalid"), "true");
        await check(t, res, "/registration (法人) with an island message", 422);
      }

      await fill(CORPORATION);
      await page.selectOption("#business_category", "I");
      await page.fill("#representative_birthday", "1980-04-01");
      await lookUp("postal_code", "1000001", "", { prefecture: "東京都", city: "千代田区" });
      await lookUp("representative_postal_code", "0600000", "representative_", { prefecture: "北海道", city: "札幌市中央区" });
      // What was typed before a no-JavaScript lookup came back with the page.
      assert.equal(await page.inputValue("#corporate_name"), CORPORATION.corporate_name);

      // A wrong answer after all: kanji in a kana field.
      await page.fill("#corporate_name_kana", "漢字商事");
      res = await andWait(page, () => page.press("#corporate_name", "Enter"));
      await checkInvalid(t, res, "corporate_name_kana", "法人名（カナ）は全角カタカナで入力してください", "/registration (法人) kana");
      await islandReady(page, js);
      await page.fill("#corporate_name_kana", CORPORATION.corporate_name_kana);
      res = await andWait(page, () => page.press("#corporate_name", "Enter"));
      assert.equal(path(page), "/registration/confirm", "a complete form goes on to the check-answers page");
      await check(t, res, "/registration/confirm");

      // 変更 goes back to the field, answers kept.
      res = await click(page, "a[href='/registration#corporate_number']");
      assert.equal(new URL(page.url()).hash, "#corporate_number");
      assert.equal(await page.inputValue("#corporate_number"), CORPORATION.corporate_number);
      await islandReady(page, js);
      res = await andWait(page, () => page.press("#corporate_number", "Enter"));
      assert.equal(path(page), "/registration/confirm");

      await confirmRegisterAndSignIn(
        t,
        email,
        ["株式会社イーツーイー商事", "カブシキガイシャイーツーイーショウジ", "卸売業，小売業", "〒100-0001 東京都千代田区千代田1-1", "1980年4月1日"],
        { checks: true },
      );
    });

    test("registers a sole proprietor", async (t) => {
      const email = uniqueEmail("sole", combo);
      let res = await signUpByKeyboard(t, email, { checks: false });
      res = await chooseBusinessForm(t, "個人事業主", { checks: false, res });
      await islandReady(page, js);
      await check(t, res, "/registration (個人事業主)");
      await fill(SOLE_PROPRIETOR);
      await page.selectOption("#business_category", "E");
      await page.fill("#representative_birthday", "1975-01-02");
      await lookUp("business_postal_code", "1000001", "business_", { prefecture: "東京都", city: "千代田区" });
      await lookUp("home_postal_code", "0600000", "home_", { prefecture: "北海道", city: "札幌市中央区" });
      if (!js) {
        // An unknown postal code: a message at the field, nothing filled.
        await page.fill("#home_postal_code", "9999999");
        res = await click(page, "button[name='lookup'][value='home_postal_code']");
        await checkInvalid(t, res, "home_postal_code", "該当する住所が見つかりませんでした", "/registration (個人事業主) unknown postal code");
        await page.fill("#home_postal_code", "0600000");
      }
      res = await andWait(page, () => page.press("#business_name", "Enter"));
      assert.equal(path(page), "/registration/confirm");
      await confirmRegisterAndSignIn(t, email, ["個人事業主", "イーツーイー工房", "製造業", "スズキ　イチロウ", "コーポ101"], { checks: false });
    });

    test("/password/reregistration answers the same for any address, and passes axe", async (t) => {
      let res = await goto(page, "/password/reregistration");
      await check(t, res, "/password/reregistration");
      await tabTo(page, "form[action='/password/reregistration'] button[type=submit]");
      res = await pressEnter(page);
      await checkInvalid(t, res, "email_address", "メールアドレスを入力してください", "/password/reregistration empty");

      await tabTo(page, "#email_address");
      await page.keyboard.type(uniqueEmail("nobody", combo));
      res = await pressEnter(page);
      assert.equal(path(page), "/signup/code");
      await check(t, res, "/signup/code after re-registration");
      assert.match(await page.locator("main").innerText(), /登録途中のお申し込みがある場合は、/);
      assert.ok(await page.locator("main a[href='/signup']").count(), "a link to sign up");
    });
  });
}
