import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FETCH_FAILED } from "./Combobox";
import exampleProps from "./example-props.json";
import fallbackHTML from "./example-fallback.html?raw";
import SupplierAccountForm, { BRANCH_WAITS, type AccountFormProps } from "./SupplierAccountForm";

// Both written by a Go test (views/bank_account_example_test.go) from the same props:
// the island's props (the wizard's bank step posted back with a bad account number), and
// the server's details form for them.
const props = exampleProps as AccountFormProps;
const empty: AccountFormProps = {
  ...props,
  bankCode: "",
  bankName: "",
  branchCode: "",
  branchName: "",
  accountType: "",
  accountNumber: "",
  holderName: "",
  errors: null,
};

const byId = <T extends HTMLElement = HTMLInputElement>(id: string) => document.getElementById(id) as T;
const hidden = (name: string) => document.querySelector<HTMLInputElement>(`input[type=hidden][name=${name}]`)!.value;
const errorOf = (id: string) => byId(`${id}-error`)?.textContent?.replace("エラー：", "") ?? "";
const optionTexts = (list: string) => Array.from(byId(list).querySelectorAll("[role=option]")).map((li) => li.firstChild!.textContent);
const statusOf = (input: string) => byId(`${input}-status`).textContent;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const BANKS: Record<string, { code: string; name: string; kana: string }[]> = {
  みず: [
    { code: "0001", name: "みずほ銀行", kana: "ミズホ" },
    { code: "0289", name: "みずほ信託銀行", kana: "ミズホシンタク" },
  ],
  りそな: [{ code: "0010", name: "りそな銀行", kana: "リソナ" }],
};
const BRANCHES = [
  { code: "001", name: "東京営業部", kana: "トウキヨウ" },
  { code: "004", name: "丸の内中央", kana: "マルノウチチユウオウ" },
  { code: "005", name: "丸之内", kana: "マルノウチ" },
];

/** The API as the server answers it (handlers/api/banks.go). */
async function api(input: string, init?: RequestInit): Promise<Response> {
  const url = new URL(input, "http://localhost");
  if (url.pathname === "/api/v1/banks2") {
    const q = url.searchParams.get("q") ?? "";
    if (url.searchParams.has("bank_code")) return json(200, { bank: {}, branches: BRANCHES.filter((b) => b.name.includes(q) || b.code.startsWith(q)) });
    return json(200, { banks: BANKS[q] ?? [] });
  }
  if (url.pathname === "/api/v1/accounts/holder_kana" && init?.method === "POST") {
    const name = (JSON.parse(String(init.body)) as { holder_name: string }).holder_name;
    if (name === "カ）ヤマダショウジ") return json(200, { holder_name: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", valid: true, kind: 2 });
    return json(422, {
      status: "validation_error",
      message: "入力内容に誤りがあります",
      errors: [{ field: "holder_name", message: "口座名義に「山」は使えません。カタカナ・英数字で入力してください" }],
    });
  }
  return json(404, { status: "not_found", message: "" });
}

let fetchMock: ReturnType<typeof vi.fn<(input: string, init?: RequestInit) => Promise<Response>>>;
beforeEach(() => {
  fetchMock = vi.fn(api);
  vi.stubGlobal("fetch", fetchMock);
});

const calls = () => fetchMock.mock.calls.map(([u]) => decodeURIComponent(u));

function type(el: HTMLInputElement, value: string) {
  fireEvent.input(el, { target: { value } });
}

/** Renders the form and returns it with a spy on its submissions. */
function renderForm(p: AccountFormProps) {
  const { container } = render(<SupplierAccountForm {...p} />);
  const form = container.querySelector("form")!;
  const submitted = vi.fn((e: Event) => e.preventDefault());
  form.addEventListener("submit", submitted);
  return { form, submitted };
}

/** What matters of every element of a field, for comparing the island's with the server's. */
function fieldShape(field: Element | null | undefined) {
  expect(field).toBeTruthy();
  const attrs = ["id", "name", "type", "class", "for", "aria-describedby", "aria-invalid", "aria-required", "autocomplete", "inputmode", "role"];
  return Array.from(field!.querySelectorAll("*"))
    .filter((el) => !(el instanceof SVGElement) && el.id !== "holder_name-preview")
    .map((el) => {
      const a: Record<string, string | boolean | null> = { tag: el.tagName.toLowerCase() };
      for (const n of attrs) a[n] = el.getAttribute(n);
      if (el instanceof HTMLInputElement) {
        a.value = el.defaultValue;
        a.checked = el.defaultChecked;
      }
      if (["LABEL", "LEGEND", "P"].includes(el.tagName)) a.text = el.textContent;
      return a;
    });
}

describe("SupplierAccountForm", () => {
  it("renders the example props: one form posting the server's field names, the details as the server renders them", () => {
    const { form } = renderForm(props);
    expect(form.getAttribute("method")).toBe("post");
    expect(form.getAttribute("action")).toBe("/suppliers/add/bank");
    expect(form.noValidate).toBe(true);
    expect(hidden("bank_code")).toBe("0001");
    expect(hidden("branch_code")).toBe("001");
    expect(byId("bank_search").value).toBe("みずほ銀行");
    expect(byId("branch_search").value).toBe("東京営業部");
    expect(byId("branch_search").disabled).toBe(false);
    // The comboboxes are not submitted themselves.
    expect(byId("bank_search").name).toBe("");
    expect(byId("branch_search").name).toBe("");

    const server = document.createElement("div");
    server.innerHTML = fallbackHTML;
    for (const id of ["account_type", "account_number", "holder_name"]) {
      expect(fieldShape(byId(id).closest(".field")), id).toEqual(fieldShape(server.querySelector(`[id='${id}']`)?.closest(".field")));
    }
    expect(errorOf("account_number")).toBe("口座番号は7桁の数字で入力してください");

    const submit = screen.getByRole("button", { name: "次へ" });
    expect(submit.getAttribute("type")).toBe("submit");
    expect(submit.className).toBe("btn btn--md btn--primary");
    expect(form.querySelectorAll("[tabindex]").length).toBe(0);
  });

  it("is an ARIA combobox with a label, a hint and a listbox", () => {
    renderForm(empty);
    const bank = screen.getByRole("combobox", { name: /^金融機関/ });
    expect(bank.id).toBe("bank_search");
    expect(bank.getAttribute("aria-controls")).toBe("bank_listbox");
    expect(bank.getAttribute("aria-autocomplete")).toBe("list");
    expect(bank.getAttribute("aria-expanded")).toBe("false");
    expect(bank.getAttribute("aria-describedby")).toBe("bank_search-hint");
    expect(byId("bank_search-hint").textContent).toBe("金融機関名・カナ・金融機関コードの一部（例：みずほ、ミズホ、0001）");
    expect(document.querySelector("label[for=bank_search]")!.textContent).toBe("金融機関必須");
    expect(byId("bank_listbox").getAttribute("role")).toBe("listbox");
    expect(screen.getByRole("combobox", { name: /^支店/ }).id).toBe("branch_search");
  });

  it("lists the major banks on focus and on ArrowDown, without a request", () => {
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    expect(bank.getAttribute("aria-expanded")).toBe("true");
    expect(optionTexts("bank_listbox")).toEqual(props.majors!.map((m) => m.name));
    expect(statusOf("bank_search")).toBe("8件の候補があります");
    expect(byId("bank_option-0001").textContent).toBe("みずほ銀行ミズホ　0001");

    fireEvent.keyDown(bank, { key: "Escape" });
    expect(bank.getAttribute("aria-expanded")).toBe("false");
    expect(byId("bank_listbox").hidden).toBe(true);
    expect(statusOf("bank_search")).toBe("");

    fireEvent.keyDown(bank, { key: "ArrowDown" });
    expect(bank.getAttribute("aria-expanded")).toBe("true");
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-0001");
    expect(byId("bank_option-0001").getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(bank, { key: "ArrowDown" });
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-0005");
    fireEvent.keyDown(bank, { key: "ArrowUp" });
    fireEvent.keyDown(bank, { key: "ArrowUp" });
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-9900");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("searches as the person types, once typing pauses, with the session cookie", async () => {
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "み");
    type(bank, "みず");
    expect(fetchMock).not.toHaveBeenCalled();
    await waitFor(() => expect(optionTexts("bank_listbox")).toEqual(["みずほ銀行", "みずほ信託銀行"]));
    expect(calls()).toEqual(["/api/v1/banks2?q=みず&limit=20"]);
    const init = fetchMock.mock.calls[0][1]!;
    expect(init.credentials).toBe("same-origin");
    expect((init.headers as Record<string, string>)["X-Requested-With"]).toBe("fetch");
    expect(statusOf("bank_search")).toBe("2件の候補があります");

    type(bank, "該当なし");
    await waitFor(() => expect(statusOf("bank_search")).toBe("該当する候補がありません"));
    expect(bank.getAttribute("aria-expanded")).toBe("false");
  });

  it("keeps only the latest search's answer, and cancels the older request", async () => {
    const pending: ((r: Response) => void)[] = [];
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => pending.push(resolve)));
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "みず");
    await waitFor(() => expect(pending).toHaveLength(1));
    type(bank, "りそな");
    await waitFor(() => expect(pending).toHaveLength(2));
    expect((fetchMock.mock.calls[0][1]!.signal as AbortSignal).aborted).toBe(true);

    await act(async () => pending[1](json(200, { banks: BANKS["りそな"] })));
    await waitFor(() => expect(optionTexts("bank_listbox")).toEqual(["りそな銀行"]));
    await act(async () => pending[0](json(200, { banks: BANKS["みず"] })));
    expect(optionTexts("bank_listbox")).toEqual(["りそな銀行"]);
  });

  it("chooses with ArrowDown and Enter: the hidden bank_code is set and the form is not submitted", async () => {
    const { submitted } = renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "みず");
    await waitFor(() => expect(optionTexts("bank_listbox")).toHaveLength(2));
    fireEvent.keyDown(bank, { key: "ArrowDown" });
    fireEvent.keyDown(bank, { key: "ArrowDown" });
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-0289");
    const notCancelled = fireEvent.keyDown(bank, { key: "Enter" });
    expect(notCancelled).toBe(false);
    expect(submitted).not.toHaveBeenCalled();
    expect(hidden("bank_code")).toBe("0289");
    expect(bank.value).toBe("みずほ信託銀行");
    expect(bank.getAttribute("aria-expanded")).toBe("false");
    expect(bank.hasAttribute("aria-activedescendant")).toBe(false);
    expect(document.activeElement).toBe(bank);
  });

  it("keeps the highlighted option highlighted when a newer answer still lists it", async () => {
    const pending: ((r: Response) => void)[] = [];
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => pending.push(resolve)));
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "みず");
    // Still the majors' list: the person moves to みずほ銀行 before the answer arrives.
    fireEvent.keyDown(bank, { key: "ArrowDown" });
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-0001");
    await waitFor(() => expect(pending).toHaveLength(1));
    await act(async () => pending[0](json(200, { banks: [...BANKS["みず"]].reverse() })));
    await waitFor(() => expect(optionTexts("bank_listbox")).toEqual(["みずほ信託銀行", "みずほ銀行"]));
    expect(bank.getAttribute("aria-activedescendant")).toBe("bank_option-0001");
    fireEvent.keyDown(bank, { key: "Enter" });
    expect(hidden("bank_code")).toBe("0001");
  });

  it("ignores Enter while an IME conversion is being confirmed", () => {
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    fireEvent.keyDown(bank, { key: "ArrowDown" });
    expect(fireEvent.keyDown(bank, { key: "Enter", keyCode: 229 })).toBe(true);
    expect(hidden("bank_code")).toBe("");
  });

  it("chooses with a click, keeping focus in the text box", () => {
    renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    const option = byId<HTMLLIElement>("bank_option-0009");
    expect(fireEvent.mouseDown(option)).toBe(false);
    fireEvent.click(option);
    expect(hidden("bank_code")).toBe("0009");
    expect(bank.value).toBe("三井住友銀行");
  });

  it("keeps the branch disabled until a bank is chosen, then searches that bank's branches", async () => {
    renderForm(empty);
    expect(byId("branch_search").disabled).toBe(true);
    expect(byId("branch_search-hint").textContent).toBe(BRANCH_WAITS);

    act(() => byId("bank_search").focus());
    fireEvent.click(byId("bank_option-0001"));
    const branch = byId("branch_search");
    expect(branch.disabled).toBe(false);
    expect(byId("branch_search-hint").textContent).toBe("支店名・カナ・3桁の支店コードの一部（例：渋谷、シブヤ、001）");

    act(() => branch.focus());
    await waitFor(() => expect(optionTexts("branch_listbox")).toEqual(["東京営業部", "丸の内中央", "丸之内"]));
    expect(calls()).toEqual(["/api/v1/banks2?bank_code=0001&q=&limit=20"]);
    type(branch, "丸");
    await waitFor(() => expect(optionTexts("branch_listbox")).toEqual(["丸の内中央", "丸之内"]));
    expect(calls()[1]).toBe("/api/v1/banks2?bank_code=0001&q=丸&limit=20");
    fireEvent.keyDown(branch, { key: "ArrowUp" });
    fireEvent.keyDown(branch, { key: "Enter" });
    expect(hidden("branch_code")).toBe("005");
    expect(branch.value).toBe("丸之内");
  });

  it("clears the branch when the bank changes", async () => {
    renderForm(props);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "りそな");
    expect(hidden("bank_code")).toBe("");
    expect(hidden("branch_code")).toBe("");
    expect(byId("branch_search").value).toBe("");
    expect(byId("branch_search").disabled).toBe(true);
    await waitFor(() => expect(optionTexts("bank_listbox")).toEqual(["りそな銀行"]));
    fireEvent.click(byId("bank_option-0010"));
    expect(hidden("bank_code")).toBe("0010");
    expect(byId("branch_search").disabled).toBe(false);
    expect(byId("branch_search").value).toBe("");
    expect(hidden("branch_code")).toBe("");
  });

  it("shows the server's errors under each field, bank_code and branch_code under the comboboxes", () => {
    renderForm({
      ...empty,
      errors: {
        bank_code: "金融機関を選択してください",
        branch_code: "支店を選択してください",
        account_type: "口座種別（普通・当座）を選択してください",
        holder_name: "口座名義を入力してください",
      },
    });
    expect(errorOf("bank_search")).toBe("金融機関を選択してください");
    expect(errorOf("branch_search")).toBe("支店を選択してください");
    expect(errorOf("account_type")).toBe("口座種別（普通・当座）を選択してください");
    expect(errorOf("holder_name")).toBe("口座名義を入力してください");
    const bank = byId("bank_search");
    expect(bank.getAttribute("aria-invalid")).toBe("true");
    expect(bank.getAttribute("aria-describedby")).toBe("bank_search-hint bank_search-error");
    expect(bank.closest(".field")!.classList.contains("field--error")).toBe(true);
    expect(byId("bank_search-error").className).toBe("field-error");
    expect(byId("branch_search").getAttribute("aria-describedby")).toBe("branch_search-hint branch_search-error");
    expect(byId<HTMLFieldSetElement>("account_type").closest("fieldset")!.getAttribute("aria-describedby")).toBe("account_type-error");

    // Each goes once the field is answered.
    act(() => bank.focus());
    fireEvent.click(byId("bank_option-0001"));
    expect(byId("bank_search-error")).toBeNull();
    expect(bank.hasAttribute("aria-invalid")).toBe(false);
    fireEvent.click(byId("account_type-2"));
    expect(byId("account_type-error")).toBeNull();
  });

  it("checks the account number on change (7 digits, full-width accepted), not on input", () => {
    renderForm(empty);
    const number = byId("account_number");
    expect(number.getAttribute("inputmode")).toBe("numeric");
    fireEvent.input(number, { target: { value: "12345" } });
    expect(errorOf("account_number")).toBe("");
    fireEvent.change(number, { target: { value: "12345" } });
    expect(errorOf("account_number")).toBe("口座番号は7桁の数字で入力してください");
    expect(number.getAttribute("aria-invalid")).toBe("true");
    expect(number.getAttribute("aria-describedby")).toBe("account_number-hint account_number-error");
    fireEvent.change(number, { target: { value: "１２３４５６７" } });
    expect(errorOf("account_number")).toBe("");
    expect(number.hasAttribute("aria-invalid")).toBe(false);
    fireEvent.change(number, { target: { value: "" } });
    expect(errorOf("account_number")).toBe("口座番号を入力してください");
  });

  it("previews the holder name as it will be registered, asking the server on change", async () => {
    renderForm({ ...props, errors: null });
    const holder = byId("holder_name");
    fireEvent.input(holder, { target: { value: "カ）ヤマダショウジ" } });
    fireEvent.blur(holder);
    expect(fetchMock).not.toHaveBeenCalled();
    fireEvent.change(holder, { target: { value: "カ）ヤマダショウジ" } });
    await waitFor(() => expect(byId("holder_name-preview").textContent).toBe("登録される口座名義：ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"));
    expect(byId("holder_name-preview").getAttribute("role")).toBe("status");
    expect(byId("holder_name-preview").className).toBe("holder-preview");
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/v1/accounts/holder_kana");
    expect(init!.method).toBe("POST");
    expect(JSON.parse(String(init!.body))).toEqual({ holder_name: "カ）ヤマダショウジ" });
    expect(errorOf("holder_name")).toBe("");
  });

  it("shows the server's 422 message for the holder name inline", async () => {
    renderForm(empty);
    const holder = byId("holder_name");
    fireEvent.change(holder, { target: { value: "山田" } });
    await waitFor(() => expect(errorOf("holder_name")).toBe("口座名義に「山」は使えません。カタカナ・英数字で入力してください"));
    expect(holder.getAttribute("aria-invalid")).toBe("true");
    expect(holder.getAttribute("aria-describedby")).toBe("holder_name-hint holder_name-error");
    expect(holder.closest(".field")!.className).toBe("field field--error");
    expect(byId("holder_name-preview").textContent).toBe("");

    fireEvent.change(holder, { target: { value: "カ）ヤマダショウジ" } });
    await waitFor(() => expect(errorOf("holder_name")).toBe(""));
    expect(holder.hasAttribute("aria-invalid")).toBe(false);
    expect(byId("holder_name-preview").textContent).toBe("登録される口座名義：ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ");
  });

  it("when the search is out of reach, says so and takes codes typed by hand", async () => {
    fetchMock.mockImplementation(async (input: string) => {
      if (input.includes("bank_code=")) return json(503, { status: "unavailable", message: "" });
      throw new TypeError("Failed to fetch");
    });
    const { form, submitted } = renderForm(empty);
    const bank = byId("bank_search");
    act(() => bank.focus());
    type(bank, "０００５");
    await waitFor(() => expect(statusOf("bank_search")).toBe(FETCH_FAILED));
    expect(bank.getAttribute("aria-expanded")).toBe("false");
    expect(hidden("bank_code")).toBe("0005");

    const branch = byId("branch_search");
    expect(branch.disabled).toBe(false);
    act(() => branch.focus());
    await waitFor(() => expect(statusOf("branch_search")).toBe("候補を取得できませんでした。時間をおいてお試しください"));
    type(branch, "12");
    expect(hidden("branch_code")).toBe("");
    type(branch, "123");
    expect(hidden("branch_code")).toBe("123");
    type(branch, "1234");
    expect(hidden("branch_code")).toBe("");
    type(branch, "１２３");
    expect(hidden("branch_code")).toBe("123");

    // Client checks never hold the form back: the server decides.
    fireEvent.change(byId("account_number"), { target: { value: "1" } });
    fireEvent.submit(form);
    expect(submitted).toHaveBeenCalledTimes(1);
  });

  it("keeps what was typed into the server's form before it arrived, and points the error summary at the comboboxes", () => {
    document.body.insertAdjacentHTML(
      "beforeend",
      `<div id="error-summary"><ul><li><a href="#bank_q">金融機関を選択してください</a></li></ul></div>`,
    );
    const island = document.createElement("div");
    island.dataset.island = "supplier-account";
    island.innerHTML = fallbackHTML;
    document.body.append(island);
    island.querySelector<HTMLInputElement>("#account_number")!.value = "7654321";
    island.querySelector<HTMLInputElement>("#account_type-2")!.checked = true;
    island.querySelector<HTMLInputElement>("#holder_name")!.focus();

    const { container } = render(<SupplierAccountForm {...props} />);
    expect(container.querySelector<HTMLInputElement>("[id='account_number']")!.value).toBe("7654321");
    expect(container.querySelector<HTMLInputElement>("[id='account_type-2']")!.checked).toBe(true);
    expect(document.activeElement).toBe(container.querySelector("[id='holder_name']"));
    expect(document.querySelector("#error-summary a")!.getAttribute("href")).toBe("#bank_search");
    // The sprite of the fallback's icons.
    expect(container.querySelector("[id='account_number-error'] use")!.getAttribute("href")).toBe("/static/icons.svg#warning_filled");
  });
});
