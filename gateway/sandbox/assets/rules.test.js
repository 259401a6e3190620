// The card-fields page's rules (rules.js), tested as the card-entry island's rules.ts was
// (islands/card-entry/rules.test.ts, which moved here with them in issue 27). Run with
//   npx vitest run --config islands/vitest.config.ts gateway/sandbox
import { describe, expect, it } from "vitest";
import {
  acceptedBrands,
  brandFromPrefix,
  brandOf,
  checkCvc,
  checkExpiry,
  checkName,
  checkNumber,
  DEFAULT_ACCEPTED,
  detectCardType,
  formatExpiry,
  groupDigits,
  luhnValid,
  MESSAGES,
  normaliseDigits,
  normaliseName,
  parseExpiry,
  refusalMessage,
  regroup,
  TYPE_CODES,
} from "./rules.js";

/** Appends the Luhn check digit. */
function withCheckDigit(body) {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error("unreachable");
}

// The README's test-card table (cards.go): every number is Luhn-valid.
const TEST_CARDS = [
  ["4111 1111 1111 1111", "VISA"],
  ["3530 1113 3330 0000", "JCB"],
  ["5555 5555 5555 4444", "MASTER"],
  ["4000 0000 0000 3220", "VISA"],
  ["3566 0020 2036 0505", "JCB"],
  ["4000 0084 0000 1629", "VISA"],
  ["4000 0000 0000 9995", "VISA"],
  ["4000 0000 0000 9979", "VISA"],
  ["4000 0000 0000 0069", "VISA"],
  ["4000 0000 0000 0127", "VISA"],
  ["5105 1051 0510 5100", "MASTER"],
  ["4000 0000 0000 0119", "VISA"],
  ["4000 0000 0000 0259", "VISA"],
  ["3782 822463 10005", "AMEX"],
  ["3622 720627 1667", "DINERS"],
];

const ACCEPTED = [...DEFAULT_ACCEPTED];
const HINT = "JCB、VISA、Mastercard のカードをご利用ください。";

describe("brand detection", () => {
  it.each([
    ["4", "VISA"],
    ["35", "JCB"],
    ["5", "MASTER"],
    ["37", "AMEX"],
    ["36", "DINERS"],
    ["3", ""],
    ["6", ""],
    ["", ""],
    ["4a", ""],
  ])("SPEC.md §5 prefix %j → %j (pay.BrandFromNumber)", (digits, code) => {
    expect(brandFromPrefix(digits)).toBe(code);
  });

  // One number of every type the detector knows (SPEC.md §5's list), with our code for it.
  const DETECTED = [
    ["4111111111111111", "visa", "VISA", "VISA"],
    ["5555555555554444", "mastercard", "MASTER", "Mastercard"],
    ["2221000000000009", "mastercard", "MASTER", "Mastercard"],
    ["378282246310005", "american-express", "AMEX", "American Express"],
    ["340000000000009", "american-express", "AMEX", "American Express"],
    ["36227206271667", "diners-club", "DINERS", "Diners Club"],
    ["30569309025904", "diners-club", "DINERS", "Diners Club"],
    ["6011111111111117", "discover", "", "Discover"],
    ["3530111333300000", "jcb", "JCB", "JCB"],
    ["6200000000000005", "unionpay", "", "UnionPay"],
    ["6759649826438453", "maestro", "", "Maestro"],
    ["5018000000000009", "maestro", "", "Maestro"],
    [withCheckDigit("401178000000000"), "elo", "", "Elo"],
    [withCheckDigit("636368000000000"), "elo", "", "Elo"],
    ["2200000000000004", "mir", "", "Mir"],
    ["6370950000000005", "hiper", "", "Hiper"],
    ["6062826786276634", "hipercard", "", "Hipercard"],
    [withCheckDigit("650002000000000"), "verve", "", "Verve"],
    [withCheckDigit("506099000000000"), "verve", "", "Verve"],
  ];

  it.each(DETECTED)("%s is %s (%j, named %s)", (digits, type, code, label) => {
    expect(luhnValid(digits)).toBe(true);
    expect(detectCardType(digits)).toBe(type);
    expect(brandOf(digits)).toEqual({ code, type, label });
  });

  it("covers every detector type of SPEC.md §5, mapped as pay.BrandFromDetectorType maps them", () => {
    const types = new Set(DETECTED.map(([, t]) => t));
    expect([...types].sort()).toEqual(Object.keys(TYPE_CODES).sort());
    expect(TYPE_CODES).toEqual({
      visa: "VISA",
      mastercard: "MASTER",
      "american-express": "AMEX",
      "diners-club": "DINERS",
      jcb: "JCB",
      discover: "",
      unionpay: "",
      maestro: "",
      elo: "",
      mir: "",
      hiper: "",
      hipercard: "",
      verve: "",
    });
  });

  it.each(TEST_CARDS)("test card %s is Luhn-valid and %s", (number, code) => {
    const digits = normaliseDigits(number);
    expect(luhnValid(digits)).toBe(true);
    expect(brandOf(digits)?.code).toBe(code);
  });

  it("names the brand from the first digits while they are typed", () => {
    // Ambiguous for the detector ("4" could become an Elo 401178…): SPEC.md's prefix names it.
    expect(detectCardType("4")).toBeNull();
    expect(brandOf("4")).toEqual({ code: "VISA", type: null, label: "VISA" });
    expect(brandOf("4011")).toEqual({ code: "VISA", type: null, label: "VISA" });
    expect(brandOf("41")?.type).toBe("visa");
    expect(brandOf("5")).toEqual({ code: "MASTER", type: null, label: "Mastercard" });
    expect(brandOf("55")?.type).toBe("mastercard");
    expect(brandOf("56")?.type).toBe("maestro");
    expect(brandOf("35")?.code).toBe("JCB");
    expect(brandOf("34")?.code).toBe("AMEX");
    expect(brandOf("37")?.code).toBe("AMEX");
    expect(brandOf("36")?.code).toBe("DINERS");
    expect(brandOf("3")).toBeNull();
    expect(brandOf("6")).toBeNull();
    expect(brandOf("9")).toBeNull();
    expect(brandOf("")).toBeNull();
    // The longer range wins once it is typed in full.
    expect(brandOf("6500")).toBeNull();
    expect(brandOf("650099")?.type).toBe("discover");
    expect(brandOf("650031")?.type).toBe("elo");
    expect(brandOf("384100")?.type).toBe("hipercard");
    expect(brandOf("3841")).toBeNull();
    expect(brandOf("38")).toBeNull();
    expect(brandOf("3800")?.type).toBe("diners-club");
  });
});

describe("refusal", () => {
  it("matches pay.CardBrand.RefusalMessage for AMEX, DINERS and an unknown card", () => {
    expect(refusalMessage(brandOf("37"), ACCEPTED)).toBe("American Express はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。");
    expect(refusalMessage(brandOf("36"), ACCEPTED)).toBe("Diners Club はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。");
    expect(refusalMessage(null, ACCEPTED)).toBe("このカードはご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。");
    for (const b of ["4", "35", "55"]) expect(refusalMessage(brandOf(b), ACCEPTED)).toBe("");
  });

  it("names the other detected brands", () => {
    expect(refusalMessage(brandOf("6011"), ACCEPTED)).toBe(`Discover はご利用いただけません。${HINT}`);
    expect(refusalMessage(brandOf("6200"), ACCEPTED)).toBe(`UnionPay はご利用いただけません。${HINT}`);
    expect(refusalMessage(brandOf("2200"), ACCEPTED)).toBe(`Mir はご利用いただけません。${HINT}`);
  });

  it("follows the accepted brands of the props", () => {
    expect(acceptedBrands(null)).toEqual(["JCB", "VISA", "MASTER"]);
    expect(acceptedBrands(["VISA", "NOPE"])).toEqual(["VISA"]);
    expect(refusalMessage(brandOf("35"), ["VISA"])).toBe("JCB はご利用いただけません。VISA のカードをご利用ください。");
  });
});

describe("grouping", () => {
  it.each([
    ["4111111111111111", "4111 1111 1111 1111"],
    ["41111", "4111 1"],
    ["4111", "4111"],
    ["3530111333300000", "3530 1113 3330 0000"],
    ["378282246310005", "3782 822463 10005"],
    ["37828", "3782 8"],
    ["3782822463", "3782 822463"],
    ["37828224631", "3782 822463 1"],
    ["36227206271667", "3622 720627 1667"],
    ["4000000000000000006", "4000 0000 0000 0000 006"],
    ["", ""],
  ])("%s → %j", (digits, grouped) => {
    expect(groupDigits(digits)).toBe(grouped);
  });

  it("regroups what is typed or pasted and keeps the caret after the same digits", () => {
    // Typing the fifth digit at the end.
    expect(regroup("41111", 5)).toEqual({ value: "4111 1", caret: 6 });
    // A digit typed in the middle ("4111 1|111" → one more 2 after the fifth digit).
    expect(regroup("4111 12111", 7)).toEqual({ value: "4111 1211 1", caret: 7 });
    // Pasted with hyphens and full-width digits, 20 digits: cut to 19.
    expect(regroup("４１１１-1111-1111-1111-1111", 24)).toEqual({ value: "4111 1111 1111 1111 111", caret: 23 });
    // Letters are dropped.
    expect(regroup("4a1", 3)).toEqual({ value: "41", caret: 2 });
    // The caret at the start stays there.
    expect(regroup("94111", 1)).toEqual({ value: "9411 1", caret: 1 });
  });

  it("makes Backspace and Delete next to a space remove a digit", () => {
    // "4111 |1111": Backspace removed the space → "4111|1111"; the 4th digit goes instead.
    expect(regroup("41111111", 4, "backward")).toEqual({ value: "4111 111", caret: 3 });
    // "4111| 1111": Delete removed the space; the 5th digit goes.
    expect(regroup("41111111", 4, "forward")).toEqual({ value: "4111 111", caret: 4 });
  });
});

describe("Luhn", () => {
  it("accepts valid numbers and refuses one wrong digit or a swap", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("4111111111111121")).toBe(false);
    expect(luhnValid("79927398713")).toBe(true);
    expect(luhnValid("")).toBe(false);
    expect(luhnValid("4111-1111")).toBe(false);
  });
});

describe("checkNumber", () => {
  it.each([
    ["", MESSAGES.numberRequired],
    ["   ", MESSAGES.numberRequired],
    ["4111 1111 1111 111x", MESSAGES.numberFormat],
    ["4111 1111 1111 1111", ""],
    ["４１１１　１１１１　１１１１　１１１１", ""],
    ["4111-1111-1111-1111", ""],
    ["3530 1113 3330 0000", ""],
    ["5555 5555 5555 4444", ""],
    ["4111 1111 1111 1112", MESSAGES.numberInvalid],
    ["4111 1111 1111", MESSAGES.numberLength],
    ["5555 5555 5555 44444", MESSAGES.numberLength],
    // A brand we do not take is said first, however incomplete the number.
    ["3782 822463 10005", `American Express はご利用いただけません。${HINT}`],
    ["37", `American Express はご利用いただけません。${HINT}`],
    ["3622 720627 1667", `Diners Club はご利用いただけません。${HINT}`],
    ["6011 1111 1111 1117", `Discover はご利用いただけません。${HINT}`],
    ["5018 0000 0000 0009", `Maestro はご利用いただけません。${HINT}`],
    // Unknown to every table: a typo unless it is a well-formed card.
    ["9111 1111 1111 1111", MESSAGES.numberInvalid],
    [withCheckDigit("911111111111111"), `このカードはご利用いただけません。${HINT}`],
  ])("%j → %j", (value, message) => {
    expect(checkNumber(value, ACCEPTED)).toBe(message);
  });
});

describe("expiry", () => {
  const now = new Date(2026, 10, 23); // 2026年11月

  it.each([
    ["09/28", { month: 9, year: 2028 }],
    ["9/28", { month: 9, year: 2028 }],
    ["0928", { month: 9, year: 2028 }],
    ["09/2028", { month: 9, year: 2028 }],
    ["092028", { month: 9, year: 2028 }],
    [" ０９／２８ ", { month: 9, year: 2028 }],
    ["09 / 28", { month: 9, year: 2028 }],
    ["13/28", null],
    ["00/28", null],
    ["9/2", null],
    ["928", null],
    ["ab/cd", null],
  ])("%j → %j", (value, expiry) => {
    expect(parseExpiry(value)).toEqual(expiry);
  });

  it("formats as MM/YY", () => {
    expect(formatExpiry({ month: 9, year: 2028 })).toBe("09/28");
    expect(formatExpiry({ month: 12, year: 2030 })).toBe("12/30");
  });

  it.each([
    ["", MESSAGES.expRequired],
    ["9/", MESSAGES.expFormat],
    ["13/27", MESSAGES.expFormat],
    ["10/26", MESSAGES.expPast],
    ["12/25", MESSAGES.expPast],
    ["11/26", ""], // valid to the end of this month
    ["12/26", ""],
    ["11/46", ""],
    ["12/46", MESSAGES.expFar],
  ])("%j on 2026-11-23 → %j", (value, message) => {
    expect(checkExpiry(value, now)).toBe(message);
  });
});

describe("security code and holder name", () => {
  it.each([
    ["", MESSAGES.cvcRequired],
    ["123", ""],
    ["０１２", ""],
    ["12", MESSAGES.cvcFormat],
    ["1234", MESSAGES.cvcFormat],
    ["12a", MESSAGES.cvcFormat],
  ])("security code %j → %j", (value, message) => {
    expect(checkCvc(value)).toBe(message);
  });

  it("writes the name as embossed: half-width upper case, single spaces", () => {
    expect(normaliseName("  taro   yamada ")).toBe("TARO YAMADA");
    expect(normaliseName("ＴＡＲＯ　ＹＡＭＡＤＡ")).toBe("TARO YAMADA");
  });

  it.each([
    ["", MESSAGES.nameRequired],
    ["taro yamada", ""],
    ["TARO YAMADA", ""],
    ["山田 太郎", MESSAGES.nameFormat],
    ["ﾀﾛｳ", MESSAGES.nameFormat],
    ["TARO2", MESSAGES.nameFormat],
    ["A".repeat(45), ""],
    ["A".repeat(46), MESSAGES.nameTooLong],
  ])("name %j → %j", (value, message) => {
    expect(checkName(value)).toBe(message);
  });
});
