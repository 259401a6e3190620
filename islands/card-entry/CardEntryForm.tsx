// The card-entry island: the buyer types a card here, the browser sends it to the PSP's
// tokenisation endpoint (its own origin), and only the one-time token comes to our server.
// 割賦販売法 asks that card numbers never pass through our systems, so:
//   - the card inputs have no name attribute: no form submission can ever carry them;
//   - the card goes by fetch to props.tokenizeUrl only (CORS, no cookies), and the island
//     refuses to start when that URL is on our own origin (the server fallback stays);
//   - our server gets a plain <form method="post" action={action}> with a hidden token,
//     submitted as a real navigation so its redirects (a 3-D Secure challenge) work;
//   - after tokenising, the number and the security code are cleared; nothing is logged.
// Without JavaScript the server's fallback sends the buyer to the PSP's hosted card page.
//
// Fields are checked on the native change event (SPEC.md §5, DESIGN.md §4b: never on blur or
// per keystroke) and all together on submit, with an error summary that takes the focus.
// The brand is shown (and announced politely) from the first digits; brands we do not take
// are named and refused before anything is sent.
// Props are the cards page's CardEntryProps; example-props.json mirrors them.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type CompositionEvent, type FormEvent, type MouseEvent, type ReactNode } from "react";
import { Icon } from "../lib/Icon";
import { setLoading } from "../lib/loading";
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
  type Brand,
} from "./rules";

export interface CardEntryProps {
  /** The PSP's tokenisation endpoint, e.g. http://localhost:8081/v1/tokens (another origin). */
  tokenizeUrl: string;
  /** Where the token is posted (same origin), e.g. /myaccount/creditcards/new. */
  action: string;
  /** Brand codes we take, in display order; Go sends null for none (then pay.AcceptedBrands). */
  acceptedBrands: string[] | null;
  /** The icon sprite's URL; read from the server's fallback when absent. */
  iconHref?: string;
  /** The submit button's text. */
  submitLabel?: string;
}

export const FIELDS = ["card_number", "card_exp", "card_cvc", "card_name"] as const;
export type Field = (typeof FIELDS)[number];

/** The PSP's error.field values (POST /v1/tokens) and our inputs. */
const PSP_FIELDS: Record<string, Field> = { number: "card_number", exp: "card_exp", cvc: "card_cvc", name: "card_name" };

export const DEFAULT_SUBMIT_LABEL = "カードを登録する";
export const SUMMARY_ID = "card-entry-summary";
export const SUMMARY_TITLE = "入力内容に誤りがあります";
export const SEND_FAILED_TITLE = "カード情報を送信できませんでした";
export const DIRECT_NOTE = "カード情報は当社のサーバーを経由せず、決済代行会社へ直接送信されます。";
export const BRAND_PREFIX = "カードブランド：";
const ERROR_TITLE_PREFIX = "エラー：";
/** A PSP that does not answer in this time is treated as out of reach. */
export const TOKENIZE_TIMEOUT_MS = 30_000;

const ISLAND = "[data-island='card-entry']";

interface PspError {
  code?: string;
  field?: string;
  message?: string;
}

/** The PSP's answer to POST /v1/tokens: a token, or the first error and (the sandbox) all of them. */
interface TokenAnswer {
  token?: string;
  brand?: string;
  last4?: string;
  error?: PspError;
  errors?: PspError[];
}

/**
 * The PSP's field errors (Japanese, for the buyer) by our field. An error that names no
 * field (a refused origin, a server error) is meant for developers and is not shown.
 */
function pspFieldErrors(answer: TokenAnswer | null): Errors {
  const out: Errors = {};
  const list = Array.isArray(answer?.errors) ? answer.errors : answer?.error ? [answer.error] : [];
  for (const e of list) {
    const field = e?.field ? PSP_FIELDS[e.field] : undefined;
    if (field && typeof e.message === "string" && e.message && !out[field]) out[field] = e.message;
  }
  return out;
}

/** Refuses a tokenisation URL on our own origin: card data must never reach our server. */
function checkTokenizeUrl(raw: string): string {
  const url = new URL(raw, window.location.href);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("card-entry: tokenizeUrl must be http(s)");
  if (url.origin === window.location.origin) throw new Error("card-entry: tokenizeUrl must be the PSP's origin, not ours");
  return url.href;
}

/** The sprite URL of the server fallback's icons, and whether the buyer was on the fallback. */
function readFallback() {
  const root = document.querySelector(ISLAND);
  const active = document.activeElement;
  return {
    focused: !!(root && active && active !== document.body && root.contains(active)),
    iconHref: root?.querySelector("use")?.getAttribute("href")?.split("#")[0] ?? "",
  };
}

type Errors = Partial<Record<Field, string>>;

export default function CardEntryForm(props: CardEntryProps) {
  const tokenizeUrl = useMemo(() => checkTokenizeUrl(props.tokenizeUrl), [props.tokenizeUrl]);
  const accepted = useMemo(() => acceptedBrands(props.acceptedBrands), [props.acceptedBrands]);
  const [fallback] = useState(readFallback);
  const iconHref = props.iconHref || fallback.iconHref;

  const formRef = useRef<HTMLFormElement>(null);
  const tokenFormRef = useRef<HTMLFormElement>(null);
  const tokenRef = useRef<HTMLInputElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const inflight = useRef<AbortController | null>(null);
  const mounted = useRef(true);
  /** Set synchronously, so a double click sends the card once even before React re-renders. */
  const sending = useRef(false);
  /** The number as last grouped (a ref, never a DOM attribute: the number stays in the input only). */
  const previousNumber = useRef("");

  const [errors, setErrors] = useState<Errors>({});
  /** A failure that belongs to no field (the PSP out of reach). */
  const [general, setGeneral] = useState("");
  const [summaryShown, setSummaryShown] = useState(false);
  /** Bumped by each failed submit, to move the focus to the summary once it has rendered. */
  const [failures, setFailures] = useState(0);
  const [brand, setBrand] = useState<Brand | null>(null);
  const [busy, setBusy] = useState(false);

  const input = (id: Field) => formRef.current?.querySelector<HTMLInputElement>(`[id='${id}']`) ?? null;
  const setError = (id: Field, message: string) => setErrors((prev) => ({ ...prev, [id]: message }));

  /** Checks one field as it stands, tidying what the buyer typed into the card's form. */
  function check(id: Field, el: HTMLInputElement): string {
    switch (id) {
      case "card_number":
        setBrand(brandOf(normaliseDigits(el.value)));
        return checkNumber(el.value, accepted);
      case "card_exp": {
        const e = parseExpiry(el.value);
        if (e) el.value = formatExpiry(e);
        return checkExpiry(el.value);
      }
      case "card_cvc":
        return checkCvc(el.value);
      case "card_name": {
        const n = normaliseName(el.value);
        if (n !== el.value) el.value = n;
        return checkName(el.value);
      }
    }
  }

  // The native change event fires once a changed value is committed (not on each keystroke,
  // not on a blur without a change).
  const latestCheck = useRef(check);
  latestCheck.current = check;
  useEffect(() => {
    const form = formRef.current!;
    const onChange = (e: Event) => {
      const el = e.target as HTMLInputElement;
      const id = FIELDS.find((f) => f === el.id);
      if (id) setError(id, latestCheck.current(id, el));
    };
    form.addEventListener("change", onChange);
    return () => form.removeEventListener("change", onChange);
  }, []);

  useEffect(() => {
    mounted.current = true;
    if (fallback.focused) input("card_number")?.focus();
    // Coming back through the back/forward cache after the token was posted: usable again.
    const onPageShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      sending.current = false;
      setBusy(false);
      setLoading(false);
    };
    window.addEventListener("pageshow", onPageShow);
    return () => {
      window.removeEventListener("pageshow", onPageShow);
      mounted.current = false;
      inflight.current?.abort();
    };
    // Once, after the island replaced the fallback.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  // In the same commit as the summary, so nothing can be announced or typed in between.
  useLayoutEffect(() => {
    if (failures === 0) return;
    summaryRef.current?.focus();
    if (!document.title.startsWith(ERROR_TITLE_PREFIX)) document.title = ERROR_TITLE_PREFIX + document.title;
  }, [failures]);

  function fail(next: Errors, message = "") {
    setErrors(next);
    setGeneral(message);
    setSummaryShown(true);
    setFailures((n) => n + 1);
  }

  // Grouping as typed is formatting, not validation: it never shows an error.
  function onNumberInput(e: FormEvent<HTMLInputElement>) {
    const ie = e.nativeEvent as InputEvent;
    // Rewriting the value under an IME (full-width digits) would break the composition;
    // compositionend groups what was composed.
    if (ie.isComposing) return;
    regroupNumber(e.currentTarget, ie.inputType);
  }

  function regroupNumber(el: HTMLInputElement, inputType?: string) {
    const before = previousNumber.current;
    const caret = el.selectionStart ?? el.value.length;
    // A Backspace or Delete that took only a space: take the digit beyond it instead.
    let deleted: "backward" | "forward" | undefined;
    if (inputType === "deleteContentBackward" || inputType === "deleteContentForward") {
      if (normaliseDigits(before) === normaliseDigits(el.value) && before.length > el.value.length) {
        deleted = inputType === "deleteContentBackward" ? "backward" : "forward";
      }
    }
    const next = regroup(el.value, caret, deleted);
    if (next.value !== el.value) el.value = next.value;
    previousNumber.current = next.value;
    if (document.activeElement === el) el.setSelectionRange(next.caret, next.caret);
    const b = brandOf(normaliseDigits(next.value));
    setBrand((prev) => (prev?.label === b?.label && prev?.code === b?.code ? prev : b));
  }

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (sending.current) return;
    const els = Object.fromEntries(FIELDS.map((f) => [f, input(f)!])) as Record<Field, HTMLInputElement>;
    const found: Errors = {};
    for (const f of FIELDS) {
      const message = check(f, els[f]);
      if (message) found[f] = message;
    }
    if (Object.keys(found).length > 0) {
      fail(found);
      return;
    }

    const expiry = parseExpiry(els.card_exp.value)!;
    const ctrl = new AbortController();
    inflight.current = ctrl;
    const timer = setTimeout(() => ctrl.abort(), TOKENIZE_TIMEOUT_MS);
    sending.current = true;
    setBusy(true);
    setLoading(true);
    let answer: TokenAnswer | null = null;
    let ok = false;
    try {
      const res = await fetch(tokenizeUrl, {
        method: "POST",
        mode: "cors",
        credentials: "omit",
        cache: "no-store",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({
          number: normaliseDigits(els.card_number.value),
          exp_month: expiry.month,
          exp_year: expiry.year,
          cvc: normaliseDigits(els.card_cvc.value),
          name: normaliseName(els.card_name.value),
        }),
        signal: ctrl.signal,
      });
      ok = res.ok;
      answer = (await res.json().catch(() => null)) as TokenAnswer | null;
    } catch {
      answer = null; // out of reach, refused by CORS, or timed out
    } finally {
      clearTimeout(timer);
    }
    inflight.current = null;
    if (!mounted.current) return;

    const token = ok && typeof answer?.token === "string" ? answer.token : "";
    // The PSP is the judge of the brand; still, never hand our server a brand we do not take.
    const refusal = token && answer?.brand ? refusalMessage(brandFromCode(answer.brand), accepted) : "";
    if (!token || refusal) {
      sending.current = false;
      setBusy(false);
      setLoading(false);
      const fieldErrors = ok ? {} : pspFieldErrors(answer);
      if (refusal) fail({ card_number: refusal });
      else if (Object.keys(fieldErrors).length > 0) fail(fieldErrors);
      else fail({}, MESSAGES.network);
      return;
    }

    // The card has done its job: keep neither the number nor the security code.
    els.card_number.value = "";
    previousNumber.current = "";
    els.card_cvc.value = "";
    setBrand(null);
    setErrors({});
    setGeneral("");
    setSummaryShown(false);
    tokenRef.current!.value = token;
    // A real navigation (not fetch), so the server's 303s — to a 3-D Secure challenge on the
    // PSP's origin, or back to the cards list — are followed by the browser.
    tokenFormRef.current!.submit();
  }

  function onSummaryLink(e: MouseEvent<HTMLAnchorElement>, id: Field) {
    const el = input(id);
    if (!el) return;
    // The field's label shows too when the input is focused (GOV.UK error summary).
    e.preventDefault();
    el.closest(".field")?.scrollIntoView?.();
    el.focus();
  }

  const items = FIELDS.filter((f) => errors[f]).map((f) => ({ field: f, message: errors[f]! }));
  const showSummary = summaryShown && (items.length > 0 || general !== "");

  const fieldError = (id: Field): ReactNode =>
    errors[id] ? (
      <p className="field-error" id={`${id}-error`}>
        {iconHref && <Icon href={iconHref} name="warning_filled" />}
        <span className="visually-hidden">エラー：</span>
        {errors[id]}
      </p>
    ) : null;

  const label = props.submitLabel || DEFAULT_SUBMIT_LABEL;
  return (
    <div className="card-entry">
      {showSummary && (
        <div className="error-summary" id={SUMMARY_ID} tabIndex={-1} aria-labelledby={`${SUMMARY_ID}-title`} ref={summaryRef}>
          <h2 className="error-summary__title" id={`${SUMMARY_ID}-title`}>
            {items.length > 0 ? SUMMARY_TITLE : SEND_FAILED_TITLE}
          </h2>
          <ul className="error-summary__list">
            {general && <li>{general}</li>}
            {items.map((it) => (
              <li key={it.field}>
                <a href={`#${it.field}`} onClick={(e) => onSummaryLink(e, it.field)}>
                  {it.message}
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
      <form ref={formRef} className="form card-entry__form" noValidate onSubmit={onSubmit} aria-busy={busy || undefined}>
        <p className="card-entry__note">{DIRECT_NOTE}</p>
        <CardField
          id="card_number"
          label="カード番号"
          hint={`ご利用いただけるカード：${accepted.map((b) => BRAND_LABELS[b]).join("、")}`}
          autoComplete="cc-number"
          numeric
          width="medium"
          error={fieldError("card_number")}
          onInput={onNumberInput}
          onCompositionEnd={(e) => regroupNumber(e.currentTarget)}
        >
          {/* Always present and never display:none, so that a new brand is announced. */}
          <div className="card-entry__brand" id="card_number-brand" role="status" aria-live="polite">
            {brand && (
              <p className="field__status field__status--note">
                {BRAND_PREFIX}
                {brand.label}
              </p>
            )}
          </div>
        </CardField>
        <CardField
          id="card_exp"
          label="有効期限（月/年）"
          hint="カードに記載の月/年（例：09/28）"
          autoComplete="cc-exp"
          numeric
          width="short"
          error={fieldError("card_exp")}
        />
        <CardField
          id="card_cvc"
          label="セキュリティコード"
          hint="カード裏面の署名欄に記載された3桁の数字"
          autoComplete="cc-csc"
          numeric
          width="short"
          error={fieldError("card_cvc")}
        />
        <CardField
          id="card_name"
          label="カード名義"
          hint="カードに記載のとおり半角英字で入力してください（例：TARO YAMADA）"
          autoComplete="cc-name"
          error={fieldError("card_name")}
        />
        <div className="form-actions">
          <button type="submit" className="btn btn--md btn--primary" aria-disabled={busy || undefined}>
            {iconHref && <Icon href={iconHref} name="credit_card" />}
            <span>{label}</span>
          </button>
        </div>
      </form>
      {/* What our server receives: the token, nothing else. */}
      <form ref={tokenFormRef} method="post" action={props.action} hidden>
        <input ref={tokenRef} type="hidden" name="token" defaultValue="" />
      </form>
    </div>
  );
}

/** Our brand for the PSP's brand code ("VISA", "AMEX"…), null when unknown. */
function brandFromCode(code: string): Brand | null {
  const c = code.toUpperCase() as keyof typeof BRAND_LABELS;
  return c in BRAND_LABELS ? { code: c, type: null, label: BRAND_LABELS[c] } : { code: "", type: null, label: code };
}

interface CardFieldProps {
  id: Field;
  label: string;
  hint: string;
  autoComplete: string;
  numeric?: boolean;
  width?: "short" | "medium";
  error: ReactNode;
  onInput?: (e: FormEvent<HTMLInputElement>) => void;
  onCompositionEnd?: (e: CompositionEvent<HTMLInputElement>) => void;
  children?: ReactNode;
}

/** views/form_fields.templ's InputField for a required text field, without a name. */
function CardField({ id, label, hint, autoComplete, numeric, width, error, onInput, onCompositionEnd, children }: CardFieldProps) {
  return (
    <div className={error ? "field field--error" : "field"}>
      <label className="field__label" htmlFor={id}>
        {label}
        <span className="field__required">必須</span>
      </label>
      <p className="field__hint" id={`${id}-hint`}>
        {hint}
      </p>
      {error}
      <div className="field__control">
        <input
          className={width ? `field__input field__input--${width}` : "field__input"}
          id={id}
          type="text"
          defaultValue=""
          inputMode={numeric ? "numeric" : undefined}
          autoComplete={autoComplete}
          autoCapitalize={numeric ? undefined : "characters"}
          spellCheck={false}
          aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
          aria-invalid={error ? true : undefined}
          aria-required="true"
          onInput={onInput}
          onCompositionEnd={onCompositionEnd}
        />
      </div>
      {children}
    </div>
  );
}
