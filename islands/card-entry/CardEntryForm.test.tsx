import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { boot, MOUNTED_ATTR } from "../lib/mount";
import CardEntryForm, { BRAND_PREFIX, SUMMARY_ID, type CardEntryProps } from "./CardEntryForm";
import exampleProps from "./example-props.json";
import fallbackHTML from "./example-fallback.html?raw";
import { MESSAGES } from "./rules";

// example-props.json: the props the cards page gives the island (its Go test keeps them equal
// to views' CardEntryProps). example-fallback.html: the server's no-JS form, which sends the
// buyer to the PSP's hosted card page.
const props = exampleProps as CardEntryProps;
const TOKENIZE_URL = "http://localhost:8081/v1/tokens";
const HINT = "JCB、VISA、Mastercard のカードをご利用ください。";
const NEXT_YEAR = (new Date().getFullYear() + 1) % 100;
const EXP = `12/${NEXT_YEAR}`;

const byId = (id: string) => document.getElementById(id) as HTMLInputElement;
const errorOf = (id: string) => document.getElementById(`${id}-error`)?.textContent?.replace("エラー：", "") ?? "";
const brandText = () => document.getElementById("card_number-brand")!.textContent;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn<FetchFn>>;
/** Every form the page submitted natively (form.submit()), with what it carried. */
let submitted: { action: string; method: string; fields: [string, string][] }[];

beforeEach(() => {
  fetchMock = vi.fn<FetchFn>(async () =>
    json(201, { token: "tok_abc123", brand: "VISA", last4: "1111", exp_month: 12, exp_year: 2000 + NEXT_YEAR, name: "TARO YAMADA" }),
  );
  vi.stubGlobal("fetch", fetchMock);
  submitted = [];
  vi.spyOn(HTMLFormElement.prototype, "submit").mockImplementation(function (this: HTMLFormElement) {
    submitted.push({
      action: this.getAttribute("action") ?? "",
      method: this.method,
      fields: Array.from(new FormData(this).entries()).map(([k, v]) => [k, String(v)]),
    });
  });
});

/** Renders the island; a native submission of its card form would be a bug, so it is recorded. */
function renderForm(p: CardEntryProps = props) {
  const { container } = render(<CardEntryForm {...p} />);
  const form = container.querySelector<HTMLFormElement>("form.card-entry__form")!;
  const nativeSubmits = vi.fn();
  // On the document, so that React's handler (on the root) has had its turn.
  const onSubmit = (e: Event) => {
    if (e.target === form && !e.defaultPrevented) nativeSubmits();
  };
  document.addEventListener("submit", onSubmit);
  onTestFinished(() => document.removeEventListener("submit", onSubmit));
  return { container, form, nativeSubmits };
}

/** Types a value and commits it, as a person does before leaving the field. */
function fill(id: string, value: string) {
  const el = byId(id);
  fireEvent.input(el, { target: { value } });
  fireEvent.change(el, { target: { value: el.value } });
}

function fillCard(number = "4111 1111 1111 1111") {
  fill("card_number", number);
  fill("card_exp", EXP);
  fill("card_cvc", "123");
  fill("card_name", "taro yamada");
}

const submitButton = () => screen.getByRole("button", { name: "カードを登録する" });

describe("CardEntryForm", () => {
  it("renders labelled card fields with autocomplete, numeric keyboards and no names", () => {
    const { container } = renderForm();
    const fields = [
      ["card_number", "カード番号", "cc-number", "numeric"],
      ["card_exp", "有効期限（月/年）", "cc-exp", "numeric"],
      ["card_cvc", "セキュリティコード", "cc-csc", "numeric"],
      ["card_name", "カード名義", "cc-name", null],
    ] as const;
    for (const [id, label, autocomplete, inputmode] of fields) {
      const el = screen.getByLabelText(new RegExp(`^${label.replace(/[()（）/]/g, ".")}`)) as HTMLInputElement;
      expect(el.id).toBe(id);
      expect(el.getAttribute("autocomplete")).toBe(autocomplete);
      expect(el.getAttribute("inputmode")).toBe(inputmode);
      expect(el.getAttribute("type")).toBe("text");
      expect(el.getAttribute("aria-required")).toBe("true");
      expect(el.getAttribute("aria-describedby")).toBe(`${id}-hint`);
      expect(el.hasAttribute("aria-invalid")).toBe(false);
      expect(document.getElementById(`${id}-hint`)!.textContent).not.toBe("");
      // No name: no form submission can ever carry card data to our server.
      expect(el.hasAttribute("name")).toBe(false);
    }
    expect(document.getElementById("card_number-hint")!.textContent).toBe("ご利用いただけるカード：JCB、VISA、Mastercard");
    const brand = document.getElementById("card_number-brand")!;
    expect(brand.getAttribute("aria-live")).toBe("polite");
    expect(brand.getAttribute("role")).toBe("status");

    // The only thing that ever goes to our server: a POST of the token.
    const tokenForm = container.querySelector<HTMLFormElement>(`form[action='${props.action}']`)!;
    expect(tokenForm.method).toBe("post");
    expect(Array.from(tokenForm.elements).map((e) => [(e as HTMLInputElement).type, (e as HTMLInputElement).name])).toEqual([["hidden", "token"]]);
    expect(container.querySelectorAll("input[name]")).toHaveLength(1);
    expect(submitButton().getAttribute("type")).toBe("submit");
    expect(container.querySelector("form.card-entry__form")!.hasAttribute("novalidate")).toBe(true);
  });

  it("groups the number as it is typed and announces the brand from the first digits", () => {
    renderForm();
    const number = byId("card_number");
    fireEvent.input(number, { target: { value: "4" } });
    expect(brandText()).toBe(BRAND_PREFIX + "VISA");
    fireEvent.input(number, { target: { value: "41111" } });
    expect(number.value).toBe("4111 1");
    fireEvent.input(number, { target: { value: "4111111111111111" } });
    expect(number.value).toBe("4111 1111 1111 1111");
    fireEvent.input(number, { target: { value: "３５３０１１１３３３３０００００" } });
    expect(number.value).toBe("3530 1113 3330 0000");
    expect(brandText()).toBe(BRAND_PREFIX + "JCB");
    fireEvent.input(number, { target: { value: "378282246310005" } });
    expect(number.value).toBe("3782 822463 10005");
    expect(brandText()).toBe(BRAND_PREFIX + "American Express");
    fireEvent.input(number, { target: { value: "36227206271667" } });
    expect(number.value).toBe("3622 720627 1667");
    expect(brandText()).toBe(BRAND_PREFIX + "Diners Club");
    fireEvent.input(number, { target: { value: "5" } });
    expect(brandText()).toBe(BRAND_PREFIX + "Mastercard");
    fireEvent.input(number, { target: { value: "" } });
    expect(brandText()).toBe("");
    // Typing is not validation.
    expect(errorOf("card_number")).toBe("");
  });

  it("keeps the caret after the same digits, and Backspace next to a space removes a digit", () => {
    renderForm();
    const number = byId("card_number");
    act(() => number.focus());
    fireEvent.input(number, { target: { value: "41111111" } });
    expect(number.value).toBe("4111 1111");

    // A digit typed after the fifth digit: "4111 1|111" → "4111 12|111".
    number.value = "4111 12111";
    number.setSelectionRange(7, 7);
    fireEvent(number, new InputEvent("input", { bubbles: true, inputType: "insertText", data: "2" }));
    expect(number.value).toBe("4111 1211 1");
    expect(number.selectionStart).toBe(7);

    // Backspace just after the space: the browser removes the space, the island the "1" before it.
    fireEvent.input(number, { target: { value: "41111111" } });
    expect(number.value).toBe("4111 1111");
    number.value = "41111111";
    number.setSelectionRange(4, 4);
    fireEvent(number, new InputEvent("input", { bubbles: true, inputType: "deleteContentBackward" }));
    expect(number.value).toBe("4111 111");
    expect(number.selectionStart).toBe(3);
  });

  it("leaves an IME composition alone and groups what it composed", () => {
    renderForm();
    const number = byId("card_number");
    act(() => number.focus());
    number.value = "４１１１１";
    fireEvent(number, new InputEvent("input", { bubbles: true, inputType: "insertCompositionText", isComposing: true }));
    expect(number.value).toBe("４１１１１");
    fireEvent.compositionEnd(number);
    expect(number.value).toBe("4111 1");
    expect(number.selectionStart).toBe(6);
    expect(brandText()).toBe(BRAND_PREFIX + "VISA");
  });

  it("checks a field on change only, never on input or blur", () => {
    renderForm();
    const number = byId("card_number");
    fireEvent.input(number, { target: { value: "4111 1111 1111 1112" } });
    fireEvent.blur(number);
    expect(errorOf("card_number")).toBe("");
    expect(number.hasAttribute("aria-invalid")).toBe(false);

    fireEvent.change(number, { target: { value: number.value } });
    expect(errorOf("card_number")).toBe(MESSAGES.numberInvalid);
    expect(number.getAttribute("aria-invalid")).toBe("true");
    expect(number.getAttribute("aria-describedby")).toBe("card_number-hint card_number-error");
    expect(number.closest(".field")!.className).toBe("field field--error");

    fill("card_number", "4111 1111 1111 1111");
    expect(errorOf("card_number")).toBe("");
    expect(number.hasAttribute("aria-invalid")).toBe(false);

    fill("card_exp", "13/30");
    expect(errorOf("card_exp")).toBe(MESSAGES.expFormat);
    fill("card_exp", "01/20");
    expect(errorOf("card_exp")).toBe(MESSAGES.expPast);
    fill("card_cvc", "12");
    expect(errorOf("card_cvc")).toBe(MESSAGES.cvcFormat);
    fill("card_name", "山田太郎");
    expect(errorOf("card_name")).toBe(MESSAGES.nameFormat);
    // No summary until the buyer submits.
    expect(document.getElementById(SUMMARY_ID)).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("writes the expiry as MM/YY and the name as embossed when they change", () => {
    renderForm();
    fill("card_exp", `9/${NEXT_YEAR}`);
    expect(byId("card_exp").value).toBe(`09/${NEXT_YEAR}`);
    expect(errorOf("card_exp")).toBe("");
    fill("card_exp", `０９${NEXT_YEAR}`);
    expect(byId("card_exp").value).toBe(`09/${NEXT_YEAR}`);
    fill("card_name", " taro  yamada ");
    expect(byId("card_name").value).toBe("TARO YAMADA");
    expect(errorOf("card_name")).toBe("");
  });

  it.each([
    ["3782 822463 10005", "American Express はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。"],
    ["3622 720627 1667", "Diners Club はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。"],
    ["6011 1111 1111 1117", `Discover はご利用いただけません。${HINT}`],
    ["6200 0000 0000 0005", `UnionPay はご利用いただけません。${HINT}`],
  ])("names and refuses %s before anything is sent", async (number, message) => {
    renderForm();
    fill("card_number", number);
    expect(errorOf("card_number")).toBe(message);

    fillCard(number);
    fireEvent.click(submitButton());
    expect(errorOf("card_number")).toBe(message);
    const summary = document.getElementById(SUMMARY_ID)!;
    expect(summary.textContent).toContain(message);
    await act(async () => {});
    expect(fetchMock).not.toHaveBeenCalled();
    expect(submitted).toEqual([]);
  });

  it("on submit shows every error next to its field and in a summary with links, and moves the focus there", () => {
    const { nativeSubmits } = renderForm();
    document.title = "カードの追加 | 請求書カード払い";
    fireEvent.click(submitButton());
    expect(nativeSubmits).not.toHaveBeenCalled();

    const summary = document.getElementById(SUMMARY_ID)!;
    expect(document.activeElement).toBe(summary);
    expect(summary.getAttribute("tabindex")).toBe("-1");
    expect(summary.getAttribute("aria-labelledby")).toBe(`${SUMMARY_ID}-title`);
    expect(document.getElementById(`${SUMMARY_ID}-title`)!.textContent).toBe("入力内容に誤りがあります");
    const links = Array.from(summary.querySelectorAll("a")).map((a) => [a.getAttribute("href"), a.textContent]);
    expect(links).toEqual([
      ["#card_number", MESSAGES.numberRequired],
      ["#card_exp", MESSAGES.expRequired],
      ["#card_cvc", MESSAGES.cvcRequired],
      ["#card_name", MESSAGES.nameRequired],
    ]);
    for (const id of ["card_number", "card_exp", "card_cvc", "card_name"]) {
      expect(byId(id).getAttribute("aria-invalid")).toBe("true");
      expect(errorOf(id)).not.toBe("");
    }
    expect(document.title).toBe("エラー：カードの追加 | 請求書カード払い");

    // A link takes the focus to its field.
    fireEvent.click(summary.querySelector("a[href='#card_cvc']")!);
    expect(document.activeElement).toBe(byId("card_cvc"));

    // Fixed fields leave the summary; a second failed submit does not repeat the prefix.
    fill("card_number", "4111 1111 1111 1111");
    expect(Array.from(summary.querySelectorAll("a")).map((a) => a.getAttribute("href"))).toEqual(["#card_exp", "#card_cvc", "#card_name"]);
    fireEvent.click(submitButton());
    expect(document.title).toBe("エラー：カードの追加 | 請求書カード払い");
    expect(document.activeElement).toBe(document.getElementById(SUMMARY_ID));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends the card to the PSP only, then posts the token to our server and forgets the number", async () => {
    const logs = [vi.spyOn(console, "log"), vi.spyOn(console, "info"), vi.spyOn(console, "warn"), vi.spyOn(console, "error"), vi.spyOn(console, "debug")];
    const { nativeSubmits } = renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(submitted).toHaveLength(1));

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe(TOKENIZE_URL);
    expect(init).toMatchObject({ method: "POST", mode: "cors", credentials: "omit" });
    expect((init!.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(JSON.parse(String(init!.body))).toEqual({
      number: "4111111111111111",
      exp_month: 12,
      exp_year: 2000 + NEXT_YEAR,
      cvc: "123",
      name: "TARO YAMADA",
    });

    expect(submitted).toEqual([{ action: "/myaccount/creditcards/new", method: "post", fields: [["token", "tok_abc123"]] }]);
    expect(nativeSubmits).not.toHaveBeenCalled();
    // The number and the security code are gone from the page.
    expect(byId("card_number").value).toBe("");
    expect(byId("card_cvc").value).toBe("");
    await waitFor(() => expect(brandText()).toBe(""));
    expect(document.body.innerHTML).not.toContain("4111");
    // And never logged.
    for (const spy of logs) expect(spy).not.toHaveBeenCalled();
  });

  it("sends once however often the button is pressed while the PSP answers", async () => {
    let answer!: (r: Response) => void;
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    renderForm();
    fillCard("3530 1113 3330 0000");
    fireEvent.click(submitButton());
    fireEvent.click(submitButton());
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(submitButton().getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(submitButton());
    fireEvent.click(submitButton());
    await act(async () => answer(json(201, { token: "tok_jcb", brand: "JCB", last4: "0000" })));
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(submitted[0].fields).toEqual([["token", "tok_jcb"]]);
  });

  it.each([
    ["number", "G030", "card_number", "カード番号が正しくありません。カードに記載の番号をご確認のうえ、もう一度入力してください。"],
    ["exp", "G054", "card_exp", "カードの有効期限が切れています。有効期限をご確認いただくか、別のカードをご利用ください。"],
    ["cvc", "G044", "card_cvc", "セキュリティコードが正しくありません。カード裏面に記載の3桁の数字をご確認のうえ、もう一度入力してください。"],
  ])("shows the PSP's error for %s (%s) next to the field", async (field, code, id, message) => {
    fetchMock.mockResolvedValue(json(400, { error: { code, field, message } }));
    renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(errorOf(id)).toBe(message));
    expect(byId(id).getAttribute("aria-invalid")).toBe("true");
    const summary = document.getElementById(SUMMARY_ID)!;
    expect(summary.querySelector(`a[href='#${id}']`)!.textContent).toBe(message);
    expect(document.activeElement).toBe(summary);
    expect(submitted).toEqual([]);
    // The buyer can correct and send again.
    expect(submitButton().hasAttribute("aria-disabled")).toBe(false);
    expect(byId("card_number").value).toBe("4111 1111 1111 1111");
  });

  it.each([
    ["the PSP is out of reach", () => Promise.reject(new TypeError("Failed to fetch"))],
    ["the PSP fails", () => Promise.resolve(new Response("<h1>502</h1>", { status: 502 }))],
    ["the PSP answers without a token", () => Promise.resolve(json(201, {}))],
  ])("says the card could not be sent when %s", async (_, answer) => {
    fetchMock.mockImplementation(answer);
    renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(document.getElementById(SUMMARY_ID)?.textContent).toContain(MESSAGES.network));
    expect(MESSAGES.network).toBe("カード情報を送信できませんでした。通信環境をご確認のうえ、もう一度お試しください。");
    expect(document.getElementById(`${SUMMARY_ID}-title`)!.textContent).toBe("カード情報を送信できませんでした");
    expect(document.activeElement).toBe(document.getElementById(SUMMARY_ID));
    expect(submitted).toEqual([]);
    expect(submitButton().hasAttribute("aria-disabled")).toBe(false);
  });

  it("marks every field the PSP names at once", async () => {
    fetchMock.mockResolvedValue(
      json(400, {
        error: { code: "G030", field: "number", message: "カード番号が正しくありません。カードに記載の番号をご確認ください。" },
        errors: [
          { code: "G030", field: "number", message: "カード番号が正しくありません。カードに記載の番号をご確認ください。" },
          { code: "G044", field: "cvc", message: "セキュリティコードはカード裏面に記載の3桁の数字で入力してください。" },
        ],
      }),
    );
    renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(errorOf("card_cvc")).toBe("セキュリティコードはカード裏面に記載の3桁の数字で入力してください。"));
    expect(errorOf("card_number")).toBe("カード番号が正しくありません。カードに記載の番号をご確認ください。");
    expect(Array.from(document.querySelectorAll(`#${SUMMARY_ID} a`)).map((a) => a.getAttribute("href"))).toEqual(["#card_number", "#card_cvc"]);
    expect(submitted).toEqual([]);
  });

  it("never shows a PSP message meant for developers (no field): the buyer gets ours", async () => {
    fetchMock.mockResolvedValue(json(403, { error: { code: "origin_not_allowed", message: "tokenisation is open to the merchant's origins only" } }));
    renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(document.getElementById(SUMMARY_ID)?.textContent).toContain(MESSAGES.network));
    expect(document.body.textContent).not.toContain("merchant");
    expect(submitted).toEqual([]);
  });

  it("does not post a token for a brand we do not take, whatever the PSP says", async () => {
    fetchMock.mockResolvedValue(json(201, { token: "tok_amex", brand: "AMEX", last4: "0005" }));
    renderForm();
    fillCard();
    fireEvent.click(submitButton());
    await waitFor(() => expect(errorOf("card_number")).toBe(`American Express はご利用いただけません。${HINT}`));
    expect(submitted).toEqual([]);
  });

  it("refuses to start when the tokenisation URL is our own origin", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => render(<CardEntryForm {...props} tokenizeUrl="/v1/tokens" />)).toThrow(/PSP's origin/);
    expect(() => render(<CardEntryForm {...props} tokenizeUrl={`${window.location.origin}/v1/tokens`} />)).toThrow(/PSP's origin/);
  });
});

describe("card-entry island", () => {
  function island(p: unknown) {
    const el = document.createElement("div");
    el.dataset.island = "card-entry";
    el.dataset.props = JSON.stringify(p);
    el.innerHTML = fallbackHTML;
    document.body.append(el);
    return el;
  }

  async function bootNow() {
    await act(async () => {
      await boot("card-entry", async () => import("./CardEntryForm"));
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }

  it("replaces the server's hosted-page form, which itself holds no card field", async () => {
    const { iconHref: _, ...withoutIcon } = props;
    const el = island(withoutIcon);
    // The fallback never asks for a card on our page: it sends the buyer to the PSP's.
    expect(el.querySelector("[autocomplete^='cc-']")).toBeNull();
    expect(el.querySelector("form")).not.toBeNull();
    el.querySelector("button")!.focus();

    await bootNow();
    expect(el.getAttribute(MOUNTED_ATTR)).toBe("true");
    expect(el.querySelector("#card_number")).not.toBeNull();
    expect(el.innerHTML).not.toContain("hosted");
    // The sprite URL comes from the fallback's icons, and the focus moves to the first field.
    expect(el.querySelector("svg use")!.getAttribute("href")).toMatch(/^\/static\/icons\.svg#/);
    expect(document.activeElement).toBe(el.querySelector("#card_number"));
  });

  it("leaves the fallback when the props point the card at our own origin", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const el = island({ ...props, tokenizeUrl: "/v1/tokens" });
    await bootNow();
    expect(el.getAttribute(MOUNTED_ATTR)).toBe("error");
    const server = document.createElement("div");
    server.innerHTML = fallbackHTML;
    expect(el.innerHTML).toBe(server.innerHTML);
    expect(el.querySelector("#card_number")).toBeNull();
  });
});
