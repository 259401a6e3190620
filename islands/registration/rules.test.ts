import { describe, expect, it } from "vitest";
import {
  checkField,
  isFullWidthKatakana,
  normaliseCode,
  normalisePhone,
  normaliseSpaces,
  postalDigits,
  toKatakana,
  validCorporateNumber,
  type FieldRule,
} from "./rules";

const kana: FieldRule = {
  kind: "kana",
  maxLength: 50,
  required: "法人名（カナ）を入力してください",
  tooLong: "法人名（カナ）は50文字以内で入力してください",
  format: "法人名（カナ）は全角カタカナで入力してください",
};

describe("toKatakana (pay.ToFullWidthKatakana)", () => {
  it.each([
    ["やまだ", "ヤマダ"],
    ["ﾔﾏﾀﾞ ﾀﾛｳ", "ヤマダ　タロウ"],
    ["ﾊﾟﾋﾟﾌﾟ", "パピプ"],
    ["  カブシキ   ガイシャ ", "カブシキ　ガイシャ"],
    ["ゔぁ", "ヴァ"],
    ["か\u3099", "ガ"],
    ["山田", "山田"],
  ])("%s → %s", (input, want) => {
    expect(toKatakana(input)).toBe(want);
  });
});

describe("isFullWidthKatakana", () => {
  it.each([
    ["ヤマダ", true],
    ["ヤマダ　タロウ", true],
    ["ビー・エム・ダブリュー", true],
    ["", false],
    ["　ヤマダ", false],
    ["ヤマダ　　タロウ", false],
    ["やまだ", false],
    ["ﾔﾏﾀﾞ", false],
    ["山田", false],
    ["YAMADA", false],
  ])("%s → %s", (s, want) => {
    expect(isFullWidthKatakana(s)).toBe(want);
  });
});

describe("codes", () => {
  it("normalises as pay.NormalizeCode does", () => {
    expect(normaliseCode("１００－０００１")).toBe("1000001");
    expect(normaliseCode("t 123-4")).toBe("T1234");
    expect(postalDigits("〒100-0001")).toBe("1000001");
    expect(normaliseSpaces("a \t b　 c")).toBe("a b　c");
  });
  it("normalises phone numbers", () => {
    expect(normalisePhone("03(1234)5678")).toBe("0312345678");
    expect(normalisePhone("+81 3 1234 5678")).toBe("0312345678");
    expect(normalisePhone("+81(0)3-1234-5678")).toBe("0312345678");
    expect(normalisePhone("０９０－１２３４－５６７８")).toBe("09012345678");
  });
  it("checks the corporate number's check digit", () => {
    expect(validCorporateNumber("7000012050002")).toBe(true);
    expect(validCorporateNumber("1234567890123")).toBe(false);
    expect(validCorporateNumber("700001205000")).toBe(false);
  });
});

describe("checkField", () => {
  it("kana: required, length, then katakana", () => {
    expect(checkField("  ", kana)).toBe(kana.required);
    expect(checkField("ア".repeat(51), kana)).toBe(kana.tooLong);
    expect(checkField("ア".repeat(50), kana)).toBe("");
    expect(checkField("山田商事", kana)).toBe(kana.format);
    expect(checkField("やまだしょうじ", kana)).toBe("");
  });
  it("names and addresses count characters, not bytes or UTF-16 units", () => {
    const name: FieldRule = { kind: "name", maxLength: 50, required: "法人名を入力してください", tooLong: "法人名は50文字以内で入力してください" };
    expect(checkField("𠮷".repeat(50), name)).toBe("");
    expect(checkField("𠮷".repeat(51), name)).toBe(name.tooLong);
    expect(checkField("", name)).toBe(name.required);
  });
  it("an optional field may be empty", () => {
    expect(checkField("", { ...kana, required: undefined })).toBe("");
    expect(checkField("漢字", { ...kana, required: undefined })).toBe(kana.format);
  });
  it("postal codes, phones and corporate numbers need their digits", () => {
    const postal: FieldRule = { kind: "postal", required: "r", format: "f" };
    expect(checkField("〒１００－０００１", postal)).toBe("");
    expect(checkField("100-001", postal)).toBe("f");
    const phone: FieldRule = { kind: "phone", required: "r", format: "f" };
    expect(checkField("03-1234-5678", phone)).toBe("");
    expect(checkField("090-1234-5678", phone)).toBe("");
    expect(checkField("12-3456", phone)).toBe("f");
    const corp: FieldRule = { kind: "corporate_number", required: "r", format: "f" };
    expect(checkField("7000-0120-50002", corp)).toBe("");
    expect(checkField("1234567890123", corp)).toBe("f");
  });
  it("dates and selects only need a value", () => {
    expect(checkField("", { kind: "prefecture", required: "所在地の都道府県を選択してください" })).toBe("所在地の都道府県を選択してください");
    expect(checkField("東京都", { kind: "prefecture", required: "x" })).toBe("");
    expect(checkField("", { kind: "birthday", required: "b" })).toBe("b");
  });
});
