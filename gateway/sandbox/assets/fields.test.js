// The card-fields page's script on the page as the sandbox renders it
// (testdata/fields.golden.html, which TestFieldsPage keeps in step with the template):
// accessibility (axe), checks before sending, and exactly what leaves the frame.
import axe from "axe-core";
import { describe, expect, it, vi } from "vitest";
import { BRAND_PREFIX, mount, SOURCE } from "./fields.js";
import { MESSAGES } from "./rules.js";
import golden from "./testdata/fields.golden.html?raw";

const ORIGIN = "http://app.test";
const VISA = "4111 1111 1111 1111";
const AMEX = "3782 822463 10005";

/** Loads the page (without its script tag: the test mounts) and mounts with fakes. */
function setup(answer) {
  const parsed = new DOMParser().parseFromString(golden, "text/html");
  document.documentElement.lang = parsed.documentElement.lang;
  document.title = parsed.title;
  document.body.replaceChildren(...[...parsed.body.childNodes].map((n) => document.importNode(n, true)));
  const parent = { postMessage: vi.fn() };
  const fetch = vi.fn(answer ?? (() => Promise.reject(new Error("no fetch expected"))));
  mount(document.getElementById("sandbox-fields"), { fetch, parent });
  const $ = (sel) => document.querySelector(sel);
  return { parent, fetch, $ };
}

function type(el, value) {
  el.value = value;
  el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function fill($, number) {
  type($("#number"), number);
  type($("#exp"), "12/39");
  type($("#cvc"), "123");
  type($("#name"), "taro yamada");
}

function submit($) {
  $("#card-form").dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
}

function json(status, body) {
  return () => Promise.resolve(new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }));
}

/** The messages posted to the parent, each with its targetOrigin. */
const posted = (parent) => parent.postMessage.mock.calls;

async function axeViolations() {
  // Colour contrast needs layout and the style sheet, which jsdom has not; the e2e run
  // checks it in a browser.
  const r = await axe.run(document, { rules: { "color-contrast": { enabled: false } } });
  return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("the fields page", () => {
  it("is axe-clean, empty and with errors", async () => {
    const { $ } = setup();
    expect(await axeViolations()).toEqual([]);
    submit($);
    expect($("#error-summary").hidden).toBe(false);
    expect(await axeViolations()).toEqual([]);
  });

  it("reports its height to the merchant origin only, on load", () => {
    const { parent } = setup();
    expect(posted(parent)).toEqual([[{ source: SOURCE, type: "resize", height: expect.any(Number) }, ORIGIN]]);
  });

  it("groups the number as typed and announces the brand politely", () => {
    const { $ } = setup();
    const status = $("#number-brand");
    expect(status.getAttribute("role")).toBe("status");
    expect(status.getAttribute("aria-live")).toBe("polite");
    $("#number").value = "41111";
    $("#number").dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
    expect($("#number").value).toBe("4111 1");
    expect(status.textContent).toBe(`${BRAND_PREFIX}VISA`);
    $("#number").value = "3782822463";
    $("#number").dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
    expect($("#number").value).toBe("3782 822463");
    expect(status.textContent).toBe(`${BRAND_PREFIX}American Express`);
  });

  it("checks a field on change and ties the error to it", () => {
    const { $ } = setup();
    type($("#cvc"), "12");
    expect($("#cvc").getAttribute("aria-invalid")).toBe("true");
    expect($("#cvc").getAttribute("aria-describedby")).toBe("cvc-hint cvc-error");
    expect($("#cvc-error").hidden).toBe(false);
    expect($("#cvc-error").textContent).toContain(MESSAGES.cvcFormat);
    type($("#cvc"), "123");
    expect($("#cvc").hasAttribute("aria-invalid")).toBe(false);
    expect($("#cvc").getAttribute("aria-describedby")).toBe("cvc-hint");
    expect($("#cvc-error").hidden).toBe(true);
    type($("#exp"), "0939");
    expect($("#exp").value).toBe("09/39");
    type($("#name"), "ｔａｒｏ　yamada");
    expect($("#name").value).toBe("TARO YAMADA");
  });

  it("refuses AMEX (and Diners) before anything is sent, with a summary that takes the focus", () => {
    const { $, fetch, parent } = setup();
    fill($, AMEX);
    submit($);
    expect(fetch).not.toHaveBeenCalled();
    expect($("#number-error").textContent).toContain("American Express はご利用いただけません。");
    expect(document.activeElement).toBe($("#error-summary"));
    expect($("#error-summary-list").textContent).toContain("American Express");
    expect(document.title.startsWith("エラー: ")).toBe(true);
    expect(posted(parent).map(([m]) => m.type)).not.toContain("busy");
    fill($, "3622 720627 1667");
    submit($);
    expect(fetch).not.toHaveBeenCalled();
    expect($("#number-error").textContent).toContain("Diners Club はご利用いただけません。");
  });

  it("links the summary to the fields", () => {
    const { $ } = setup();
    submit($);
    const links = [...document.querySelectorAll("#error-summary-list a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["#number", "#exp", "#cvc", "#name"]);
    links[2].click();
    expect(document.activeElement).toBe($("#cvc"));
  });

  it("sends the card to its own origin and hands the parent the token, never the number", async () => {
    let release;
    const answer = { token: "tok_abc", brand: "VISA", last4: "1111", exp_month: 12, exp_year: 2039 };
    const { $, fetch, parent } = setup(() => new Promise((r) => (release = r)));
    fill($, VISA);
    submit($);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe("/fields/setup_test");
    expect(init.method).toBe("POST");
    expect(init.credentials).toBe("omit");
    expect(JSON.parse(init.body)).toEqual({ number: "4111111111111111", exp_month: 12, exp_year: 2039, cvc: "123", name: "TARO YAMADA" });
    // Busy while sending; a second submit sends nothing.
    expect($("#card-submit").getAttribute("aria-disabled")).toBe("true");
    expect($("#card-form").getAttribute("aria-busy")).toBe("true");
    submit($);
    expect(fetch).toHaveBeenCalledTimes(1);
    release(await json(201, answer)());
    await vi.waitFor(() => expect(posted(parent).map(([m]) => m.type)).toContain("tokenized"));

    for (const [, target] of posted(parent)) expect(target).toBe(ORIGIN);
    const messages = posted(parent).map(([m]) => m).filter((m) => m.type !== "resize");
    expect(messages).toEqual([
      { source: SOURCE, type: "busy" },
      { source: SOURCE, type: "tokenized", setup: "setup_test", token: "tok_abc", brand: "VISA", last4: "1111", exp_month: 12, exp_year: 2039 },
    ]);
    const everything = JSON.stringify(posted(parent));
    expect(everything).not.toContain("4111111111111111");
    expect(everything).not.toContain("4111 1111");
    expect(everything).not.toContain('"123"');
    expect($("#number").value).toBe("");
    expect($("#cvc").value).toBe("");
  });

  it("shows the sandbox's field errors in the frame and goes idle", async () => {
    const { $, parent } = setup(json(400, { errors: [{ code: "G030", field: "number", message: "カード番号が正しくありません。" }] }));
    fill($, VISA);
    submit($);
    await vi.waitFor(() => expect(posted(parent).map(([m]) => m.type)).toContain("idle"));
    expect($("#number-error").textContent).toContain("カード番号が正しくありません。");
    expect(document.activeElement).toBe($("#error-summary"));
    expect($("#card-submit").hasAttribute("aria-disabled")).toBe(false);
    expect(posted(parent).map(([m]) => m.type)).not.toContain("tokenized");
  });

  it("says so when the card could not be sent", async () => {
    const { $, parent } = setup(() => Promise.reject(new TypeError("offline")));
    fill($, VISA);
    submit($);
    await vi.waitFor(() => expect(posted(parent).map(([m]) => m.type)).toContain("idle"));
    expect($("#error-summary-title").textContent).toBe("カード情報を送信できませんでした");
    expect($("#error-summary-list").textContent).toContain(MESSAGES.network);
  });

  it("posts nothing when it is not framed", () => {
    const parsed = new DOMParser().parseFromString(golden, "text/html");
    document.body.replaceChildren(...[...parsed.body.childNodes].map((n) => document.importNode(n, true)));
    const spy = vi.spyOn(window, "postMessage");
    mount(document.getElementById("sandbox-fields"), { parent: window, fetch: vi.fn() });
    expect(spy).not.toHaveBeenCalled();
  });
});
