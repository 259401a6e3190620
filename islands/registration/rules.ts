// The checks the registration island runs when a field changes (SPEC.md §5: on change only).
// They mirror account.Registration's Normalise and Validate for the simple rules — required,
// length, katakana, digits — and take every message from the props, which the server
// derives from Validate itself, so the island and the server say the same thing. The
// server checks everything again on submit (check digits of dates, ages, prefectures…).

export interface FieldRule {
  /** name, kana, address, postal, phone, corporate_number, birthday, prefecture or category. */
  kind: string;
  maxLength?: number;
  /** Message for an empty value; missing for an optional field. */
  required?: string;
  tooLong?: string;
  /** Message for a value of the wrong shape. */
  format?: string;
}

const IDEOGRAPHIC_SPACE = "\u3000";

/** pay.NormalizeSpaces: trims, and collapses each run of spaces to one (full-width if the run had one). */
export function normaliseSpaces(s: string): string {
  return s.trim().replace(/\s+/g, (run) => (run.includes(IDEOGRAPHIC_SPACE) ? IDEOGRAPHIC_SPACE : " "));
}

// U+FF61 (｡) … U+FF9F (ﾟ) in code-point order, as pay/kana.go maps them.
const HALF_WIDTH_KANA = [
  ..."。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜",
];

function pairs(s: string): Map<string, string> {
  const cs = [...s];
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < cs.length; i += 2) m.set(cs[i], cs[i + 1]);
  return m;
}
const VOICED = pairs("カガキギクグケゲコゴサザシジスズセゼソゾタダチヂツヅテデトドハバヒビフブヘベホボウヴワヷヰヸヱヹヲヺヽヾ");
const SEMI_VOICED = pairs("ハパヒピフプヘペホポ");

/** pay.ToFullWidthKatakana: hiragana and half-width katakana become full-width katakana. */
export function toKatakana(s: string): string {
  const out: string[] = [];
  for (const ch of normaliseSpaces(s)) {
    let c = ch;
    const cp = c.codePointAt(0)!;
    if (c === " ") c = IDEOGRAPHIC_SPACE;
    else if ((cp >= 0x3041 && cp <= 0x3096) || c === "ゝ" || c === "ゞ") c = String.fromCodePoint(cp + 0x60);
    else if (cp >= 0xff61 && cp <= 0xff9f) c = HALF_WIDTH_KANA[cp - 0xff61];
    const isMark = c === "゛" || c === "゜" || c === "\u3099" || c === "\u309a";
    if (isMark && out.length > 0) {
      const table = c === "゛" || c === "\u3099" ? VOICED : SEMI_VOICED;
      const composed = table.get(out[out.length - 1]);
      if (composed) {
        out[out.length - 1] = composed;
        continue;
      }
    }
    out.push(c);
  }
  return out.join("");
}

/** pay.IsFullWidthKatakana: katakana words (U+30A0–U+30FF) separated by single full-width spaces. */
export function isFullWidthKatakana(s: string): boolean {
  return /^[\u30a0-\u30ff]+(\u3000[\u30a0-\u30ff]+)*$/.test(s);
}

const HYPHENS = new Set(["-", "‐", "‑", "‒", "–", "—", "―", "−", "－", "ー", "ｰ"]);

/** pay.NormalizeCode: full-width to ASCII, upper case, no spaces or hyphens. */
export function normaliseCode(s: string): string {
  let out = "";
  for (const ch of s) {
    if (/\s/.test(ch) || HYPHENS.has(ch)) continue;
    const cp = ch.codePointAt(0)!;
    out += (cp >= 0xff01 && cp <= 0xff5e ? String.fromCodePoint(cp - 0xfee0) : ch).toUpperCase();
  }
  return out;
}

/** The seven digits of a postal code as people write it (〒100-0001, １０００００１), or what is left. */
export function postalDigits(s: string): string {
  return normaliseCode(s.trim().replace(/^〒/, ""));
}

/** pay's normalisePhone: 03-1234-5678, 03(1234)5678, +81 3 1234 5678 → 0312345678. */
export function normalisePhone(s: string): string {
  const v = normaliseCode(s).replace(/[()]/g, "");
  if (v.startsWith("+810")) return v.slice(3);
  if (v.startsWith("+81")) return "0" + v.slice(3);
  return v;
}

/** pay.ValidCorporateNumber: 13 digits whose first is the check digit of the other twelve. */
export function validCorporateNumber(s: string): boolean {
  if (!/^\d{13}$/.test(s)) return false;
  let sum = 0;
  for (let n = 1; n <= 12; n++) sum += Number(s[13 - n]) * (n % 2 === 0 ? 2 : 1);
  return Number(s[0]) === 9 - (sum % 9);
}

function length(s: string): number {
  return [...s].length;
}

/** The message for value under rule, or "" when the island finds nothing wrong. */
export function checkField(value: string, rule: FieldRule): string {
  const required = rule.required ?? "";
  const tooLong = (v: string) => (rule.maxLength && length(v) > rule.maxLength ? (rule.tooLong ?? "") : "");
  switch (rule.kind) {
    case "name":
    case "address": {
      const v = normaliseSpaces(value);
      return v === "" ? required : tooLong(v);
    }
    case "kana": {
      const v = toKatakana(value);
      if (v === "") return required;
      return tooLong(v) || (isFullWidthKatakana(v) ? "" : (rule.format ?? ""));
    }
    case "postal": {
      const v = postalDigits(value);
      if (v === "") return required;
      return /^\d{7}$/.test(v) ? "" : (rule.format ?? "");
    }
    case "phone": {
      const v = normalisePhone(value);
      if (v === "") return required;
      return /^0\d{9,10}$/.test(v) ? "" : (rule.format ?? "");
    }
    case "corporate_number": {
      const v = normaliseCode(value);
      if (v === "") return required;
      return validCorporateNumber(v) ? "" : (rule.format ?? "");
    }
    default:
      // Dates, prefectures and categories: whether one was given; the server checks the rest.
      return value.trim() === "" ? required : "";
  }
}
