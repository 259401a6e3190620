import { describe, expect, it } from "vitest";
import { asciiDigits, checkAccountNumber, codeOf } from "./digits";

describe("digits", () => {
  it.each([
    ["1234567", "1234567"],
    ["１２３４５６７", "1234567"],
    ["1234-567", "1234567"],
    [" 123 ４５６ー7 ", "1234567"],
  ])("asciiDigits(%j) = %j", (s, want) => expect(asciiDigits(s)).toBe(want));

  it.each([
    ["0001", 4, "0001"],
    ["０００１", 4, "0001"],
    ["001", 4, ""],
    ["みずほ", 4, ""],
    ["12a", 3, ""],
    ["123", 3, "123"],
  ])("codeOf(%j, %d) = %j", (s, n, want) => expect(codeOf(s, n)).toBe(want));

  it.each([
    ["", "口座番号を入力してください"],
    ["  ", "口座番号を入力してください"],
    ["123456", "口座番号は7桁の数字で入力してください"],
    ["12345678", "口座番号は7桁の数字で入力してください"],
    ["12345a7", "口座番号は7桁の数字で入力してください"],
    ["0123456", ""],
    ["１２３４５６７", ""],
  ])("checkAccountNumber(%j) = %j", (s, want) => expect(checkAccountNumber(s)).toBe(want));
});
