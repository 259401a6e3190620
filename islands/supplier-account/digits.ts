// Digits as people type them, read the way the server reads them (pay.NormalizeCode):
// full-width digits become ASCII, spaces and hyphen-like marks go (1234-567, １２３４５６７).

const HYPHENS_AND_SPACES = /[\s\-‐‑‒–—―−－ーｰ]/g;
const FULL_WIDTH_DIGIT = /[０-９]/g;

export function asciiDigits(s: string): string {
  return s.replace(HYPHENS_AND_SPACES, "").replace(FULL_WIDTH_DIGIT, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));
}

/** s as a code of exactly n digits (a bank's 4, a branch's 3), or "". */
export function codeOf(s: string, n: number): string {
  const d = asciiDigits(s);
  return d.length === n && /^\d+$/.test(d) ? d : "";
}

// The server's messages (pay.ErrAccountNumberRequired, pay.ErrAccountNumberFormat).
export const ACCOUNT_NUMBER_REQUIRED = "口座番号を入力してください";
export const ACCOUNT_NUMBER_FORMAT = "口座番号は7桁の数字で入力してください";

/** The message for an account number as typed, or "" when it is 7 digits. */
export function checkAccountNumber(s: string): string {
  if (s.trim() === "") return ACCOUNT_NUMBER_REQUIRED;
  return codeOf(s, 7) ? "" : ACCOUNT_NUMBER_FORMAT;
}
