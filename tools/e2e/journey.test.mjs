// Keyboard-only journeys (DESIGN.md §5): sign in, see the notice, sign out from the account
// menu (the drawer below 1024px), and the sign-in redirects — with page.keyboard alone, no
// mouse, at 1280px and 360px, with JavaScript on and off.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  COMBOS,
  CORP,
  DEMO_PASSWORD,
  PC_MIN_WIDTH,
  comboName,
  describeFocus,
  firstPage,
  launch,
  screenshot,
  tabTo,
  url,
} from "./lib.mjs";

const TIMEOUT = { timeout: 60_000 };
// The demo corporation has payments under screening, one of them sent back
// (cmd/server/demo.go), so the landing rules (SPEC.md §2) take it to 審査中.
const CORP_LANDING = "/payments/review";

/** Path and query of the page's URL, e.g. "/signin?redirect=%2Ftoppage". */
const where = (page) => {
  const u = new URL(page.url());
  return u.pathname + u.search;
};

/** Waits for the navigation a key press starts and for the new page to load. */
async function pressAndWait(page, key, urlPredicate) {
  await Promise.all([page.waitForURL(urlPredicate, { waitUntil: "load" }), page.keyboard.press(key)]);
}

/** Text of the flash notice, server-rendered or from the island. */
async function noticeText(page) {
  const n = page.locator("[data-island='snackbar'] .snackbar");
  await n.first().waitFor({ state: "attached" });
  return (await n.first().textContent()).replace(/\s+/g, " ");
}

/** Fills the sign-in form by keyboard: Tab to the e-mail field, type, Tab, type, Enter. */
async function signInByKeyboard(page, email, landing) {
  await tabTo(page, "#email_address");
  await page.keyboard.type(email);
  await page.keyboard.press("Tab");
  assert.equal(await describeFocus(page).then((d) => d.startsWith("input#password")), true, "Tab from the e-mail field reaches #password");
  await page.keyboard.type(DEMO_PASSWORD);
  await pressAndWait(page, "Enter", (u) => u.pathname === landing);
}

for (const combo of COMBOS) {
  const name = comboName(combo);
  const pc = combo.width >= PC_MIN_WIDTH;
  describe(`keyboard journeys (${name})`, () => {
    let context;
    let page;
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
    });
    after(async () => {
      await context?.close();
    });
    /** A test that saves a screenshot of the page when it fails. */
    const test = (title, fn) =>
      it(title, TIMEOUT, async () => {
        try {
          await fn();
        } catch (err) {
          const shot = await screenshot(page, `journey ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; focus was on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        }
      });

    test("the skip link 本文へ移動 is the first Tab stop and moves focus to the main content", async () => {
      await page.goto(url("/signin"));
      await page.keyboard.press("Tab");
      const focus = await describeFocus(page);
      assert.ok(focus.startsWith("a") && focus.includes("本文へ移動"), `first Tab stop is the skip link, got ${focus}`);
      assert.ok(await page.locator("a.skip-link").isVisible(), "the focused skip link is visible");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.activeElement?.id === "main");
    });

    test("signs in, sees ログインしました, signs out from the " + (pc ? "account menu" : "drawer") + ", sees ログアウトしました", async () => {
      await page.goto(url("/signin"));
      await signInByKeyboard(page, CORP, CORP_LANDING);
      assert.equal(where(page), CORP_LANDING, "landing rules take a buyer with payments under screening to /payments/review");
      assert.match(await noticeText(page), /ログインしました/);

      // A signed-in page starts with the skip link too.
      await page.keyboard.press("Tab");
      assert.ok((await describeFocus(page)).includes("本文へ移動"), "the skip link is the first Tab stop on a signed-in page");

      const menu = pc ? ".site-header details.menu--account" : ".site-header details.drawer--nav";
      await tabTo(page, `${menu} > summary`);
      await page.keyboard.press("Enter");
      assert.equal(await page.locator(menu).evaluate((d) => d.open), true, `Enter on the summary opens ${menu}`);
      const steps = await tabTo(page, `${menu} button[type=submit]`, { max: 30 });
      assert.ok(steps > 0);
      assert.match(await describeFocus(page), /ログアウト/);
      await pressAndWait(page, "Enter", (u) => u.pathname === "/signin");
      assert.equal(where(page), "/signin");
      assert.match(await noticeText(page), /ログアウトしました/);
    });

    test("after signing out, /toppage redirects to /signin?redirect=%2Ftoppage", async () => {
      const res = await page.goto(url("/toppage"));
      assert.equal(res.status(), 200);
      assert.equal(where(page), "/signin?redirect=%2Ftoppage");
    });

    test("opens the menu with Space as well as Enter", async () => {
      await page.goto(url("/signin"));
      await signInByKeyboard(page, CORP, CORP_LANDING);
      const menu = pc ? ".site-header details.menu--account" : ".site-header details.drawer--nav";
      await tabTo(page, `${menu} > summary`);
      await page.keyboard.press("Space");
      assert.equal(await page.locator(menu).evaluate((d) => d.open), true, `Space on the summary opens ${menu}`);
      await page.keyboard.press("Space");
      assert.equal(await page.locator(menu).evaluate((d) => d.open), false, `Space again closes ${menu}`);
    });

    test("signing in from /signin?redirect=/myaccount returns to /myaccount", async () => {
      await page.goto(url("/signin?redirect=%2Fmyaccount"));
      await signInByKeyboard(page, CORP, "/myaccount");
      assert.equal(where(page), "/myaccount");
    });

    test("an open redirect (?redirect=//evil.example) lands on the landing page instead", async () => {
      await page.goto(url("/signin?redirect=%2F%2Fevil.example"));
      await signInByKeyboard(page, CORP, CORP_LANDING);
      assert.equal(new URL(page.url()).origin, new URL(url("/")).origin, "stays on the app's origin");
      assert.equal(where(page), CORP_LANDING);
    });
  });
}
