// A buyer's saved cards (お支払い方法, /myaccount/creditcards) in the browser (DESIGN.md §5,
// issue 10), with JavaScript on and off, at 360px and 1280px, everything by keyboard: add a
// card through the PSP's card fields, which the card-entry island frames (JavaScript on: the
// card is typed into the sandbox PSP's own page on its own origin, our page's script cannot
// reach that document, and our server gets only the setup's id) or through the PSP's hosted
// card page (JavaScript off); a 3-D Secure challenge passed with the passcode the challenge
// page shows, and failed (a card whose challenge always fails, three wrong codes, or
// 認証を中止); each decline's message on our add page (422, error summary); AMEX refused
// inside the fields before anything is sent, and by the hosted page; choose the default;
// delete (いいえ keeps the card, はい removes it). axe runs on the list (empty and with
// cards), the add page (fresh and in each error state, inside the frame too), the delete
// confirm page, and the sandbox PSP's hosted and challenge pages, which we ship too.
//
// Each combination signs up a buyer of its own through the JSON API (the code read from
// the development mailbox), so counts start at zero and the 5-card limit never bites.
//
// The run's TAP output and server log are scanned for card numbers afterwards (cmd/cardscan),
// so no test title or assertion message carries one: cards are named by their last 4 digits,
// and failure messages are masked.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { activate, andWait, assertNoProblems, axe, axeFrameNodes, BASE_URL, comboName, JOURNEY_COMBOS as COMBOS, createSoleProprietor, describeFocus, firstPage, formatViolations, launch, mainText, noticeText, pageProblems, pagePath as path, screenshot, submitFrom, tabTo, typeInto, url, watchErrors, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 120_000 };
const RUN = Date.now().toString(36).slice(-5);
const PASSWORD = "e2eCards2026pw";

function requirePSP() {
  const v = process.env.PSP_URL;
  if (!v) throw new Error("PSP_URL is not set. Run the browser tests with 'bash tools/e2e.sh', which starts the sandbox PSP beside the server.");
  return v.replace(/\/$/, "");
}
const PSP_URL = requirePSP();

// --- Test cards (README.md "Test cards") ----------------------------------------------------
// Typed as printed on the card (with spaces): the PSP's fields regroup them, the hosted page
// takes them with or without spaces.

const EXPIRY = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`;
const HOLDER = "TARO YAMADA";

const VISA_OK = { number: "4111 1111 1111 1111", last4: "1111", brand: "VISA" };
const VISA_3DS = { number: "4000 0000 0000 3220", last4: "3220", brand: "VISA" };
const VISA_3DS_FAILS = { number: "4000 0084 0000 1629", last4: "1629", brand: "VISA" };
const AMEX = { number: "3782 822463 10005", last4: "0005", brand: "AMEX" };
// Approved without a challenge, to fill the buyer up to the limit ("any other Luhn-valid
// JCB, VISA or Mastercard number is approved").
const MORE_OK = [
  { number: "3530 1113 3330 0000", last4: "0000", label: "JCB" },
  { number: "5555 5555 5555 4444", last4: "4444", label: "Mastercard" },
  { number: "4242 4242 4242 4242", last4: "4242", label: "VISA" },
  VISA_OK,
];
const MSG_DUPLICATE = "このカードは既に登録されています。登録済みのカードは「お支払い方法」の一覧からお選びいただけます";

// gateway/results.go's messages, as the buyer reads them.
const MSG = {
  G001: "カード会社の本人認証（3-Dセキュア）に失敗しました。もう一度お試しいただくか、別のカードをご利用ください。",
  G012: "カードのご利用可能額が不足しています。別のカードをご利用いただくか、カード会社にお問い合わせください。",
  G042: "このカードはご利用いただけません。カード会社にお問い合わせいただくか、別のカードをご利用ください。",
  G044: "セキュリティコードが正しくありません。カード裏面に記載の3桁の数字をご確認のうえ、もう一度入力してください。",
  G054: "カードの有効期限が切れています。有効期限をご確認いただくか、別のカードをご利用ください。",
  G055: "カードのご利用限度額を超えています。別のカードをご利用いただくか、カード会社にお問い合わせください。",
  G097: "カード会社との通信でエラーが発生しました。しばらく時間をおいてから、もう一度お試しください。",
};
const AMEX_REFUSAL = "American Express はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。";

const DECLINES = [
  { code: "G012", number: "4000 0000 0000 9995", last4: "9995" },
  { code: "G042", number: "4000 0000 0000 9979", last4: "9979" },
  { code: "G054", number: "4000 0000 0000 0069", last4: "0069" },
  { code: "G044", number: "4000 0000 0000 0127", last4: "0127" },
  { code: "G055", number: "5105 1051 0510 5100", last4: "5100" },
  { code: "G097", number: "4000 0000 0000 0119", last4: "0119" },
];

/**
 * What each combination covers beyond the common journeys: all six declines once (JS on,
 * 1280px), a pair in each other; one way of failing the challenge each; and, once, a card
 * saved twice and the 5-card limit (DESIGN.md §4).
 */
const PLAN = {
  "true-1280": { declines: ["G012", "G042", "G054", "G044", "G055", "G097"], challengeFail: "always-fails", limit: true },
  "true-360": { declines: ["G012", "G055"], challengeFail: "cancel" },
  "false-1280": { declines: ["G042", "G097"], challengeFail: "wrong-three-times" },
  "false-360": { declines: ["G054", "G044"], challengeFail: "always-fails" },
};

// --- Helpers ---------------------------------------------------------------------------------

const origin = (page) => new URL(page.url()).origin;

/** Hides anything shaped like a card number (a failure message goes to the scanned TAP file). */
const mask = (s) => String(s).replace(/\d(?:[ -]?\d){11,18}/g, "[card number masked]");

/** A fresh sole proprietor of this suite, through the JSON API. */
const createBuyer = (tag) => createSoleProprietor(`e2e-cards-${tag}`, PASSWORD);

// Our selectors.
const LIST = "/myaccount/creditcards";
const ADD = "/myaccount/creditcards/new";
const ISLAND = "[data-island='card-entry']";
const FRAME = `${ISLAND} iframe`;
const HOSTED_BUTTON = "form[action='/myaccount/creditcards/new/hosted'] button[type=submit]";

// --- The tests -------------------------------------------------------------------------------

for (const combo of COMBOS) {
  const name = comboName(combo);
  const { js } = combo;
  const plan = PLAN[`${js}-${combo.width}`];

  describe(`saved cards (${name})`, () => {
    let context;
    let page;
    let consoleErrors = [];
    /** Every request that carried a card to the PSP (its fields' post, or /v1/tokens). */
    let tokenRequests = [];
    /** Form posts to our add page: the names of the fields they carried. */
    let addPosts = [];

    before(async () => {
      const email = await createBuyer(`${js ? "js" : "nojs"}${combo.width}-${RUN}`);
      context = await launch(combo);
      page = await firstPage(context);
      consoleErrors = await watchErrors(context, page);
      page.on("request", (r) => {
        const u = new URL(r.url());
        if (u.pathname === "/v1/tokens" || (r.method() === "POST" && u.pathname.startsWith("/fields/"))) {
          tokenRequests.push(`${r.method()} ${u.origin}${u.pathname.replace(/\/fields\/.*/, "/fields/…")}`);
        }
        if (r.method() === "POST" && u.origin === BASE_URL && u.pathname === ADD) {
          addPosts.push([...new URLSearchParams(r.postData() ?? "").keys()]);
        }
      });

      // Sign in by keyboard as the new buyer.
      await page.goto(url("/signin"));
      await typeInto(page, "#email_address", email);
      await typeInto(page, "#password", PASSWORD);
      await submitFrom(page, "#password");
      assert.notEqual(path(page), "/signin", `the new buyer ${email} signs in`);
    });
    after(async () => {
      await context?.close();
    });

    const test = (title, fn) =>
      it(title, TIMEOUT, async (t) => {
        try {
          consoleErrors.length = 0;
          await fn(t);
          assert.deepEqual(consoleErrors, [], "no script errors or CSP violations");
        } catch (err) {
          const shot = await screenshot(page, `cards ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
          err.message = mask(err.message);
          if (err.actual !== undefined) err.actual = mask(err.actual);
          if (err.expected !== undefined) err.expected = mask(err.expected);
          throw err;
        }
      });

    /** Waits for the card-entry island and the PSP's fields in its frame, with JavaScript on. */
    async function islandReady() {
      if (js && (await page.locator(ISLAND).count()) > 0) {
        await page.waitForSelector(`${ISLAND}[data-island-mounted='true']`);
        await page.locator(FRAME).waitFor();
        // The frame's document is attached a moment after its element.
        for (let i = 0; i < 100 && !page.frames().some((f) => f.url().startsWith(`${PSP_URL}/fields/`)); i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        await fields().locator("#number").waitFor();
      }
    }

    /** The PSP's card fields: the frame the island hosts (another origin's document). */
    function fields() {
      const frame = page.frames().find((f) => f.url().startsWith(`${PSP_URL}/fields/`));
      if (!frame) throw new Error("the PSP's fields are not framed on the page");
      return frame;
    }

    /** Types into a field of the PSP's frame, by keyboard (as typeInto on our page). */
    async function typeInFrame(selector, text) {
      await fields().focus(selector);
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.press("Backspace");
      if (text) await page.keyboard.type(text);
    }

    /** The id of the element focused inside the PSP's frame ("" when none). */
    const focusedInFrame = () => fields().evaluate(() => (document.hasFocus() ? document.activeElement?.id ?? "" : ""));

    /**
     * The checks every page of ours passes (status, lang, title, one h1, axe). With
     * JavaScript the snackbar island fades a notice in: axe runs once it is fully shown.
     */
    async function check(t, res, label, status = 200, { inFrame = true } = {}) {
      await islandReady();
      if (js && (await page.locator("[data-island='snackbar'] .snackbar").count()) > 0) {
        await page.locator(".snackbar[data-state='shown']").waitFor();
        await page.waitForFunction(() => getComputedStyle(document.querySelector(".snackbar[data-state='shown']")).opacity === "1");
      }
      // axe inside the PSP's frame too, where there is one (and the caller has not
      // already checked that same fresh fields page).
      const frames = inFrame && js && (await page.locator(FRAME).count()) > 0;
      await assertNoProblems(t, page, await pageProblems(page, res, { status, frames }), `${label} (${name})`);
    }

    /**
     * The sandbox PSP's pages (its own origin, its own title): status, lang=ja, a title,
     * one h1, labelled fields, and no axe violations.
     */
    async function checkPSP(t, res, label, status = 200) {
      const problems = [];
      if (origin(page) !== PSP_URL) problems.push(`on ${origin(page)}, want the PSP's origin ${PSP_URL}`);
      if (res.status() !== status) problems.push(`status ${res.status()}, want ${status}`);
      const lang = await page.getAttribute("html", "lang");
      if (lang !== "ja") problems.push(`html[lang] is ${JSON.stringify(lang)}, want "ja"`);
      if (!(await page.title()).trim()) problems.push("<title> is empty");
      const h1 = await page.locator("h1").count();
      if (h1 !== 1) problems.push(`${h1} <h1> elements, want exactly 1`);
      const violations = await axe(page);
      if (violations.length) problems.push(`axe found ${violations.length} violation(s):\n${formatViolations(violations)}`);
      await assertNoProblems(t, page, { problems }, `PSP ${label} (${name})`);
    }

    /** Our add page refusing a card: 422, エラー： title, focus on the summary, the message at the card. */
    async function checkRefused(t, res, message, label) {
      await islandReady();
      assert.equal(res.status(), 422, `${label}: status`);
      assert.equal(origin(page), BASE_URL, `${label}: back on our page`);
      assert.ok((await page.title()).startsWith("エラー："), `${label}: title starts with エラー：`);
      assert.equal(await focusedId(page, "error-summary"), "error-summary", `${label}: focus on the error summary`);
      assert.equal(await page.locator(".error-summary a[href='#card']").innerText(), message, `${label}: the summary says why, linking to #card`);
      assert.equal((await page.locator("#card-error").innerText()).replace(/^エラー：/, "").trim(), message, `${label}: the message at #card`);
      assert.equal(await page.locator(".card-list__item").count(), 0, `${label}: not the list`);
      // The frame here is a fresh fields page, checked with axe on the fresh add page and
      // with an empty form: not again on every refusal (issue 27's run time).
      await check(t, res, label, 422, { inFrame: false });
      // The add form is there again, to try another card.
      if (js) assert.equal(await page.locator(FRAME).count(), 1, `${label}: the PSP's fields are there again`);
      else assert.equal(await page.locator(HOSTED_BUTTON).count(), 1, `${label}: カード情報を入力する is there again`);
    }

    /** Opens the add page from the list by keyboard. */
    async function openAdd(t, { checks = false } = {}) {
      let res = await page.goto(url(LIST));
      const add = page.locator(`main a[href='${ADD}']`).first();
      await add.focus();
      res = await andWait(page, () => page.keyboard.press("Enter"));
      assert.equal(path(page), ADD);
      await islandReady();
      if (checks) await check(t, res, `${ADD} (fresh)`);
      return res;
    }

    /**
     * From our add page, types `card` and sends it: in the island (JavaScript on), or on the
     * PSP's hosted page after カード情報を入力する (off). Returns the response of the
     * document it leads to: our page (list or refusal), or the PSP's challenge page.
     */
    async function enterCard(t, card, { checks = false, cvc = "123" } = {}) {
      if (js) {
        await islandReady();
        assert.equal(await page.locator(HOSTED_BUTTON).count(), 0, "the island replaced the hosted-page fallback");
        await typeInFrame("#number", card.number);
        await typeInFrame("#exp", EXPIRY);
        await typeInFrame("#cvc", cvc);
        await typeInFrame("#name", HOLDER);
        const tokens = tokenRequests.length;
        const posts = addPosts.length;
        const res = await andWait(page, async () => {
          await fields().focus("#card-submit");
          await page.keyboard.press("Enter");
        });
        assert.deepEqual(tokenRequests.slice(tokens), [`POST ${PSP_URL}/fields/…`], "the PSP's own page sent the card, on its origin");
        assert.deepEqual(addPosts.slice(posts), [["setup"]], "our server got one form post carrying only the setup's id");
        return res;
      }
      let res = await activate(page, HOSTED_BUTTON);
      assert.equal(origin(page), PSP_URL, "カード情報を入力する opens the PSP's hosted page");
      assert.match(path(page), /^\/hosted\/setup_/);
      if (checks) await checkPSP(t, res, "hosted card page");
      await typeInto(page, "#number", card.number);
      await typeInto(page, "#exp", EXPIRY);
      await typeInto(page, "#cvc", cvc);
      await typeInto(page, "#name", HOLDER);
      res = await activate(page, "main form button[type=submit]");
      return res;
    }

    /** On the PSP's challenge page: the card's last 4 digits and the passcode it shows. */
    async function onChallenge(t, res, card, { checks }) {
      assert.equal(origin(page), PSP_URL, "the challenge is on the PSP's origin");
      assert.match(path(page), /^\/3ds\//, "on the 3-D Secure challenge page");
      assert.match(await page.locator("h1").innerText(), /本人認証（3-Dセキュア）/);
      const text = await mainText(page);
      assert.ok(text.includes(`•••• ${card.last4}`), "the challenge names the card by its last 4 digits");
      assert.match(text, /カードの確認のみ（ご請求はありません）/);
      if (checks) await checkPSP(t, res, "3-D Secure challenge");
      const passcode = (await page.locator(".passcode strong").innerText()).trim();
      assert.match(passcode, /^\d{6}$/, "the page shows a 6-digit passcode");
      return passcode;
    }

    /** The saved cards as the list shows them: [{last4, isDefault, id}]. */
    async function listed() {
      const items = page.locator(".card-list__item");
      const out = [];
      for (let i = 0; i < (await items.count()); i++) {
        const it = items.nth(i);
        const title = await it.locator(".card-list__title").innerText();
        const href = await it.locator("a[href$='/delete']").getAttribute("href");
        out.push({
          last4: title.match(/(\d{4})\s*$/)?.[1],
          isDefault: (await it.locator(".status-badge", { hasText: "既定" }).count()) > 0,
          id: href.match(/\/myaccount\/creditcards\/(\d+)\/delete$/)?.[1],
        });
      }
      return out;
    }

    test("the empty list and the add page (fresh and with the form's own errors) pass axe", async (t) => {
      let res = await page.goto(url(LIST));
      await check(t, res, `${LIST} (empty)`);
      assert.equal((await page.locator("h1").innerText()).trim(), "お支払い方法");
      assert.match(await mainText(page), /登録済みのカードはまだありません/);
      assert.match(await mainText(page), /登録済み 0枚/);
      assert.equal(await page.locator(".card-list__item").count(), 0);

      // 最初のカードを追加する, by keyboard.
      await tabTo(page, `.empty-state a[href='${ADD}']`, { max: 60 });
      res = await andWait(page, () => page.keyboard.press("Enter"));
      assert.equal(path(page), ADD);
      await check(t, res, `${ADD} (fresh)`);
      assert.equal((await page.locator("h1").innerText()).trim(), "カードの追加");

      if (js) {
        // The island replaced the fallback with the PSP's fields, in a titled frame on the
        // PSP's origin. Our page has no card field, and its script cannot reach the frame's
        // document (the same-origin policy): nothing of ours can read what is typed there.
        await islandReady();
        assert.equal(await page.locator("main input[autocomplete^='cc-']").count(), 0, "our page has no card field");
        assert.ok((await page.getAttribute(FRAME, "title"))?.trim(), "the frame has a title");
        assert.equal(new URL(await page.getAttribute(FRAME, "src")).origin, PSP_URL, "the frame is the PSP's page");
        const reach = await page.evaluate((sel) => {
          const f = document.querySelector(sel);
          let doc = "reached";
          try {
            doc = f.contentWindow.document ? "reached" : "null";
          } catch (e) {
            doc = e.name;
          }
          return { contentDocument: f.contentDocument === null ? "null" : "reached", windowDocument: doc };
        }, FRAME);
        assert.deepEqual(reach, { contentDocument: "null", windowDocument: "SecurityError" }, "our script cannot reach the fields' document");
        const frame = fields();
        for (const id of ["number", "exp", "cvc", "name"]) {
          assert.equal(await frame.getAttribute(`#${id}`, "name"), null, `#${id} has no name`);
          assert.ok((await frame.locator(`label[for='${id}']`).innerText()).trim(), `#${id} is labelled`);
        }
        assert.equal(await frame.getAttribute("#number", "autocomplete"), "cc-number");
        assert.equal(await frame.getAttribute("#number", "inputmode"), "numeric");
        // Sent empty: the fields' own summary takes the focus, nothing goes anywhere.
        const tokens = tokenRequests.length;
        const posts = addPosts.length;
        await frame.focus("#card-submit");
        await page.keyboard.press("Enter");
        await frame.locator("#error-summary:not([hidden])").waitFor();
        assert.equal(await focusedInFrame(), "error-summary", "focus on the fields' summary");
        assert.equal(await frame.locator("#error-summary li").count(), 4, "every field is listed");
        assert.match(await frame.locator("#number-error").innerText(), /カード番号を入力してください/);
        assert.equal(await frame.getAttribute("#number", "aria-invalid"), "true");
        assert.equal(tokenRequests.length, tokens, "nothing was sent to the PSP");
        assert.equal(addPosts.length, posts, "nothing was posted to us");
        // A summary link takes the focus to its field, by keyboard.
        await frame.focus("#error-summary a[href='#exp']");
        await page.keyboard.press("Enter");
        assert.equal(await focusedInFrame(), "exp", "the summary link focuses the field");
        // axe on our page and inside the frame, in its error state; it does reach the frame.
        const inFrame = await axeFrameNodes(page);
        t.diagnostic(`axe checked ${inFrame} elements inside the PSP's frame`);
        assert.ok(inFrame > 10, `axe checks the frame's elements (${inFrame})`);
        await assertNoProblems(t, page, await pageProblems(page, res, { frames: true }), `${ADD} (fields, empty form) (${name})`);
      } else {
        // Without JavaScript: one button to the PSP's hosted page, which refuses an empty form.
        assert.match(await page.locator(HOSTED_BUTTON).innerText(), /カード情報を入力する/);
        res = await activate(page, HOSTED_BUTTON, "Space");
        assert.equal(origin(page), PSP_URL);
        await checkPSP(t, res, "hosted card page (fresh)");
        assert.equal(await page.getAttribute("#number", "autocomplete"), "cc-number");
        res = await activate(page, "main form button[type=submit]");
        await checkPSP(t, res, "hosted card page (sent empty)", 422);
        assert.match(await page.locator(".error-summary").innerText(), /入力内容に誤りがあります/);
        assert.equal(await page.getAttribute("#number", "aria-invalid"), "true");
        // キャンセル goes back to our add page, nothing saved.
        res = await activate(page, "main .actions a");
        assert.equal(origin(page), BASE_URL, "キャンセル returns to our site");
        assert.equal(path(page), ADD, "…on the add page");
        assert.equal(res.status(), 200);
      }
    });

    test("AMEX is refused before anything is sent, naming American Express", async (t) => {
      const opened = await openAdd(t);
      if (js) {
        const tokens = tokenRequests.length;
        const frame = fields();
        await typeInFrame("#number", AMEX.number);
        // The brand is shown as typed (announced politely).
        await frame.waitForFunction(() => /American Express/.test(document.querySelector("#number-brand")?.textContent ?? ""));
        await typeInFrame("#exp", EXPIRY);
        // Leaving the number committed it: the refusal is there before sending.
        assert.equal((await frame.locator("#number-error").innerText()).replace(/^エラー：/, "").trim(), AMEX_REFUSAL);
        await typeInFrame("#cvc", "123");
        await typeInFrame("#name", HOLDER);
        await frame.focus("#card-submit");
        await page.keyboard.press("Enter");
        await frame.locator("#error-summary:not([hidden])").waitFor();
        assert.equal(await focusedInFrame(), "error-summary", "focus on the fields' summary");
        assert.equal(await frame.locator("#error-summary a[href='#number']").innerText(), AMEX_REFUSAL);
        assert.equal(await frame.locator("#error-summary li").count(), 1, "only the brand is wrong");
        assert.equal(path(page), ADD, "still on the add page");
        assert.deepEqual(tokenRequests.slice(tokens), [], "nothing was sent to the PSP");
        await assertNoProblems(t, page, await pageProblems(page, opened, { frames: true }), `${ADD} (fields, AMEX refused) (${name})`);
        return;
      }
      const res = await enterCard(t, AMEX);
      assert.equal(origin(page), PSP_URL, "the hosted page keeps the buyer");
      await checkPSP(t, res, "hosted card page (AMEX refused)", 422);
      assert.equal(await page.locator(".error-summary a[href='#number']").innerText(), AMEX_REFUSAL);
      assert.equal(await page.locator("#number-error").innerText(), AMEX_REFUSAL);
      assert.equal(await page.inputValue("#number"), "", "the number is not shown again");
      assert.equal(await page.inputValue("#exp"), EXPIRY, "the expiry is kept");
    });

    test(`each decline's message on our add page (${plan.declines.join(", ")})`, async (t) => {
      let res = await openAdd(t);
      for (const code of plan.declines) {
        const card = DECLINES.find((d) => d.code === code);
        res = await enterCard(t, card);
        assert.equal(origin(page), BASE_URL, `${code} (•••• ${card.last4}): back on our site`);
        await checkRefused(t, res, MSG[code], `${code} (•••• ${card.last4}) refused`);
      }
      res = await page.goto(url(LIST));
      assert.equal(await page.locator(".card-list__item").count(), 0, "no declined card was saved");
    });

    test(`3-D Secure challenge failed (${plan.challengeFail}): the decline message on our page`, async (t) => {
      await openAdd(t);
      const card = plan.challengeFail === "always-fails" ? VISA_3DS_FAILS : VISA_3DS;
      let res = await enterCard(t, card);
      const passcode = await onChallenge(t, res, card, { checks: true });
      switch (plan.challengeFail) {
        case "always-fails":
          // Even the passcode shown fails: the issuer refuses this card's authentication.
          await typeInto(page, "#passcode", passcode);
          res = await submitFrom(page, "#passcode");
          break;
        case "cancel":
          res = await activate(page, "button[value=cancel]", "Space");
          break;
        case "wrong-three-times": {
          const wrong = passcode === "000000" ? "111111" : "000000";
          for (const left of [2, 1]) {
            await typeInto(page, "#passcode", wrong);
            res = await submitFrom(page, "#passcode");
            assert.equal(origin(page), PSP_URL, "a wrong code stays on the challenge");
            assert.match(await page.locator("#passcode-error").innerText(), new RegExp(`ワンタイムパスワードが正しくありません。あと${left}回入力できます。`));
            assert.equal(await page.getAttribute("#passcode", "aria-invalid"), "true");
            if (left === 2) await checkPSP(t, res, "3-D Secure challenge (wrong code)", 422);
          }
          await typeInto(page, "#passcode", wrong);
          res = await submitFrom(page, "#passcode");
          break;
        }
      }
      assert.equal(path(page), "/myaccount/creditcards/verify/return", "the PSP sends the buyer back to us");
      await checkRefused(t, res, MSG.G001, "challenge failed");
      res = await page.goto(url(LIST));
      assert.equal(await page.locator(".card-list__item").count(), 0, "the card was not saved");
    });

    test(`adds a card through the ${js ? "island" : "hosted page"} (frictionless); the list shows it`, async (t) => {
      await openAdd(t);
      const res = await enterCard(t, VISA_OK, { checks: true });
      assert.equal(origin(page), BASE_URL);
      assert.equal(path(page), LIST, "saved: on the list");
      assert.match(await noticeText(page), /カードを登録しました/);
      assert.match(await noticeText(page), /VISA（下4桁 1111）を登録しました。既定のカードとして使われます。/);
      await check(t, res, `${LIST} (one card, just added)`);
      const cards = await listed();
      assert.deepEqual(cards.map((c) => [c.last4, c.isDefault]), [["1111", true]], "the card is listed as the default");
      const item = await mainText(page);
      assert.ok(item.includes(`有効期限 ${EXPIRY}`), "the expiry is shown");
      assert.ok(item.includes(`名義 ${HOLDER}`), "the holder is shown");
      assert.match(item, /登録済み 1枚/);
      // Never more of the number than the last 4 digits.
      assert.doesNotMatch(await page.content(), /4111\s?1111/, "the page holds no more of the number");
    });

    test("3-D Secure challenge passed with the passcode shown: the card is saved", async (t) => {
      await openAdd(t);
      let res = await enterCard(t, VISA_3DS);
      const passcode = await onChallenge(t, res, VISA_3DS, { checks: false });
      await typeInto(page, "#passcode", passcode);
      res = await submitFrom(page, "#passcode");
      assert.equal(origin(page), BASE_URL, "back on our site");
      assert.equal(path(page), LIST, "saved: on the list");
      assert.match(await noticeText(page), /VISA（下4桁 3220）を登録しました。/);
      await check(t, res, `${LIST} (two cards)`);
      const cards = await listed();
      assert.deepEqual(cards.map((c) => [c.last4, c.isDefault]), [["1111", true], ["3220", false]], "both cards, the first still the default");
    });

    test("chooses the default card by keyboard", async (t) => {
      let res = await page.goto(url(LIST));
      const [, second] = await listed();
      res = await activate(page, `form[action='/myaccount/creditcards/${second.id}/default'] button[type=submit]`, "Space");
      assert.equal(path(page), LIST);
      assert.match(await noticeText(page), /既定のカードを変更しました/);
      assert.match(await noticeText(page), /VISA（下4桁 3220）を既定のカードにしました。/);
      await check(t, res, `${LIST} (default changed)`);
      const cards = await listed();
      assert.deepEqual(cards.map((c) => [c.last4, c.isDefault]), [["3220", true], ["1111", false]], "the chosen card is the default, listed first");
      assert.equal(await page.locator(`form[action='/myaccount/creditcards/${second.id}/default']`).count(), 0, "the default has no 既定のカードにする button");
    });

    test("deletes a card: いいえ keeps it, はい removes it", async (t) => {
      let res = await page.goto(url(LIST));
      const target = (await listed()).find((c) => c.last4 === "1111");
      const deleteHref = `/myaccount/creditcards/${target.id}/delete`;
      await tabTo(page, `a[href='${deleteHref}']`, { max: 80 });
      // Its name, as a screen reader reads it, names the card.
      const linkName = await page.evaluate(() => document.activeElement.textContent.replace(/\s+/g, " ").trim());
      assert.equal(linkName, "削除（VISA 下4桁 1111）", "the delete link names its card");
      res = await andWait(page, () => page.keyboard.press("Enter"));
      assert.equal(path(page), deleteHref);
      assert.match(await page.locator("h1").innerText(), /カードを削除しますか？/);
      assert.match(await mainText(page), /下4桁\s*1111/, "the page names the card");
      await check(t, res, `${deleteHref} (confirm)`);

      // いいえ goes back to the list, nothing deleted.
      res = await activate(page, `form[action='${deleteHref}'] a`);
      assert.equal(path(page), LIST, "いいえ goes back to the list");
      assert.equal((await listed()).length, 2, "nothing deleted");

      // はい deletes.
      await page.goto(url(deleteHref));
      const yes = `form[action='${deleteHref}'] button[type=submit]`;
      assert.match(await page.locator(yes).innerText(), /はい/);
      res = await activate(page, yes, "Space");
      assert.equal(path(page), LIST);
      assert.match(await noticeText(page), /カードを削除しました/);
      await check(t, res, `${LIST} (one card left)`);
      assert.deepEqual((await listed()).map((c) => [c.last4, c.isDefault]), [["3220", true]], "the other card remains, the default");
      res = await page.goto(url(deleteHref));
      assert.equal(res.status(), 404, "the deleted card's confirm page is gone");

      // The default card's confirm page says what becomes of the default.
      await page.goto(url(LIST));
      const [left] = await listed();
      res = await page.goto(url(`/myaccount/creditcards/${left.id}/delete`));
      assert.match(await mainText(page), /このカードは既定のカードです。/);
      await check(t, res, "/myaccount/creditcards/:id/delete (the default)");
    });

    if (plan.limit) {
      test("a card saved twice is refused; at 5 cards the list and the add page say so", async (t) => {
        await openAdd(t);
        let res = await enterCard(t, VISA_3DS);
        assert.equal(origin(page), BASE_URL, "no challenge for a card already saved");
        await checkRefused(t, res, MSG_DUPLICATE, "a card already saved");

        for (const card of MORE_OK) {
          await openAdd(t);
          res = await enterCard(t, card);
          assert.equal(path(page), LIST, `•••• ${card.last4} saved`);
        }
        assert.equal((await listed()).length, 5);
        await check(t, res, `${LIST} (5 cards, the limit)`);
        assert.match(await mainText(page), /登録できるカードは5枚までです。新しいカードを追加するには、使わなくなったカードを削除してください。/);
        assert.equal(await page.locator(`main a[href='${ADD}']`).count(), 0, "no カードを追加 at the limit");

        res = await page.goto(url(ADD));
        await check(t, res, `${ADD} (at the limit)`);
        assert.match(await page.locator("main [role=status]").innerText(), /登録できるカードは5枚までです。/);
        assert.equal(await page.locator(ISLAND).count(), 0, "no card form at the limit");
        assert.equal(await page.locator(HOSTED_BUTTON).count(), 0, "no カード情報を入力する at the limit");
        // Its link back to お支払い方法, by keyboard.
        res = await activate(page, `main [role=status] a[href='${LIST}']`);
        assert.equal(path(page), LIST);
      });
    }
  });
}
