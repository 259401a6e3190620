// The terms of service (issue 31), in the two journey combinations (JavaScript on at
// 1280px, off at 360px): the sign-up form's 利用規約 link opens the full text, the same
// text the signed-in page shows; a user who accepted only the previous version is sent to
// /termsofservice from any page, accepts by keyboard and returns to where they were, and
// /myaccount then says which version and when. Every public page (/terms, /privacy,
// /privacy/personal-information, /supplier-service among them) passes axe in all four
// combinations in a11y.test.mjs, which iterates the app's pages; the accept form, which
// only a user on an old version sees, is checked with axe here.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";

import {
  JOURNEY_COMBOS,
  ROOT,
  activate,
  assertNoProblems,
  comboName,
  createSoleProprietor,
  firstPage,
  launch,
  mainText,
  noticeText,
  pagePath,
  pageProblems,
  signIn,
  url,
} from "./lib.mjs";

const TIMEOUT = { timeout: 90_000 };
const PASSWORD = "e2eTerms2026pw";

/** Makes email a user who accepted only version of the terms (development flag). */
function setTermsVersion(email, version) {
  const r = spawnSync(path.join(ROOT, "bin/server"), ["-terms-version", `${email}:${version}`], {
    env: { ...process.env, DATABASE_NAME: process.env.E2E_DB_NAME || "cardpay_e2e" },
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `bin/server -terms-version: ${r.stderr}`);
}

/** Checks that page shows the full terms: version and date, every article, the history. */
async function assertFullTerms(page, where) {
  const meta = await page.locator(".terms__meta").innerText();
  assert.match(meta, /^第\d+版（\d{4}年\d{1,2}月\d{1,2}日施行）$/, `${where}: the version and its date`);
  const headings = await page.locator(".terms__article h2").allInnerTexts();
  assert.ok(headings.length >= 20, `${where}: every article (${headings.length})`);
  headings.forEach((h, i) => assert.ok(h.startsWith(`第${i + 1}条（`), `${where}: article ${i + 1} is ${h}`));
  assert.ok(headings.some((h) => h.includes("禁止事項")), `${where}: the prohibited uses`);
  assert.ok(headings.at(-1).includes("準拠法"), `${where}: ends with the governing law`);
  assert.equal(await page.locator("#terms-history").innerText(), "改定履歴");
  assert.doesNotMatch(await mainText(page), /ログイン後の「利用規約」画面でご確認/, `${where}: the full text, not a pointer to it`);
  return { meta, headings };
}

for (const combo of JOURNEY_COMBOS) {
  const name = comboName(combo);
  describe(`terms (${name})`, () => {
    let context;
    let page;
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
    });
    after(async () => {
      await context?.close();
    });

    let publicTerms;
    it("the sign-up form's 利用規約 link opens the full terms", TIMEOUT, async () => {
      await page.goto(url("/signup"));
      const link = page.locator("#consent-links a", { hasText: "利用規約" });
      assert.equal(await link.getAttribute("href"), "/terms");
      // The link opens a new tab (the form keeps what was typed): follow it by keyboard.
      const [tab] = await Promise.all([
        context.waitForEvent("page"),
        (async () => {
          await link.focus();
          await page.keyboard.press("Enter");
        })(),
      ]);
      await tab.waitForLoadState("load");
      assert.equal(pagePath(tab), "/terms");
      publicTerms = await assertFullTerms(tab, "/terms from the sign-up form");
      await tab.close();
    });

    it("a user on the previous version accepts the new one by keyboard and returns", TIMEOUT, async (t) => {
      // A password of our own: the random demo password need not satisfy the password rule
      // (it has no digit now and then), and a new account's must.
      const email = await createSoleProprietor(`terms-${combo.width}`, PASSWORD);
      setTermsVersion(email, 1);

      const landing = await signIn(page, email, { redirect: "/myaccount/company", password: PASSWORD });
      assert.equal(pagePath(page), "/termsofservice", "signed in, the user is sent to the terms first");
      assert.equal(new URL(page.url()).searchParams.get("redirect"), "/myaccount/company");
      assert.match(await page.locator(".account-callout").innerText(), /利用規約が改定されました/);
      const signed = await assertFullTerms(page, "/termsofservice");
      if (publicTerms) {
        assert.equal(signed.meta, publicTerms.meta, "the same version on both pages");
        assert.deepEqual(signed.headings, publicTerms.headings, "the same articles on both pages");
      }
      await assertNoProblems(t, page, await pageProblems(page, landing), `/termsofservice with the accept form (${name})`);

      // Every other page sends the user back here until they accept.
      await page.goto(url("/payments/create"));
      assert.equal(pagePath(page), "/termsofservice");
      await page.goto(url("/termsofservice?redirect=%2Fmyaccount%2Fcompany"));

      const res = await activate(page, "form[action='/termsofservice'] button[type=submit]");
      assert.equal(res.status(), 200);
      assert.equal(pagePath(page), "/myaccount/company", "accepting returns to the page the user wanted");
      assert.match(await noticeText(page), /利用規約に同意しました/);

      await page.goto(url("/myaccount"));
      assert.match(await mainText(page), /第\d+版に同意済み（\d{4}年\d{1,2}月\d{1,2}日）/, "/myaccount says which version and when");
      await page.goto(url("/payments/create"));
      assert.notEqual(pagePath(page), "/termsofservice", "no longer asked");
    });
  });
}
