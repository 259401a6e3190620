// The card-fields page's rules: brand detection, grouping, Luhn, expiry, security code and
// holder name. They only help the buyer type a card correctly before it is sent; the
// sandbox's POST /fields/{id} decides (check() in cards.go checks the number, the brand and
// the expiry again, SPEC.md §5). Plain JavaScript (an ES module served from the sandbox's
// own origin), ported from the card-entry island's rules.ts when card entry moved into the
// PSP's frame (issue 27); rules.test.js holds its tests.
//
// Brands follow pay/card.go: BrandFromNumber's SPEC.md §5 prefixes (4 VISA, 35 JCB, 5 MASTER,
// 37 AMEX, 36 DINERS) and BrandFromDetectorType's mapping of detector type names. The detector
// is our own table of well-known IIN ranges (the type names are the npm credit-card-type ones,
// which we do not depend on).
/** pay.AcceptedBrands, in the order buyers see them. */
export const DEFAULT_ACCEPTED = ["JCB", "VISA", "MASTER"];
/** pay's brandLabels: the brand's name as printed on cards. */
export const BRAND_LABELS = {
    VISA: "VISA",
    JCB: "JCB",
    MASTER: "Mastercard",
    AMEX: "American Express",
    DINERS: "Diners Club",
};
/** pay.BrandFromDetectorType: types we have no code for map to "". */
export const TYPE_CODES = {
    visa: "VISA",
    mastercard: "MASTER",
    "american-express": "AMEX",
    "diners-club": "DINERS",
    discover: "",
    jcb: "JCB",
    unionpay: "",
    maestro: "",
    elo: "",
    mir: "",
    hiper: "",
    hipercard: "",
    verve: "",
};
/** Names for the types without a code, so that a refused card is named, not called a typo. */
const TYPE_LABELS = {
    visa: BRAND_LABELS.VISA,
    mastercard: BRAND_LABELS.MASTER,
    "american-express": BRAND_LABELS.AMEX,
    "diners-club": BRAND_LABELS.DINERS,
    discover: "Discover",
    jcb: BRAND_LABELS.JCB,
    unionpay: "UnionPay",
    maestro: "Maestro",
    elo: "Elo",
    mir: "Mir",
    hiper: "Hiper",
    hipercard: "Hipercard",
    verve: "Verve",
};
// Well-known IIN ranges. Where ranges overlap (Elo inside VISA's 4, Hipercard inside Diners'
// 38, Verve and Elo inside Discover's 65) the longest matching prefix wins, as issuers assign
// them.
const TYPES = [
    { type: "visa", patterns: ["4"], lengths: [13, 16, 19] },
    { type: "mastercard", patterns: [["51", "55"], ["2221", "2720"]], lengths: [16] },
    { type: "american-express", patterns: ["34", "37"], lengths: [15] },
    { type: "diners-club", patterns: [["300", "305"], "3095", "36", ["38", "39"]], lengths: [14, 16, 19] },
    { type: "discover", patterns: ["6011", ["644", "649"], "65"], lengths: [16, 19] },
    { type: "jcb", patterns: [["3528", "3589"]], lengths: [16, 17, 18, 19] },
    { type: "unionpay", patterns: ["62", ["8100", "8171"]], lengths: [16, 17, 18, 19] },
    {
        type: "maestro",
        patterns: ["5018", "5020", "5038", "5893", "6304", "639", "67", ["56", "58"]],
        lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    },
    {
        type: "elo",
        patterns: [
            "401178", "401179", "431274", "438935", "451416", "457393", "457631", "457632", "504175",
            ["506699", "506778"], ["509000", "509999"], "627780", "636297", "636368",
            ["650031", "650033"], ["650035", "650051"], ["650405", "650439"], ["650485", "650538"],
            ["650541", "650598"], ["650700", "650718"], ["650720", "650727"], ["650901", "650978"],
            ["651652", "651679"], ["655000", "655019"], ["655021", "655058"],
        ],
        lengths: [16],
    },
    { type: "mir", patterns: [["2200", "2204"]], lengths: [16, 17, 18, 19] },
    {
        type: "hiper",
        patterns: ["637095", "63737423", "63743358", "637568", "637599", "637609", "637612"],
        lengths: [16],
    },
    { type: "hipercard", patterns: ["606282", "384100", "384140", "384160"], lengths: [16, 19] },
    { type: "verve", patterns: [["506099", "506198"], ["507865", "507964"], ["650002", "650027"]], lengths: [16, 18, 19] },
];
/** How a pattern relates to the digits typed so far. */
function patternMatch(digits, p) {
    const [lo, hi] = typeof p === "string" ? [p, p] : p;
    const n = Math.min(digits.length, lo.length);
    const head = digits.slice(0, n);
    if (head < lo.slice(0, n) || head > hi.slice(0, n))
        return "none";
    return digits.length >= lo.length ? "full" : "partial";
}
/**
 * The card type of a number (digits only, possibly still being typed), or null while it is
 * ambiguous or unknown. Like credit-card-type: one candidate is the answer; among several,
 * the longest prefix wins once every candidate is matched in full (until then a longer range
 * may still claim the number).
 */
export function detectCardType(digits) {
    if (!/^\d+$/.test(digits))
        return null;
    const candidates = [];
    for (const t of TYPES) {
        let strength = -1;
        for (const p of t.patterns) {
            const m = patternMatch(digits, p);
            if (m === "full")
                strength = Math.max(strength, (typeof p === "string" ? p : p[0]).length);
            else if (m === "partial")
                strength = Math.max(strength, 0);
        }
        if (strength >= 0)
            candidates.push({ type: t.type, strength });
    }
    if (candidates.length === 0)
        return null;
    if (candidates.length === 1)
        return candidates[0].type;
    if (candidates.some((c) => c.strength === 0))
        return null;
    // The first of the strongest: TYPES order breaks ties.
    return candidates.reduce((best, c) => (c.strength > best.strength ? c : best)).type;
}
/** pay.BrandFromNumber: SPEC.md §5's prefixes, two-digit ones first. */
export function brandFromPrefix(digits) {
    if (!/^\d+$/.test(digits))
        return "";
    if (digits.startsWith("35"))
        return "JCB";
    if (digits.startsWith("36"))
        return "DINERS";
    if (digits.startsWith("37"))
        return "AMEX";
    if (digits.startsWith("4"))
        return "VISA";
    if (digits.startsWith("5"))
        return "MASTER";
    return "";
}
/**
 * The brand of a number: the detector's type when it has one (the most specific answer, so
 * a Maestro 5018… is not taken for a Mastercard), else SPEC.md's prefixes, which name the
 * brand while the first digits are still ambiguous ("4" could yet become an Elo 401178…).
 */
export function brandOf(digits) {
    const type = detectCardType(digits);
    if (type)
        return { code: TYPE_CODES[type], type, label: TYPE_LABELS[type] };
    const code = brandFromPrefix(digits);
    return code ? { code, type: null, label: BRAND_LABELS[code] } : null;
}
/** pay's acceptedBrandsHint, from the accepted brands in order. */
export function acceptedHint(accepted) {
    return `${accepted.map((b) => BRAND_LABELS[b] ?? b).join("、")} のカードをご利用ください。`;
}
/** The brands of the props that we know, in their order; pay.AcceptedBrands when none. */
export function acceptedBrands(list) {
    const known = (list ?? []).filter((b) => b in BRAND_LABELS);
    return known.length > 0 ? known : [...DEFAULT_ACCEPTED];
}
/**
 * pay.CardBrand.RefusalMessage: "" for an accepted brand; a recognised brand is named, so the
 * buyer knows it is the brand and not a typo; an unknown one is "このカード".
 */
export function refusalMessage(brand, accepted) {
    if (brand?.code && accepted.includes(brand.code))
        return "";
    if (!brand)
        return `このカードはご利用いただけません。${acceptedHint(accepted)}`;
    return `${brand.label} はご利用いただけません。${acceptedHint(accepted)}`;
}
const HYPHENS = new Set(["-", "‐", "‑", "‒", "–", "—", "―", "−", "－", "ー", "ｰ"]);
/** Full-width digits and letters to ASCII; spaces and hyphens (as people paste numbers) dropped. */
export function normaliseDigits(s) {
    let out = "";
    for (const ch of s) {
        if (/\s/.test(ch) || HYPHENS.has(ch))
            continue;
        const cp = ch.codePointAt(0);
        out += cp >= 0xff01 && cp <= 0xff5e ? String.fromCodePoint(cp - 0xfee0) : ch;
    }
    return out;
}
export const MAX_DIGITS = 19;
/** Where the spaces go: 4-6-5 (AMEX) and 4-6-4 (Diners) as printed on those cards, else fours. */
export function gapsFor(digits) {
    const code = brandOf(digits)?.code;
    if ((code === "AMEX" || code === "DINERS") && digits.length <= 15)
        return [4, 10];
    return [4, 8, 12, 16];
}
/** The digits grouped as on the card: "4111 1111 1111 1111", "3782 822463 10005". */
export function groupDigits(digits) {
    const gaps = gapsFor(digits);
    let out = "";
    for (let i = 0; i < digits.length; i++) {
        if (gaps.includes(i))
            out += " ";
        out += digits[i];
    }
    return out;
}
/**
 * Re-groups a number input's value as it is typed and says where the caret goes: after the
 * same number of digits as before. `deleted` is set when the edit removed only a space (a
 * Backspace or Delete next to one): the digit beyond it goes instead, or the key would seem
 * to do nothing.
 */
export function regroup(value, caret, deleted) {
    let digits = "";
    let before = 0;
    const chars = [...value];
    for (let i = 0; i < chars.length; i++) {
        const d = normaliseDigits(chars[i]);
        if (!/^\d$/.test(d))
            continue;
        digits += d;
        if (i < caret)
            before++;
    }
    if (deleted === "backward" && before > 0) {
        digits = digits.slice(0, before - 1) + digits.slice(before);
        before--;
    }
    else if (deleted === "forward" && before < digits.length) {
        digits = digits.slice(0, before) + digits.slice(before + 1);
    }
    digits = digits.slice(0, MAX_DIGITS);
    before = Math.min(before, digits.length);
    const grouped = groupDigits(digits);
    let pos = 0;
    for (let seen = 0; pos < grouped.length && seen < before; pos++)
        if (grouped[pos] !== " ")
            seen++;
    return { value: grouped, caret: pos };
}
/** The Luhn (mod 10) check every card number carries. */
export function luhnValid(digits) {
    if (!/^\d+$/.test(digits))
        return false;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
        let d = Number(digits[digits.length - 1 - i]);
        if (i % 2 === 1) {
            d *= 2;
            if (d > 9)
                d -= 9;
        }
        sum += d;
    }
    return sum % 10 === 0;
}
export const MESSAGES = {
    numberRequired: "カード番号を入力してください",
    numberFormat: "カード番号は数字で入力してください",
    numberLength: "カード番号の桁数が正しくありません。カードに記載の番号をご確認ください。",
    // gateway.ResultCardNumberInvalid (G030), as the PSP would say it.
    numberInvalid: "カード番号が正しくありません。カードに記載の番号をご確認のうえ、もう一度入力してください。",
    expRequired: "有効期限を入力してください",
    expFormat: "有効期限は「月/年」の形で入力してください（例：09/28）",
    // gateway.ResultExpiredCard (G054).
    expPast: "カードの有効期限が切れています。有効期限をご確認いただくか、別のカードをご利用ください。",
    expFar: "有効期限が正しくありません。カードに記載の有効期限をご確認ください。",
    cvcRequired: "セキュリティコードを入力してください",
    cvcFormat: "セキュリティコードはカード裏面に記載の3桁の数字で入力してください",
    nameRequired: "カード名義を入力してください",
    nameFormat: "カード名義はカードに記載のとおり半角英字で入力してください（例：TARO YAMADA）",
    nameTooLong: "カード名義は45文字以内で入力してください",
    network: "カード情報を送信できませんでした。通信環境をご確認のうえ、もう一度お試しください。",
};
/** The message for a card number, or "" when the island finds nothing wrong. */
export function checkNumber(value, accepted) {
    const digits = normaliseDigits(value);
    if (digits === "")
        return MESSAGES.numberRequired;
    if (!/^\d+$/.test(digits))
        return MESSAGES.numberFormat;
    const brand = brandOf(digits);
    // A brand we do not take is the answer whatever else is wrong: say it first.
    if (brand) {
        const refusal = refusalMessage(brand, accepted);
        if (refusal)
            return refusal;
    }
    const lengths = (brand?.type && TYPES.find((t) => t.type === brand.type)?.lengths) || [];
    const lengthOK = lengths.length > 0 ? lengths.includes(digits.length) : digits.length >= 12 && digits.length <= MAX_DIGITS;
    if (!lengthOK)
        return MESSAGES.numberLength;
    if (!luhnValid(digits))
        return MESSAGES.numberInvalid;
    // A well-formed number no table knows: a brand we do not take.
    return brand ? "" : refusalMessage(null, accepted);
}
/** "09/28", "9/28", "0928", "09/2028" (full-width too) → {9, 2028}; null when not an expiry. */
export function parseExpiry(value) {
    const v = normaliseDigits(value).replace(/[／]/g, "/");
    const m = /^(\d{1,2})\/(\d{2}|\d{4})$/.exec(v) ?? /^(\d{2})(\d{2}|\d{4})$/.exec(v);
    if (!m)
        return null;
    const month = Number(m[1]);
    if (month < 1 || month > 12)
        return null;
    const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    return { month, year };
}
/** MM/YY, the way the card prints it. */
export function formatExpiry(e) {
    return `${String(e.month).padStart(2, "0")}/${String(e.year % 100).padStart(2, "0")}`;
}
/** Cards are issued for at most this many years. */
const MAX_YEARS_AHEAD = 20;
/** The message for an expiry, or "". A card is valid to the end of its month. */
export function checkExpiry(value, now = new Date()) {
    if (value.trim() === "")
        return MESSAGES.expRequired;
    const e = parseExpiry(value);
    if (!e)
        return MESSAGES.expFormat;
    const thisMonth = now.getFullYear() * 12 + now.getMonth();
    const expiry = e.year * 12 + (e.month - 1);
    if (expiry < thisMonth)
        return MESSAGES.expPast;
    if (expiry > thisMonth + MAX_YEARS_AHEAD * 12)
        return MESSAGES.expFar;
    return "";
}
/** The message for a security code, or "". */
export function checkCvc(value) {
    const v = normaliseDigits(value);
    if (v === "")
        return MESSAGES.cvcRequired;
    return /^\d{3}$/.test(v) ? "" : MESSAGES.cvcFormat;
}
const MAX_NAME = 45;
/** The holder name as embossed: half-width, upper case, single spaces. */
export function normaliseName(value) {
    let out = "";
    for (const ch of value.trim()) {
        const cp = ch.codePointAt(0);
        out += cp >= 0xff01 && cp <= 0xff5e ? String.fromCodePoint(cp - 0xfee0) : ch === "\u3000" ? " " : ch;
    }
    return out.replace(/\s+/g, " ").trim().toUpperCase();
}
/** The message for a holder name, or "". */
export function checkName(value) {
    const v = normaliseName(value);
    if (v === "")
        return MESSAGES.nameRequired;
    if (!/^[A-Z]+( [A-Z]+)*$/.test(v))
        return MESSAGES.nameFormat;
    return v.length > MAX_NAME ? MESSAGES.nameTooLong : "";
}
