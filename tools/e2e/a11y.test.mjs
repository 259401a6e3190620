// Accessibility of every page (DESIGN.md §5): for each page of `bin/server -pages`, with
// JavaScript on and off, at 360px and 1280px: the expected status, html[lang=ja], a
// <title> naming the service, exactly one <h1>, and no axe-core violations (WCAG 2.2 AA) —
// axe runs once per document: with JavaScript on only where an island changes it.
// Also the header menus and the drawer opened, the sign-in page with validation errors,
// the landing page with its notice, and the 403 page a sole proprietor gets for collections.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  COMBOS,
  CORP,
  PC_MIN_WIDTH,
  SOLE,
  assertNoProblems,
  comboName,
  displayPath,
  expectedStatus,
  firstPage,
  launch,
  openHeaderMenus,
  pageProblems,
  pages,
  signIn,
  url,
} from "./lib.mjs";

const all = pages();
const publicPages = all.filter((p) => p.access === "public");
const signedInPages = all.filter((p) => p.access === "signed_in");
const collectionPages = all.filter((p) => p.access === "collections");
const TIMEOUT = { timeout: 60_000 };

for (const combo of COMBOS) {
  const name = comboName(combo);
  describe(`a11y (${name})`, () => {
    let context;
    let page;
    let axeSkipped = 0;
    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
    });
    after(async () => {
      await context?.close();
      if (combo.js) console.log(`a11y (${name}): ${axeSkipped} pages without an island were not run through axe again (the JS-off run at ${combo.width}px checks the same document)`);
    });

    /**
     * Loads a path and runs the checks every page passes. With JavaScript on, a page
     * without an island runs no script, so its document is the one the JS-off combination
     * at the same width checks with axe: only pages with an island are checked with axe
     * again. Status, lang, title and the one <h1> are checked in every combination.
     */
    async function check(t, path, status, label) {
      const res = await page.goto(url(path));
      const runAxe = !combo.js || (await page.locator("[data-island]").count()) > 0;
      if (!runAxe) axeSkipped++;
      // The add-card page frames the PSP's card fields (another origin): axe runs inside
      // the frame too, once the island has put it there and it has loaded.
      const frames = combo.js && (await page.locator("[data-island='card-entry']").count()) > 0;
      if (frames) {
        await page.locator("[data-island='card-entry'][data-island-mounted='true'] iframe").waitFor();
        await page.waitForLoadState("networkidle");
      }
      await assertNoProblems(t, page, await pageProblems(page, res, { status, runAxe, frames }), `${label} (${name})`);
    }

    describe("anonymous", () => {
      for (const p of publicPages) {
        const status = expectedStatus(p);
        it(`${displayPath(p.path)} (${p.title}) answers ${status} and passes axe`, TIMEOUT, (t) =>
          check(t, p.path, status, displayPath(p.path)),
        );
      }

      it("/signin submitted empty re-renders with 422, an エラー： title and an error summary", TIMEOUT, async (t) => {
        await page.goto(url("/signin"));
        const posted = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/signin"));
        await page.locator("form[action='/signin'] button[type=submit]").click();
        const res = await posted;
        await page.waitForLoadState("load");
        assert.equal(res.status(), 422, "an empty sign-in form answers 422");
        const title = await page.title();
        assert.ok(title.startsWith("エラー："), `title ${JSON.stringify(title)} starts with エラー：`);
        const summary = page.locator(".error-summary");
        assert.equal(await summary.count(), 1, "one error summary");
        assert.ok(
          (await summary.locator("a[href='#email_address']").count()) >= 1,
          "the error summary links to #email_address",
        );
        assert.equal(await page.getAttribute("#email_address", "aria-invalid"), "true", "#email_address has aria-invalid=true");
        await assertNoProblems(t, page, await pageProblems(page, res, { status: 422 }), `/signin with errors (${name})`);
      });
    });

    describe(`signed in as ${CORP}`, () => {
      let landing;
      before(async () => {
        landing = await signIn(page, CORP);
      });

      it("the landing page with the ログインしました notice passes axe", TIMEOUT, async (t) => {
        // The demo corporation has payments under screening (one sent back), so the
        // landing rules pick 審査中.
        assert.equal(new URL(page.url()).pathname, "/payments/review");
        if (combo.js) await page.locator(".snackbar[data-state='shown']").waitFor();
        await assertNoProblems(t, page, await pageProblems(page, landing), `landing with notice (${name})`);
      });

      for (const p of [...signedInPages, ...collectionPages]) {
        it(`${p.path} (${p.title}) answers 200 and passes axe`, TIMEOUT, (t) => check(t, p.path, expectedStatus(p), p.path));
      }

      if (combo.width >= PC_MIN_WIDTH) {
        it("the help and account menus opened pass axe", TIMEOUT, async (t) => {
          const res = await page.goto(url("/payments/create"));
          const opened = await openHeaderMenus(page, ".site-header details.menu");
          assert.ok(opened.some((c) => c.includes("menu--account")), `the account menu opened (opened: ${opened.join(", ")})`);
          assert.ok(opened.some((c) => c.includes("menu--help")), `the help menu opened (opened: ${opened.join(", ")})`);
          await assertNoProblems(t, page, await pageProblems(page, res), `menus open (${name})`);
        });
      } else {
        it("the navigation drawer opened passes axe", TIMEOUT, async (t) => {
          const res = await page.goto(url("/payments/create"));
          const opened = await openHeaderMenus(page, ".site-header details.drawer--nav");
          assert.equal(opened.length, 1, "the drawer opened");
          assert.ok(await page.locator(".drawer--nav button", { hasText: "ログアウト" }).isVisible(), "ログアウト is in the drawer");
          await assertNoProblems(t, page, await pageProblems(page, res), `drawer open (${name})`);
        });
        it("the help drawer opened has the help menu's items, closes the navigation drawer and passes axe", TIMEOUT, async (t) => {
          const res = await page.goto(url("/payments/create"));
          assert.equal(await page.locator(".site-header details.menu--help > summary").isVisible(), false, "no help menu below 1024px");
          await openHeaderMenus(page, ".site-header details.drawer--nav");
          const opened = await openHeaderMenus(page, ".site-header details.drawer--help");
          assert.equal(opened.length, 1, "the help drawer opened");
          assert.equal(await page.locator(".site-header details.drawer--nav").evaluate((d) => d.open), false, "opening the help drawer closed the navigation drawer");
          for (const item of ["操作マニュアル", "よくあるご質問", "お問い合わせ"]) {
            assert.ok(await page.locator(".drawer--help a", { hasText: item }).isVisible(), `${item} is in the help drawer`);
          }
          await assertNoProblems(t, page, await pageProblems(page, res), `help drawer open (${name})`);
        });
        it("the header menus opened at 360px pass axe", TIMEOUT, async (t) => {
          const res = await page.goto(url("/payments/create"));
          await openHeaderMenus(page, ".site-header details.menu");
          await assertNoProblems(t, page, await pageProblems(page, res), `menus open (${name})`);
        });
      }
    });

    describe(`signed in as ${SOLE}`, () => {
      before(async () => {
        await signIn(page, SOLE);
      });

      it("has no カード払い依頼 tab", async () => {
        await page.goto(url("/payments/create"));
        assert.equal(await page.locator(".site-header a[href^='/collections']").count(), 0, "no link to /collections in the header");
      });

      for (const p of collectionPages) {
        it(`${p.path} answers 403 with an accessible error page`, TIMEOUT, (t) => check(t, p.path, 403, `${p.path} as sole`));
      }

      it("/signin with the ログアウトしました notice after signing out passes axe", TIMEOUT, async (t) => {
        await page.goto(url("/payments/create"));
        const menu = combo.width >= PC_MIN_WIDTH ? ".site-header details.menu--account" : ".site-header details.drawer--nav";
        await page.locator(`${menu} > summary`).click();
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.request().resourceType() === "document" && r.url().endsWith("/signin")),
          page.locator(`${menu} button[type=submit]`).click(),
        ]);
        await page.waitForLoadState("load");
        assert.match(await page.locator("[data-island='snackbar']").innerText(), /ログアウトしました/);
        if (combo.js) await page.locator(".snackbar[data-state='shown']").waitFor();
        await assertNoProblems(t, page, await pageProblems(page, res), `/signin with notice (${name})`);
      });
    });
  });
}
