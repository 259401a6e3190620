// The card-fields page's script (GET /fields/{id}), an ES module served from the sandbox's
// own origin. The buyer types the card into this document, inside the merchant's iframe;
// the card goes from here to POST /fields/{id} on this origin, and the merchant's page gets
// only what postMessage hands it (the setup, the token, brand, last 4 digits and expiry),
// posted to the setup's merchant origin and to no other window ("*" is never used). The
// parent sends nothing to the frame, so the frame listens to no message.
//
// Behaviour as the card-entry island had it (SPEC.md §5, DESIGN.md §4b): the number is
// grouped as typed and its brand announced politely from the first digits; fields are
// checked on the native change event (never per keystroke, never on a blur without a
// change) and all together on submit, with an error summary that takes the focus; brands
// we do not take (AMEX, Diners) are named and refused before anything is sent; the button
// is busy while the card is being sent.
import {
  acceptedBrands,
  BRAND_LABELS,
  brandOf,
  checkCvc,
  checkExpiry,
  checkName,
  checkNumber,
  formatExpiry,
  MESSAGES,
  normaliseDigits,
  normaliseName,
  parseExpiry,
  refusalMessage,
  regroup,
} from "./rules.js";

/** Every message to the parent carries this, so the merchant's page can tell ours apart. */
export const SOURCE = "sandbox-card-fields";
export const FIELDS = ["number", "exp", "cvc", "name"];
export const BRAND_PREFIX = "カードブランド：";
export const ERROR_TITLE_PREFIX = "エラー: ";
export const SUMMARY_TITLE = "入力内容に誤りがあります";
export const SEND_FAILED_TITLE = "カード情報を送信できませんでした";
/** The sandbox not answering in this time counts as out of reach. */
export const SEND_TIMEOUT_MS = 30_000;

/**
 * Mounts the fields on root (main#sandbox-fields). deps lets tests replace fetch and the
 * parent window; in the browser they are the page's own.
 */
export function mount(root, deps = {}) {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  const fetchFn = deps.fetch ?? win.fetch.bind(win);
  const parent = deps.parent ?? win.parent;
  const origin = root.dataset.origin ?? "";
  const setup = root.dataset.setup ?? "";
  const accepted = acceptedBrands(root.dataset.accepted ? root.dataset.accepted.split(",") : null);

  /** Posts msg to the merchant's page; nothing when the page is not framed. */
  function post(msg) {
    if (!origin || !parent || parent === win) return;
    parent.postMessage({ source: SOURCE, ...msg }, origin);
  }

  // The merchant sizes the iframe to the content, which grows with errors and the brand.
  let lastHeight = -1;
  function reportHeight() {
    const height = Math.ceil(doc.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    post({ type: "resize", height });
  }
  if (typeof win.ResizeObserver === "function") new win.ResizeObserver(reportHeight).observe(doc.body);
  reportHeight();

  const form = root.querySelector("#card-form");
  if (!form) return { reportHeight }; // the setup is closed: a message, no fields

  const input = (id) => form.querySelector(`#${id}`);
  const button = form.querySelector("button[type=submit]");
  const summary = root.querySelector("#error-summary");
  const summaryTitle = root.querySelector("#error-summary-title");
  const summaryList = root.querySelector("#error-summary-list");
  const brandStatus = root.querySelector("#number-brand");
  let sending = false;
  /** The number as last grouped: a variable, never an attribute, so it stays in the input. */
  let previousNumber = "";
  const errors = {};

  function showBrand(brand) {
    const text = brand ? BRAND_PREFIX + brand.label : "";
    // Only a change is written, so the live region announces a new brand once.
    if (brandStatus.textContent !== text) brandStatus.textContent = text;
  }

  function setError(id, message) {
    errors[id] = message;
    const el = input(id);
    const errEl = root.querySelector(`#${id}-error`);
    errEl.replaceChildren();
    if (message) {
      const prefix = doc.createElement("span");
      prefix.className = "visually-hidden";
      prefix.textContent = "エラー：";
      errEl.append(prefix, message);
    }
    errEl.hidden = !message;
    el.closest(".field").classList.toggle("invalid", !!message);
    el.setAttribute("aria-describedby", message ? `${id}-hint ${id}-error` : `${id}-hint`);
    if (message) el.setAttribute("aria-invalid", "true");
    else el.removeAttribute("aria-invalid");
  }

  /** Checks one field as it stands, tidying what the buyer typed into the card's form. */
  function check(id) {
    const el = input(id);
    switch (id) {
      case "number":
        showBrand(brandOf(normaliseDigits(el.value)));
        return checkNumber(el.value, accepted);
      case "exp": {
        const e = parseExpiry(el.value);
        if (e) el.value = formatExpiry(e);
        return checkExpiry(el.value);
      }
      case "cvc":
        return checkCvc(el.value);
      case "name": {
        const n = normaliseName(el.value);
        if (n !== el.value) el.value = n;
        return checkName(el.value);
      }
    }
    return "";
  }

  // The native change event fires once a changed value is committed.
  form.addEventListener("change", (e) => {
    const id = e.target?.id;
    if (FIELDS.includes(id)) {
      setError(id, check(id));
      reportHeight();
    }
  });

  // Grouping as typed is formatting, not validation: it never shows an error.
  function regroupNumber(el, inputType) {
    const before = previousNumber;
    const caret = el.selectionStart ?? el.value.length;
    // A Backspace or Delete that took only a space: take the digit beyond it instead.
    let deleted;
    if (inputType === "deleteContentBackward" || inputType === "deleteContentForward") {
      if (normaliseDigits(before) === normaliseDigits(el.value) && before.length > el.value.length) {
        deleted = inputType === "deleteContentBackward" ? "backward" : "forward";
      }
    }
    const next = regroup(el.value, caret, deleted);
    if (next.value !== el.value) el.value = next.value;
    previousNumber = next.value;
    if (doc.activeElement === el) el.setSelectionRange(next.caret, next.caret);
    showBrand(brandOf(normaliseDigits(next.value)));
  }
  const number = input("number");
  number.addEventListener("input", (e) => {
    // Rewriting the value under an IME (full-width digits) would break the composition;
    // compositionend groups what was composed.
    if (e.isComposing) return;
    regroupNumber(number, e.inputType);
  });
  number.addEventListener("compositionend", () => regroupNumber(number));

  function renderSummary(general) {
    summaryList.replaceChildren();
    const items = FIELDS.filter((f) => errors[f]);
    summaryTitle.textContent = items.length > 0 ? SUMMARY_TITLE : SEND_FAILED_TITLE;
    if (general) {
      const li = doc.createElement("li");
      li.textContent = general;
      summaryList.append(li);
    }
    for (const f of items) {
      const li = doc.createElement("li");
      const a = doc.createElement("a");
      a.href = `#${f}`;
      a.textContent = errors[f];
      a.addEventListener("click", (e) => {
        // The field's label shows too when the input is focused (GOV.UK error summary).
        e.preventDefault();
        input(f).closest(".field").scrollIntoView?.();
        input(f).focus();
      });
      li.append(a);
      summaryList.append(li);
    }
    summary.hidden = false;
  }

  function fail(found, general = "") {
    for (const f of FIELDS) setError(f, found[f] ?? "");
    renderSummary(general);
    reportHeight();
    summary.focus();
    if (!doc.title.startsWith(ERROR_TITLE_PREFIX)) doc.title = ERROR_TITLE_PREFIX + doc.title;
  }

  function setBusy(busy) {
    sending = busy;
    if (busy) {
      button.setAttribute("aria-disabled", "true");
      form.setAttribute("aria-busy", "true");
    } else {
      button.removeAttribute("aria-disabled");
      form.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (sending) return; // a double click sends the card once
    const found = {};
    for (const f of FIELDS) {
      const message = check(f);
      if (message) found[f] = message;
    }
    if (Object.keys(found).length > 0) {
      fail(found);
      return;
    }
    const expiry = parseExpiry(input("exp").value);
    setBusy(true);
    post({ type: "busy" });
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), SEND_TIMEOUT_MS);
    let status = 0;
    let answer = null;
    try {
      const res = await fetchFn(`/fields/${encodeURIComponent(setup)}`, {
        method: "POST",
        credentials: "omit",
        cache: "no-store",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({
          number: normaliseDigits(input("number").value),
          exp_month: expiry.month,
          exp_year: expiry.year,
          cvc: normaliseDigits(input("cvc").value),
          name: normaliseName(input("name").value),
        }),
        signal: ctrl.signal,
      });
      status = res.status;
      answer = await res.json().catch(() => null);
    } catch {
      answer = null; // out of reach or timed out
    } finally {
      clearTimeout(timer);
    }

    const token = status === 201 && typeof answer?.token === "string" ? answer.token : "";
    // The sandbox is the judge of the brand; still, never hand the merchant a brand it does not take.
    const refusal = token ? refusalMessage(brandFromCode(answer.brand ?? ""), accepted) : "";
    if (!token || refusal) {
      setBusy(false);
      post({ type: "idle" });
      if (refusal) return fail({ number: refusal });
      const fieldErrors = {};
      let general = "";
      for (const err of Array.isArray(answer?.errors) ? answer.errors : []) {
        if (typeof err?.message !== "string" || !err.message) continue;
        if (FIELDS.includes(err.field)) fieldErrors[err.field] ??= err.message;
        else general ||= err.message;
      }
      if (Object.keys(fieldErrors).length === 0 && !general) general = MESSAGES.network;
      return fail(fieldErrors, general);
    }

    // The card has done its job: keep neither the number nor the security code. The
    // button stays busy: the setup has its card, and the merchant's page takes over.
    input("number").value = "";
    input("cvc").value = "";
    previousNumber = "";
    showBrand(null);
    for (const f of FIELDS) setError(f, "");
    summary.hidden = true;
    post({
      type: "tokenized",
      setup,
      token,
      brand: answer.brand,
      last4: answer.last4,
      exp_month: answer.exp_month,
      exp_year: answer.exp_year,
    });
  });

  // Back through the back/forward cache: usable again.
  win.addEventListener("pageshow", (e) => {
    if (e.persisted) setBusy(false);
  });

  return { reportHeight };
}

/** Our brand for the sandbox's brand code ("VISA", "AMEX"…), null when unknown. */
function brandFromCode(code) {
  const c = code.toUpperCase();
  return c in BRAND_LABELS ? { code: c, type: null, label: BRAND_LABELS[c] } : { code: "", type: null, label: code };
}

// In the browser the page mounts itself; a test imports the module and mounts a fixture.
const root = typeof document === "undefined" ? null : document.getElementById("sandbox-fields");
if (root) mount(root);
