// Account journeys in the browser (DESIGN.md §5), with JavaScript on and off, at 360px
// and 1280px: reset a password with a mailed code, change the e-mail address, turn on
// the authenticator app and sign in with it, mail two-factor on and off, and axe on each
// account page and on its validation-failure (422) state. Mails are read from the
// development mailbox (/dev/mailbox). Every journey leaves the demo accounts as it found
// them (same address, same password, two-factor off), so later files still sign in.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { JOURNEY_COMBOS as COMBOS, CORP, DEMO_PASSWORD, SOLE, assertNoProblems, comboName, describeFocus, firstPage, launch, pageProblems, screenshot, signIn, tabTo, url, lastMailId, waitForMail, mailCode, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 120_000 };

// --- TOTP (RFC 6238 over RFC 4226), to play the authenticator app -------------------------

function base32Decode(s) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out = [];
  for (const ch of s.replace(/[\s=]/g, "").toUpperCase()) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The 6-digit code of `secret` (base32) for time step `step` (30 s steps, SHA-1). */
export function totpCode(secret, step = Math.floor(Date.now() / 1000 / 30)) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, "0");
}

// RFC 6238 appendix B: the SHA-1 test vector, so a broken helper fails here, not in the app.
assert.equal(totpCode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", Math.floor(59 / 30)), "287082");

// --- Page helpers --------------------------------------------------------------------------

const path = (page) => new URL(page.url()).pathname;

/** Types into a field by keyboard: focus, select what is there, type. */
async function typeInto(page, selector, text) {
  await page.focus(selector);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  if (text) await page.keyboard.type(text);
}

/**
 * Presses Enter in `selector` (submitting its form) and waits for the document that
 * answers; returns that response (after any redirect).
 */
async function submitWithEnter(page, selector) {
  await page.focus(selector);
  return pressEnterAndWait(page);
}

/**
 * Presses Enter on what has focus (a link, or a field of a form) and waits until the
 * page it leads to is loaded; returns that page's response (after any 303).
 */
async function pressEnterAndWait(page) {
  const answered = page.waitForResponse((r) => r.request().resourceType() === "document" && r.status() !== 303);
  const committed = page.waitForEvent("framenavigated", (f) => f === page.mainFrame());
  await page.keyboard.press("Enter");
  const [res] = await Promise.all([answered, committed]);
  await page.waitForLoadState("load");
  return res;
}

/** Text of the flash notice, server-rendered or from the island. */
async function noticeText(page) {
  const n = page.locator("[data-island='snackbar'] .snackbar");
  await n.first().waitFor({ state: "attached" });
  return (await n.first().textContent()).replace(/\s+/g, " ");
}

/** Whether the demo password passes the password rules (10+ characters, letter and digit). */
const demoPasswordUsable = DEMO_PASSWORD.length >= 10 && /[A-Za-z]/.test(DEMO_PASSWORD) && /\d/.test(DEMO_PASSWORD);

for (const combo of COMBOS) {
  const name = comboName(combo);
  describe(`account (${name})`, () => {
    let context;
    let page;
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
    });
    after(async () => {
      await context?.close();
    });

    /**
     * The checks every page passes (status, lang, title, one h1, axe). With JavaScript
     * the snackbar island fades the notice in: axe runs once it is fully shown.
     */
    async function check(t, res, label, status = 200) {
      if (combo.js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    /**
     * Best effort after a failed journey: signs SOLE in (answering a second factor with a
     * recovery code or a mailed code) and turns two-factor off, so later tests and files
     * still sign in with the password alone.
     */
    async function turnTwoFactorOff({ recovery = [] } = {}) {
      try {
        const mark = await lastMailId();
        await signIn(page, SOLE);
        if (path(page) === "/onetime-password") {
          const code = recovery.length ? recovery.pop() : mailCode(await waitForMail(SOLE, "ログイン用の認証コード", mark));
          await typeInto(page, "#code", code);
          await submitWithEnter(page, "#code");
        }
        await page.goto(url("/myaccount/security"));
        await page.check("input[value='none']");
        await typeInto(page, "#current_password", DEMO_PASSWORD);
        await submitWithEnter(page, "#current_password");
      } catch (err) {
        console.error(`cleanup: could not turn two-factor off for ${SOLE}: ${err.message}`);
      }
    }

    /** A validation failure: 422, エラー： title, focus on the summary, message at the field. */
    async function checkInvalid(t, res, field, message, label) {
      assert.equal(res.status(), 422, `${label}: status`);
      assert.ok((await page.title()).startsWith("エラー："), `${label}: title starts with エラー：`);
      assert.equal(await focusedId(page, "error-summary"), "error-summary", `${label}: focus on the error summary`);
      assert.ok((await page.locator(`.error-summary a[href='#${field}']`).count()) >= 1, `${label}: summary links to #${field}`);
      assert.match(await page.locator(`#${field}-error`).innerText(), new RegExp(message), `${label}: message at #${field}`);
      await check(t, res, `${label} with errors`, 422);
    }

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          await fn(t);
        } catch (err) {
          const shot = await screenshot(page, `account ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; focus was on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        }
      });

    test("password reset: request, 422 states, reset with the mailed code, sign in with the new password", async (t) => {
      if (!demoPasswordUsable) {
        t.skip("DEMO_PASSWORD does not pass the password rules, so the reset cannot set it back");
        return;
      }
      await page.goto(url("/signin"));
      await tabTo(page, "a[href='/password/sendemail']", { max: 60 });
      const res = await pressEnterAndWait(page);
      assert.equal(path(page), "/password/sendemail");
      await check(t, res, "/password/sendemail");

      await checkInvalid(t, await submitWithEnter(page, "#email_address"), "email_address", "メールアドレスを入力してください", "/password/sendemail empty");

      const mark = await lastMailId();
      await typeInto(page, "#email_address", SOLE);
      let r = await submitWithEnter(page, "#email_address");
      assert.equal(path(page), "/password/reset");
      assert.match(await noticeText(page), /パスワード再設定用のコードを送信しました（ご登録がある場合）/);
      assert.equal(await page.inputValue("#email_address"), SOLE, "the address is filled in");
      await check(t, r, "/password/reset");

      const code = mailCode(await waitForMail(SOLE, "パスワード再設定", mark));
      await typeInto(page, "#code", code);
      await typeInto(page, "#password", DEMO_PASSWORD);
      await typeInto(page, "#password_confirmation", DEMO_PASSWORD + "x");
      r = await submitWithEnter(page, "#password_confirmation");
      await checkInvalid(t, r, "password_confirmation", "一致しません", "/password/reset mismatched");

      // The code survived the typo; the form kept the address and the code.
      assert.equal(await page.inputValue("#email_address"), SOLE);
      assert.equal(await page.inputValue("#code"), code);
      await typeInto(page, "#password", DEMO_PASSWORD);
      await typeInto(page, "#password_confirmation", DEMO_PASSWORD);
      await submitWithEnter(page, "#password_confirmation");
      assert.equal(path(page), "/signin");
      assert.match(await noticeText(page), /パスワードを再設定しました/);
      await signIn(page, SOLE);
    });

    /** Changes the signed-in user's address from `from` to `to` through both pages. */
    async function changeAddress(t, from, to, { checks }) {
      await page.goto(url("/myaccount/edit-email-address"));
      const mark = await lastMailId();
      await typeInto(page, "#email_address", to);
      await typeInto(page, "#current_password", DEMO_PASSWORD);
      let r = await submitWithEnter(page, "#current_password");
      assert.equal(path(page), "/myaccount/edit-email-auth");
      assert.ok((await page.locator("main").innerText()).includes(to), "the page names the new address");
      if (checks) await check(t, r, "/myaccount/edit-email-auth");
      const code = mailCode(await waitForMail(to, "メールアドレス変更の認証コード", mark));
      if (checks) {
        await typeInto(page, "#code", code === "000000" ? "111111" : "000000");
        r = await submitWithEnter(page, "#code");
        await checkInvalid(t, r, "code", "確認コードが正しくありません", "/myaccount/edit-email-auth wrong code");
      }
      await typeInto(page, "#code", code);
      r = await submitWithEnter(page, "#code");
      assert.equal(path(page), "/myaccount/edit-email-complete");
      assert.match(await noticeText(page), /メールアドレスを変更しました/);
      assert.ok((await page.locator("main").innerText()).includes(to));
      if (checks) await check(t, r, "/myaccount/edit-email-complete");
      await waitForMail(from, "メールアドレス変更のお知らせ", mark);
    }

    test("e-mail change: 422 states, an address in use, code to the new address, sign in with it, change back", async (t) => {
      const changed = `sole-${combo.js ? "js" : "nojs"}-${combo.width}@demo.example`;
      let moved = false;
      try {
        await signIn(page, SOLE);
        let res = await page.goto(url("/myaccount"));
        await check(t, res, "/myaccount");
        await tabTo(page, "a[href='/myaccount/edit-email-address']", { max: 60 });
        res = await pressEnterAndWait(page);
        assert.equal(path(page), "/myaccount/edit-email-address");
        await check(t, res, "/myaccount/edit-email-address");

        await typeInto(page, "#email_address", changed);
        await typeInto(page, "#current_password", "wrong password 1");
        res = await submitWithEnter(page, "#current_password");
        await checkInvalid(t, res, "current_password", "現在のパスワードが正しくありません", "/myaccount/edit-email-address wrong password");
        // An address another account uses is answered like a free one (the page does
        // not tell who has an account): its owner is told by mail, and no code goes out.
        const inUseMark = await lastMailId();
        await typeInto(page, "#email_address", CORP);
        await typeInto(page, "#current_password", DEMO_PASSWORD);
        await submitWithEnter(page, "#current_password");
        assert.equal(path(page), "/myaccount/edit-email-auth");
        const inUse = await waitForMail(CORP, "メールアドレス変更のお申し込みについて", inUseMark);
        assert.throws(() => mailCode(inUse), /no code/, "no code for an address in use");

        moved = true;
        await changeAddress(t, SOLE, changed, { checks: true });
        await signIn(page, changed); // (signs out first)
        await changeAddress(t, changed, SOLE, { checks: false });
        moved = false;
        await page.goto(url("/myaccount"));
        assert.ok((await page.locator("main").innerText()).includes(SOLE), "back to the demo address");
      } finally {
        if (moved) {
          // Best effort: if the changed address signs in, set it back to the demo one.
          try {
            const stillChanged = await signIn(page, changed).then(
              () => true,
              () => false,
            );
            if (stillChanged) await changeAddress(t, changed, SOLE, { checks: false });
          } catch (err) {
            console.error(`cleanup: could not set ${SOLE} back: ${err.message}`);
          }
        }
      }
    });

    test("authenticator app: QR page and key, 422 states, recovery codes once, sign in with a TOTP code, then off", async (t) => {
      const state = { on: false, recovery: [] };
      try {
        await authenticatorJourney(t, state);
      } finally {
        if (state.on) await turnTwoFactorOff(state);
      }
    });

    /**
     * ログイン中の端末: an API sign-in of SOLE is listed beside this browser, and
     * 他のすべての端末からログアウト (Tab to it, Enter) ends it and keeps this browser.
     */
    async function endOtherSessionsByKeyboard(t) {
      const login = await fetch(url("/api/v1/login"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email_address: SOLE, password: DEMO_PASSWORD }),
      });
      const tokens = await login.json();
      assert.equal(login.status, 200, `POST /api/v1/login as ${SOLE}: ${JSON.stringify(tokens)}`);

      let res = await page.goto(url("/myaccount/security"));
      await check(t, res, "/myaccount/security with other sessions");
      const sessions = page.locator("table:has(caption#sessions-caption)");
      assert.equal(await sessions.count(), 1, "the sessions table has a caption");
      assert.equal(await sessions.locator("tbody tr:has(.status-badge)").count(), 1, "one row is この端末");
      assert.ok((await sessions.locator("td", { hasText: "APIクライアント" }).count()) >= 1, "the API sign-in is listed");

      await tabTo(page, "#end-other-sessions button[type='submit']", { max: 200 });
      res = await pressEnterAndWait(page);
      assert.equal(path(page), "/myaccount/security");
      assert.match(await noticeText(page), /他のすべての端末からログアウトしました/);
      await check(t, res, "/myaccount/security after ending the other sessions");
      assert.equal(await sessions.locator("tbody tr").count(), 1, "only this browser is left");
      assert.equal(await page.locator("#end-other-sessions").count(), 0, "nothing else to end");

      const refreshed = await fetch(url("/api/v1/users/token"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ refresh_token: tokens.refresh_token }),
      });
      assert.equal(refreshed.status, 401, "the ended API sign-in cannot refresh");
    }

    async function authenticatorJourney(t, state) {
      await signIn(page, SOLE);
      let res = await page.goto(url("/myaccount/security"));
      await check(t, res, "/myaccount/security");
      assert.equal(await page.locator("table caption#signin-history-caption").count(), 1, "the sign-in history has a caption");
      await endOtherSessionsByKeyboard(t);

      // Keyboard: the checked radio (使用しない), arrows to 認証アプリを使う.
      await tabTo(page, "input[name='two_factor_method']:checked", { max: 80 });
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      assert.equal(await page.evaluate(() => document.activeElement?.value), "totp");
      assert.equal(await page.isChecked("input[value='totp']"), true, "arrows select the radio");
      res = await submitWithEnter(page, "#current_password");
      await checkInvalid(t, res, "current_password", "現在のパスワードを入力してください", "/myaccount/security no password");
      assert.equal(await page.isChecked("input[value='totp']"), true, "the choice is kept");

      await typeInto(page, "#current_password", DEMO_PASSWORD);
      res = await submitWithEnter(page, "#current_password");
      assert.equal(path(page), "/myaccount/security/totp");
      await check(t, res, "/myaccount/security/totp");
      const img = page.locator("img[alt='認証アプリで読み取るQRコード']");
      assert.match(await img.getAttribute("src"), /^data:image\/png;base64,/);
      assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), "the QR code image loads (CSP allows data:)");
      const secret = (await page.locator("#totp-secret").innerText()).replace(/\s+/g, "");
      assert.match(secret, /^[A-Z2-7]{32}$/);

      const now = Math.floor(Date.now() / 1000 / 30);
      await typeInto(page, "#code", totpCode(secret, now - 5));
      res = await submitWithEnter(page, "#code");
      await checkInvalid(t, res, "code", "確認コードが正しくありません", "/myaccount/security/totp wrong code");

      await typeInto(page, "#code", totpCode(secret, now));
      res = await submitWithEnter(page, "#code");
      assert.equal(path(page), "/myaccount/security/recovery-codes");
      await check(t, res, "/myaccount/security/recovery-codes");
      state.on = true;
      const codes = await page.locator(".account-recovery-codes code").allInnerTexts();
      state.recovery = [...codes];
      assert.equal(codes.length, 10);
      assert.match(await page.locator("main").innerText(), /この画面でのみ表示します/);
      await page.reload();
      assert.equal(path(page), "/myaccount/security", "the recovery codes are shown once");

      // Sign in again: the password, then the app's code (the next time step: the one
      // that turned it on is spent).
      await signIn(page, SOLE);
      assert.equal(path(page), "/onetime-password");
      await typeInto(page, "#code", totpCode(secret, now + 1));
      await submitWithEnter(page, "#code");
      assert.notEqual(path(page), "/onetime-password", "the TOTP code signs in");
      assert.match(await noticeText(page), /ログインしました/);

      // Off again, with the password.
      await page.goto(url("/myaccount/security"));
      await page.check("input[value='none']");
      await typeInto(page, "#current_password", DEMO_PASSWORD);
      await submitWithEnter(page, "#current_password");
      assert.match(await noticeText(page), /二段階認証を無効にしました/);
      state.on = false;
      assert.equal(await page.isChecked("input[value='none']"), true);
    }

    test("mail two-factor: the code page and its 422 state, on by the mailed code, then off", async (t) => {
      const state = { on: false };
      try {
        await mailTwoFactorJourney(t, state);
      } finally {
        if (state.on) await turnTwoFactorOff();
      }
    });

    async function mailTwoFactorJourney(t, state) {
      await signIn(page, SOLE);
      await page.goto(url("/myaccount/security"));
      const mark = await lastMailId();
      await page.check("input[value='email']");
      await typeInto(page, "#current_password", DEMO_PASSWORD);
      let res = await submitWithEnter(page, "#current_password");
      assert.equal(path(page), "/myaccount/security/email");
      await check(t, res, "/myaccount/security/email");
      const code = mailCode(await waitForMail(SOLE, "二段階認証の設定用", mark));
      await typeInto(page, "#code", code === "000000" ? "111111" : "000000");
      res = await submitWithEnter(page, "#code");
      await checkInvalid(t, res, "code", "確認コードが正しくありません", "/myaccount/security/email wrong code");
      state.on = true;
      await typeInto(page, "#code", code);
      await submitWithEnter(page, "#code");
      assert.equal(path(page), "/myaccount/security");
      assert.match(await noticeText(page), /メールによる二段階認証を有効にしました/);

      await page.check("input[value='none']");
      await typeInto(page, "#current_password", DEMO_PASSWORD);
      await submitWithEnter(page, "#current_password");
      assert.match(await noticeText(page), /二段階認証を無効にしました/);
      state.on = false;
    }

    test("account pages and their 422 states pass axe: ログイン情報, 会社情報, パスワードの変更, 利用規約, completion page", async (t) => {
      await signIn(page, CORP);
      let res = await page.goto(url("/myaccount/company"));
      await check(t, res, "/myaccount/company");
      assert.ok((await page.locator("main dl").count()) >= 1, "the company details are a <dl>");
      await typeInto(page, "#transfer_person_name", "山田商事");
      res = await submitWithEnter(page, "#transfer_person_name");
      await checkInvalid(t, res, "transfer_person_name", "全角カタカナで入力してください", "/myaccount/company kanji");
      await typeInto(page, "#user_last_name", "");
      res = await submitWithEnter(page, "#user_first_name");
      await checkInvalid(t, res, "user_last_name", "担当者の姓を入力してください", "/myaccount/company empty name");

      res = await page.goto(url("/myaccount/edit-password"));
      await check(t, res, "/myaccount/edit-password");
      await typeInto(page, "#current_password", DEMO_PASSWORD);
      await typeInto(page, "#password", "short");
      await typeInto(page, "#password_confirmation", "shorter");
      res = await submitWithEnter(page, "#password_confirmation");
      await checkInvalid(t, res, "password", "10文字以上", "/myaccount/edit-password weak");

      res = await page.goto(url("/termsofservice"));
      await check(t, res, "/termsofservice");
      assert.ok((await page.locator("h2").count()) >= 5, "the terms have their articles");

      await page.goto(url("/signin")); // signs out
      res = await page.goto(url("/myaccount/edit-email-complete"));
      await check(t, res, "/myaccount/edit-email-complete (anonymous)");
      assert.ok((await page.locator("main a[href='/signin']").count()) === 1);
    });
  });
}
