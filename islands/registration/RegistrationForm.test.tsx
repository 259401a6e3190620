import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import exampleProps from "./example-props.json";
import fallbackHTML from "./example-fallback.html?raw";
import RegistrationForm, { LOOKUP_FAILED, type RegistrationProps } from "./RegistrationForm";

// Both written by a Go test (handlers/signup/registration_layout_test.go) from the same props: the island's
// props, and the server's fallback for them.
const props = exampleProps as RegistrationProps;

const input = (id: string) => document.getElementById(id) as HTMLInputElement;
const select = (id: string) => document.getElementById(id) as HTMLSelectElement;
const errorOf = (id: string) => document.getElementById(`${id}-error`)?.textContent?.replace("エラー：", "") ?? "";
const statusOf = (id: string) => document.getElementById(`${id}-status`)?.textContent ?? "";

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const TOKYO = { addresses: [{ prefecture_code: 13, prefecture: "東京都", city: "千代田区" }] };

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(async () => jsonResponse(200, TOKYO));
  vi.stubGlobal("fetch", fetchMock);
});

/** What matters of every control and label, for comparing two renderings of the form. */
function controls(root: ParentNode) {
  const attrs = ["id", "name", "type", "class", "value", "for", "aria-describedby", "aria-invalid", "aria-required", "autocomplete", "inputmode", "hidden", "role"];
  const elements = Array.from(root.querySelectorAll("form, fieldset, legend, h2, label, input, select, button, p, .field"));
  // The island keeps an empty live region under each postal code, so that a lookup's outcome
  // is announced; the server renders one only when it has an outcome to show.
  return elements
    .filter((el) => !(el.getAttribute("role") === "status" && el.textContent === ""))
    .map((el) => {
      const a: Record<string, string | null> = { tag: el.tagName.toLowerCase() };
      for (const n of attrs) a[n] = el.getAttribute(n);
      // React sets an input's and a select's initial value as a property.
      if (el instanceof HTMLInputElement) a.value = el.defaultValue;
      if (el instanceof HTMLSelectElement) a.value = el.value;
      if (el.tagName === "LABEL" || el.tagName === "H2" || el.tagName === "LEGEND" || el.tagName === "P") a.text = el.textContent;
      return a;
    });
}

describe("RegistrationForm", () => {
  it("renders the same form as the server's fallback", () => {
    const server = document.createElement("div");
    server.innerHTML = fallbackHTML;
    const { container } = render(<RegistrationForm {...props} />);
    const ours = controls(container);
    expect(ours.length).toBeGreaterThan(100);
    expect(ours).toEqual(controls(server));
  });

  it("keeps what was typed into the fallback before the island arrived, and the focus", () => {
    const island = document.createElement("div");
    island.dataset.island = "registration";
    island.innerHTML = fallbackHTML;
    document.body.append(island);
    const typed = island.querySelector<HTMLInputElement>("#corporate_name")!;
    typed.value = "株式会社まだ途中";
    typed.focus();
    island.querySelector<HTMLSelectElement>("#business_category")!.value = "D";

    const { container } = render(<RegistrationForm {...props} />);
    // (Attribute selectors: jsdom finds "#id" through getElementById, which the fallback's twin wins.)
    const ours = container.querySelector<HTMLInputElement>("[id='corporate_name']")!;
    expect(ours.value).toBe("株式会社まだ途中");
    expect(container.querySelector<HTMLSelectElement>("[id='business_category']")!.value).toBe("D");
    expect(document.activeElement).toBe(ours);
  });

  it("shows the server's errors and lookup outcomes, with the GOV.UK attributes", () => {
    render(<RegistrationForm {...props} />);
    expect(errorOf("corporate_name_kana")).toBe("法人名（カナ）は全角カタカナで入力してください");
    expect(input("corporate_name_kana").getAttribute("aria-invalid")).toBe("true");
    expect(input("corporate_name_kana").getAttribute("aria-describedby")).toBe("corporate_name_kana-hint corporate_name_kana-error");
    expect(statusOf("postal_code")).toBe("郵便番号から住所を入力しました：東京都千代田区");
    expect(screen.getByRole("button", { name: "住所を検索（所在地）" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "住所を検索（代表者の住所）" })).toBeTruthy();
    expect(screen.getByRole("group", { name: "法人情報" })).toBeTruthy();
    // Enter in a field submits with the form's first submit button: the hidden one, not 住所を検索.
    const first = document.querySelector<HTMLButtonElement>("form button[type=submit]")!;
    expect(first.hidden).toBe(true);
    expect(first.name).toBe("");
  });

  it("checks a field on change, not on input or blur, with the server's messages", () => {
    render(<RegistrationForm {...props} />);
    const name = input("representative_last_name_kana");
    fireEvent.input(name, { target: { value: "山田" } });
    fireEvent.blur(name);
    expect(errorOf("representative_last_name_kana")).toBe("");
    fireEvent.change(name, { target: { value: "山田" } });
    expect(errorOf("representative_last_name_kana")).toBe("代表者の姓（カナ）は全角カタカナで入力してください");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(name.getAttribute("aria-describedby")).toContain("representative_last_name_kana-error");

    fireEvent.change(name, { target: { value: "やまだ" } });
    expect(errorOf("representative_last_name_kana")).toBe("");
    expect(name.hasAttribute("aria-invalid")).toBe(false);

    // A server error goes once the field is fixed.
    fireEvent.change(input("corporate_name_kana"), { target: { value: "ヤマダショウジ" } });
    expect(errorOf("corporate_name_kana")).toBe("");
  });

  it.each([
    ["corporate_name", "あ".repeat(51), "法人名は50文字以内で入力してください"],
    ["corporate_name", " ", "法人名を入力してください"],
    ["corporate_number", "1234567890123", "法人番号が正しくありません。13桁の数字をご確認ください"],
    ["phone_number", "12-3456", "担当者の電話番号は0から始まる10桁または11桁の数字で入力してください（例：03-1234-5678）"],
    ["address_street", "1".repeat(101), "所在地の町名・番地は100文字以内で入力してください"],
    ["address_building_name", "", ""],
    ["transfer_person_name", "山田", "振込依頼人名（カナ）は全角カタカナで入力してください"],
  ])("%s = %j → %s", (id, value, message) => {
    render(<RegistrationForm {...props} />);
    fireEvent.change(input(id), { target: { value } });
    expect(errorOf(id)).toBe(message);
  });

  it("asks for a prefecture when the choice is cleared", () => {
    render(<RegistrationForm {...props} />);
    fireEvent.change(select("address_state"), { target: { value: "" } });
    expect(errorOf("address_state")).toBe("所在地の都道府県を選択してください");
  });

  it("fills the prefecture and city once seven digits are typed", async () => {
    render(<RegistrationForm {...props} />);
    const postal = input("representative_postal_code");
    fireEvent.input(postal, { target: { value: "100-000" } });
    expect(fetchMock).not.toHaveBeenCalled();
    fireEvent.input(postal, { target: { value: "100-0001" } });
    await waitFor(() => expect(select("representative_address_state").value).toBe("東京都"));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][0]).toBe("/api/v1/postal_codes/1000001");
    expect(input("representative_address_city").value).toBe("千代田区");
    expect(statusOf("representative_postal_code")).toBe("郵便番号から住所を入力しました：東京都千代田区");
    expect(document.getElementById("representative_postal_code-status")!.getAttribute("role")).toBe("status");
    expect(document.activeElement).not.toBe(input("representative_address_street")); // typing does not move the focus
    // The same digits again do not look up again.
    fireEvent.input(postal, { target: { value: "1000001" } });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("says so when a typed code is unknown, without calling it an error", async () => {
    fetchMock.mockImplementation(async () => jsonResponse(404, { status: "not_found" }));
    render(<RegistrationForm {...props} />);
    fireEvent.input(input("postal_code"), { target: { value: "9999999" } });
    await waitFor(() => expect(statusOf("postal_code")).toBe(props.postalNotFound));
    expect(errorOf("postal_code")).toBe("");
    expect(document.getElementById("postal_code-status")!.className).toContain("field__status--note");
  });

  it("looks up with 住所を検索 without submitting, then moves on to the street", async () => {
    render(<RegistrationForm {...props} />);
    const submitted = vi.fn((e: Event) => e.preventDefault());
    document.querySelector("form")!.addEventListener("submit", submitted);
    fireEvent.change(input("representative_postal_code"), { target: { value: "〒100-0001" } });
    fireEvent.click(screen.getByRole("button", { name: "住所を検索（代表者の住所）" }));
    await waitFor(() => expect(document.activeElement).toBe(input("representative_address_street")));
    expect(select("representative_address_state").value).toBe("東京都");
    expect(submitted).not.toHaveBeenCalled();
  });

  it("shows the server's messages when 住所を検索 cannot look up", async () => {
    render(<RegistrationForm {...props} />);
    const button = screen.getByRole("button", { name: "住所を検索（所在地）" });
    fireEvent.change(input("postal_code"), { target: { value: "123" } });
    fireEvent.click(button);
    expect(errorOf("postal_code")).toBe("所在地の郵便番号は7桁の数字で入力してください（例：100-0001）");
    expect(fetchMock).not.toHaveBeenCalled();

    fetchMock.mockImplementation(async () => jsonResponse(404, { status: "not_found" }));
    fireEvent.change(input("postal_code"), { target: { value: "9999999" } });
    fireEvent.click(button);
    await waitFor(() => expect(errorOf("postal_code")).toBe(props.postalNotFound));

    fetchMock.mockImplementation(async () => {
      throw new TypeError("network down");
    });
    fireEvent.change(input("postal_code"), { target: { value: "1000002" } });
    await act(async () => {
      fireEvent.click(button);
    });
    await waitFor(() => expect(errorOf("postal_code")).toBe(LOOKUP_FAILED));
  });
});
