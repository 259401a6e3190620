// Uploading an invoice (請求書のアップロード, /payments/create, issue 11) in the browser, with
// JavaScript on and off, at 360px and 1280px, by keyboard, signed in as the demo corporation:
//   - JavaScript off: the plain form. A wrong file (a text file named .pdf, an empty file)
//     comes back with 422, the error summary focused and the message next to the field
//     (aria-invalid, aria-describedby); a PDF and a PNG land on their file's page, which
//     shows 読み取り中… with the link 「最新の状態に更新する」 until the reading is done, and
//     the first page's preview picture.
//   - JavaScript on: the invoice-upload island. The chooser is reached with Tab, the file
//     set, アップロードする pressed with Enter; the upload is held (page.route) so that the
//     <progress> bar can be seen, then the poll of the reading is held so that 読み取り中…
//     and the server's picture of the PDF's first page can be seen; then on to the file's
//     page. A file over 10 MB is refused before anything is sent and the server's refusal
//     of a wrong file is shown at the field, both as alerts; a network failure (the upload
//     aborted) offers 再試行, which sends the file again.
// axe runs on every state: the form fresh and refused, the island uploading, reading and
// refused, the file's page reading and done.
//
// The test files are made here: a one-page text PDF written by hand (Helvetica, ASCII:
// pdftotext reads it), a PNG of a Japanese invoice drawn on a canvas in Chromium (read by
// tesseract, slow enough that its page is seen while reading), and buffers for the refusals.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { andWait, assertNoProblems, axe, comboName, JOURNEY_COMBOS as COMBOS, CORP, describeFocus, firstPage, formatViolations, launch, pageProblems, pagePath as path, screenshot, signIn, tabTo, textPDF, url, watchErrors, focusedId } from "./lib.mjs";

const TIMEOUT = { timeout: 240_000 };

const CREATE = "/payments/create";
const FILE_PAGE = /^\/payments\/create\/files\/(\d+)$/;
const ISLAND = "[data-island='invoice-upload']";
const INPUT = "#invoice_file";
// Without JavaScript: the form's 送信; with it: the island's アップロードする / 再試行.
const FORM_SUBMIT = `main form[action='${CREATE}'] button[type=submit]`;
const ISLAND_BUTTON = `${ISLAND} .form-actions button`;

// pay.CheckInvoiceFile's messages and the island's (islands/invoice-upload), as the buyer reads them.
const MSG = {
  empty: "ファイルが空です。請求書のファイルを選択してください。",
  tooLarge: "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。",
  // A .pdf whose bytes are of no accepted type (a renamed text file).
  wrongType: "JPEG、PNG、PDF のいずれかの形式のファイルを選択してください。",
  network: "通信できませんでした。接続を確認して、再試行してください。",
};
const READING = "読み取り中…";
const DONE = "読み取りが終わりました";
const REFRESH = "最新の状態に更新する";

// --- Test files ------------------------------------------------------------------------------

const PDF = {
  name: "請求書.pdf",
  mimeType: "application/pdf",
  buffer: textPDF([
    "INVOICE",
    "Sample Trading Co., Ltd.",
    "Registration No. T1234567890123",
    "Invoice date 2026/01/05",
    "Due date 2026/02/27",
    "Total JPY 125,400",
  ]),
};
const NOT_A_PDF = { name: "memo.pdf", mimeType: "application/pdf", buffer: Buffer.from("これは請求書ではありません。\n", "utf8") };
const EMPTY = { name: "empty.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(0) };
const OVERSIZE = (() => {
  const buffer = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
  buffer.write("%PDF-1.4\n");
  return { name: "big.pdf", mimeType: "application/pdf", buffer };
})();

let pngPromise;
/** A PNG of a Japanese invoice with a red seal, drawn once on a canvas in Chromium. */
function invoicePNG() {
  pngPromise ??= (async () => {
    const context = await launch({ js: true, width: 800 });
    try {
      const page = await firstPage(context);
      const data = await page.evaluate(() => {
        const c = document.createElement("canvas");
        c.width = 1240;
        c.height = 1754;
        const g = c.getContext("2d");
        g.fillStyle = "#fff";
        g.fillRect(0, 0, c.width, c.height);
        g.fillStyle = "#000";
        let y = 180;
        for (const [text, size] of [
          ["請求書", 64],
          ["株式会社ひかり商事 御中", 34],
          ["発行日 2026年1月5日", 30],
          ["株式会社サンプル製作所", 34],
          ["登録番号 T1234567890123", 30],
          ["ご請求金額 ¥125,400", 40],
          ["お支払期限 2026年2月27日", 30],
          ["振込先 みずほ銀行 東京営業部 普通 1234567", 30],
        ]) {
          g.font = `${size}px "Noto Sans CJK JP", "IPAexGothic", sans-serif`;
          g.fillText(text, 120, y);
          y += size * 2.2;
        }
        g.strokeStyle = "#c8201e";
        g.lineWidth = 8;
        g.strokeRect(940, 520, 150, 150);
        return c.toDataURL("image/png");
      });
      return { name: "請求書.png", mimeType: "image/png", buffer: Buffer.from(data.split(",")[1], "base64") };
    } finally {
      await context.close();
    }
  })();
  return pngPromise;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn (from Node: timers do not run in a page without JavaScript) until it is true. */
async function until(fn, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(100);
  }
}

// --- The tests -------------------------------------------------------------------------------

for (const combo of COMBOS) {
  const name = comboName(combo);
  const { js } = combo;

  describe(`invoice upload (${name})`, () => {
    let context;
    let page;
    // Script errors and CSP violations (reported as console errors); a 4xx answer is
    // logged by Chromium as a failed load, which a 422 or an aborted upload is meant to be.
    let consoleErrors = [];

    before(async () => {
      context = await launch(combo);
      page = await firstPage(context);
      consoleErrors = await watchErrors(context, page);
      await signIn(page, CORP);
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
          const shot = await screenshot(page, `upload ${name} ${title}`);
          if (shot) err.message += `\n(screenshot: ${shot}; page ${page.url()}; focus on ${await describeFocus(page).catch(() => "?")})`;
          throw err;
        } finally {
          await page.unrouteAll({ behavior: "ignoreErrors" });
        }
      });

    async function islandReady() {
      if (js) await page.waitForSelector(`${ISLAND}[data-island-mounted='true']`);
    }

    /** The checks every page passes (status, lang, title, one h1, axe). */
    async function check(t, res, label, status = 200) {
      await assertNoProblems(t, page, await pageProblems(page, res, { status }), `${label} (${name})`);
    }

    /** axe alone, for a state the island reached without a new document. */
    async function checkAxe(label) {
      const violations = await axe(page);
      if (violations.length) {
        const shot = await screenshot(page, `upload ${name} ${label}`);
        assert.fail(`${label} (${name}): axe found ${violations.length} violation(s):\n${formatViolations(violations)}\n(screenshot: ${shot})`);
      }
    }

    /** The upload page, the island mounted with JavaScript, checked. */
    async function openCreate(t, label) {
      const res = await page.goto(url(CREATE));
      assert.equal(res.status(), 200);
      await islandReady();
      if (label) await check(t, res, label);
      return res;
    }

    /** Tab to the chooser (keyboard), and give it a file (the OS dialog is not the page's). */
    async function chooseFile(file) {
      await page.evaluate(() => document.activeElement?.blur());
      await tabTo(page, INPUT, { max: 80 });
      await page.setInputFiles(INPUT, file);
    }

    /** The field's refusal: its message, aria-invalid, and aria-describedby naming it. */
    async function assertFieldError(message, label) {
      const err = page.locator(`${INPUT}-error`);
      await err.waitFor({ state: "visible" });
      assert.match((await err.innerText()).replace(/\s+/g, ""), new RegExp(message.replace(/\s+/g, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), `${label}: the message at the field`);
      assert.equal(await page.getAttribute(INPUT, "aria-invalid"), "true", `${label}: aria-invalid`);
      const describedBy = (await page.getAttribute(INPUT, "aria-describedby")) ?? "";
      assert.ok(describedBy.split(/\s+/).includes("invoice_file-error"), `${label}: aria-describedby names the message (${describedBy})`);
    }

    /**
     * The file's page: reading (読み取り中… and the refresh link) or done, its preview
     * picture with its box and Japanese alternative text, loaded (naturalWidth > 0) from
     * a PNG answer of the server. Returns whether it was reading.
     */
    async function checkFilePage(t, res, label, { alt }) {
      assert.match(path(page), FILE_PAGE, `${label}: on the file's page`);
      const reading = (await page.locator("main .callout[role=status]", { hasText: READING }).count()) > 0;
      if (reading) {
        assert.equal(await page.locator("main a", { hasText: REFRESH }).count(), 1, `${label}: the link ${REFRESH}`);
        assert.equal(await page.locator("main progress#ocr-progress").count(), 1, `${label}: the reading indicator`);
      } else {
        assert.equal((await page.locator("main p[role=status]").innerText()).trim(), DONE, `${label}: read`);
      }
      const img = page.locator("main img.file-preview__image");
      assert.equal(await img.count(), 1, `${label}: one preview picture`);
      assert.equal(await img.getAttribute("alt"), alt, `${label}: its alternative text`);
      assert.equal(await img.getAttribute("width"), "424");
      assert.equal(await img.getAttribute("height"), "600");
      // Generous waits: drawing shares the machine with the OCR job (tesseract) and the tests.
      await until(() => img.evaluate((el) => el.complete && el.naturalWidth > 0), `${label}: the preview picture to load`, 60_000);
      const answer = await page.request.get(url(await img.getAttribute("src")), { timeout: 60_000 });
      assert.equal(answer.status(), 200, `${label}: the preview is drawn`);
      assert.equal(answer.headers()["content-type"], "image/png");
      await check(t, res, `${label} ${reading ? "reading" : "done"}`);
      return reading;
    }

    /** Follows 「最新の状態に更新する」 by keyboard until the reading is over; checks that page. */
    async function readUntilDone(t, res, label, opts) {
      const deadline = Date.now() + 150_000;
      while ((await page.locator("main .callout[role=status]", { hasText: READING }).count()) > 0) {
        assert.ok(Date.now() < deadline, `${label}: the reading ends within 150 s`);
        await sleep(1000);
        const link = page.locator("main a", { hasText: REFRESH });
        await link.focus();
        res = await andWait(page, () => page.keyboard.press("Enter"));
      }
      const reading = await checkFilePage(t, res, label, opts);
      assert.equal(reading, false);
    }

    if (!js) {
      test("the plain form refuses a wrong file next to the field, by keyboard", async (t) => {
        await openCreate(t, `${CREATE} (form)`);
        assert.equal(await page.locator(`main form[action='${CREATE}'][enctype='multipart/form-data'] ${INPUT}[type=file]`).count(), 1, "a plain file input that posts the form");
        const [file, message] = combo.width >= 1024 ? [NOT_A_PDF, MSG.wrongType] : [EMPTY, MSG.empty];
        await chooseFile(file);
        await tabTo(page, FORM_SUBMIT);
        const res = await andWait(page, () => page.keyboard.press("Enter"));
        assert.equal(res.status(), 422);
        assert.equal(path(page), CREATE);
        assert.ok((await page.title()).startsWith("エラー："), "the title starts with エラー：");
        assert.equal(await focusedId(page, "error-summary"), "error-summary", "focus on the error summary");
        assert.equal(await page.locator(`.error-summary a[href='${INPUT}']`).count(), 1, "the summary links to the field");
        await assertFieldError(message, "refused");
        await check(t, res, `${CREATE} refused`, 422);
      });

      test("a PDF sent with the plain form lands on its page: reading, then done, with the first page's preview", async (t) => {
        await openCreate(t);
        await chooseFile(PDF);
        await tabTo(page, FORM_SUBMIT);
        const res = await andWait(page, () => page.keyboard.press("Enter"));
        assert.equal(res.status(), 200);
        const opts = { alt: "請求書の1ページ目のプレビュー" };
        // pdftotext reads a text PDF in a moment: the page may already say it is done.
        await checkFilePage(t, res, "the PDF's page", opts);
        await readUntilDone(t, res, "the PDF's page", opts);
        assert.match(await page.locator("main").innerText(), /請求書\.pdf/);
      });

      test("a PNG lands on its page, read while the buyer waits, with the image's preview", async (t) => {
        const png = await invoicePNG();
        await openCreate(t);
        await chooseFile(png);
        await tabTo(page, FORM_SUBMIT);
        const res = await andWait(page, () => page.keyboard.press("Enter"));
        assert.equal(res.status(), 200);
        const opts = { alt: "請求書のプレビュー" };
        const reading = await checkFilePage(t, res, "the PNG's page", opts);
        assert.ok(reading, "tesseract takes seconds: the page is seen while reading");
        await readUntilDone(t, res, "the PNG's page", opts);
      });
    } else {
      test("a file over 10 MB is refused before anything is sent, as an alert", async (t) => {
        await openCreate(t, `${CREATE} (island)`);
        const sent = [];
        const onRequest = (r) => r.url().includes("/api/v1/invoices/files") && sent.push(r.url());
        page.on("request", onRequest);
        t.after(() => page.off("request", onRequest));
        // An image first: it is previewed at once, from the browser.
        await chooseFile(await invoicePNG());
        const own = page.locator(`${ISLAND} img.invoice-upload__image`);
        await own.waitFor();
        assert.match(await own.getAttribute("src"), /^blob:/, "an image is previewed through an object URL");
        // Over 10 MB crosses the DevTools protocol into the browser: on a loaded 2-core
        // machine that took longer than the default 15 s once.
        await page.setInputFiles(INPUT, OVERSIZE, { timeout: 60_000 });
        await page.locator(`${INPUT}-error[role=alert]`).waitFor();
        await assertFieldError(MSG.tooLarge, "over 10 MB");
        assert.equal(await page.locator(`${ISLAND} figure`).count(), 0, "the refused file is not kept");
        await checkAxe("island refused (over 10 MB)");
        // アップロードする with nothing chosen says so at the field, and keeps the focus there.
        await tabTo(page, ISLAND_BUTTON);
        await page.keyboard.press("Enter");
        await assertFieldError("請求書のファイルを選択してください。", "nothing chosen");
        assert.deepEqual(sent, [], "nothing was sent");
      });

      test("the server's refusal of a wrong file is announced at the field, and the focus returns to it", async (t) => {
        await openCreate(t);
        await chooseFile(NOT_A_PDF);
        await tabTo(page, ISLAND_BUTTON);
        assert.equal((await page.locator(ISLAND_BUTTON).innerText()).trim(), "アップロードする");
        const answered = page.waitForResponse((r) => r.url().endsWith("/api/v1/invoices/files/upload"));
        await page.keyboard.press("Enter");
        assert.equal((await answered).status(), 422);
        await page.locator(`${INPUT}-error[role=alert]`).waitFor();
        await assertFieldError(MSG.wrongType, "refused by the server");
        await until(() => page.evaluate(() => document.activeElement?.id === "invoice_file"), "the focus back on the chooser");
        await checkAxe("island refused by the server");
      });

      test("upload by keyboard: the progress bar, then reading with the first page's preview, then the file's page", async (t) => {
        await openCreate(t);
        await chooseFile(PDF);
        const figure = page.locator(`${ISLAND} figure.invoice-upload__preview`);
        assert.match(await figure.innerText(), /請求書\.pdf/, "the chosen PDF by its name");
        // Hold the upload, then the reading's poll, until each state is checked.
        let releaseUpload;
        const uploadHeld = new Promise((r) => (releaseUpload = r));
        await page.route("**/api/v1/invoices/files/upload", async (route) => {
          await uploadHeld;
          await route.continue();
        });
        let releasePoll;
        const pollHeld = new Promise((r) => (releasePoll = r));
        await page.route(/\/api\/v1\/invoices\/files\/\d+$/, async (route) => {
          await pollHeld;
          await route.continue();
        });

        await tabTo(page, ISLAND_BUTTON);
        await page.keyboard.press("Enter");
        const bar = page.locator(`${ISLAND} .invoice-upload__progress progress[max='100']`);
        await bar.waitFor({ state: "visible" });
        const box = await bar.boundingBox();
        assert.ok(box && box.width > 200, `the upload bar spans the form (${box?.width}px)`);
        assert.match(await page.locator(`${ISLAND} .invoice-upload__progress label`).innerText(), /アップロード中 \d+%/);
        assert.match(await page.locator(`${ISLAND} [role=status][aria-live=polite]`).innerText(), /アップロード中 0%/, "announced");
        assert.equal((await page.locator(ISLAND_BUTTON).innerText()).trim(), "中止", "中止 while uploading");
        assert.equal(await page.getAttribute(INPUT, "disabled"), "", "the chooser waits");
        await checkAxe("island uploading");

        releaseUpload();
        const reading = page.locator(`${ISLAND} .invoice-upload__progress progress:not([value])`);
        await reading.waitFor({ state: "visible" });
        assert.match(await page.locator(`${ISLAND} .invoice-upload__progress`).innerText(), new RegExp(READING));
        const preview = page.locator(`${ISLAND} img.invoice-upload__image--page`);
        await preview.waitFor();
        assert.match(await preview.getAttribute("src"), /^\/payments\/create\/files\/\d+\/preview$/);
        assert.equal(await preview.getAttribute("alt"), "請求書.pdf の1ページ目のプレビュー");
        await until(() => preview.evaluate((el) => el.complete && el.naturalWidth > 0), "the first page's preview to load", 60_000);
        await checkAxe("island reading");

        const res = await andWait(page, async () => releasePoll());
        assert.match(path(page), FILE_PAGE, "on to the file's page");
        await readUntilDone(t, res, "the PDF's page", { alt: "請求書の1ページ目のプレビュー" });
      });

      test("a network failure offers 再試行, which sends the file again", async (t) => {
        await openCreate(t);
        await chooseFile(PDF);
        let attempts = 0;
        await page.route("**/api/v1/invoices/files/upload", async (route) => {
          attempts++;
          if (attempts === 1) await route.abort("failed");
          else await route.continue();
        });
        await tabTo(page, ISLAND_BUTTON);
        await page.keyboard.press("Enter");
        const alert = page.locator(`${ISLAND} .callout--error[role=alert]`);
        await alert.waitFor();
        assert.equal((await alert.innerText()).trim(), MSG.network);
        const retry = page.locator(ISLAND_BUTTON);
        assert.equal((await retry.innerText()).trim(), "再試行");
        await checkAxe("island after a network failure");

        await retry.focus();
        const res = await andWait(page, () => page.keyboard.press("Enter"));
        assert.equal(attempts, 2, "the file was sent again");
        assert.match(path(page), FILE_PAGE, "on to the file's page");
        await readUntilDone(t, res, "the PDF's page after 再試行", { alt: "請求書の1ページ目のプレビュー" });
      });

      test("中止 stops the upload, and the page's snackbar says so (an island raises it, SPEC.md §2)", async (t) => {
        await openCreate(t);
        // The page had no notice from the server: its snackbar waits, empty, for the islands'.
        const snackbar = page.locator("[data-island='snackbar']");
        await page.locator("[data-island='snackbar'][data-island-mounted='true']").waitFor({ state: "attached" });
        assert.equal(await snackbar.locator(".snackbar").count(), 0, "no notice yet");
        await chooseFile(PDF);
        await page.route("**/api/v1/invoices/files/upload", () => {}); // held until 中止
        await tabTo(page, ISLAND_BUTTON);
        await page.keyboard.press("Enter");
        await page.locator(`${ISLAND} .invoice-upload__progress progress[max='100']`).waitFor({ state: "visible" });
        assert.equal((await page.locator(ISLAND_BUTTON).innerText()).trim(), "中止");
        await page.keyboard.press("Enter");
        const notice = snackbar.locator(".snackbar[data-state='shown']");
        await notice.waitFor({ timeout: 5_000 });
        assert.match(await notice.innerText(), /アップロードを中止しました/);
        assert.equal(await page.locator(`${ISLAND} .invoice-upload__progress`).count(), 0, "the bar is gone");
        await checkAxe("snackbar raised by the island");
      });
    }
  });
}
