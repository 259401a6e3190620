// The supplier-account island: the bank-account form of the add-supplier wizard and of the
// account pages (views/bank_account_form.templ). Without JavaScript that form is one
// question per screen (bank, branch, details); the island makes it one form:
//   - the bank and the branch are comboboxes that search GET /api/v1/banks2 as the person
//     types; the choice goes into hidden bank_code / branch_code inputs;
//   - the holder name shows, on change, the half-width form it will be registered in
//     (POST /api/v1/accounts/holder_kana), and the account number is checked on change;
//   - it posts, as a normal form, to the same action with the same field names: the server
//     checks everything again and re-renders with 422 and props.errors on a failure.
// Props are views.BankAccountFormProps; example-props.json is written by a Go test
// (views/bank_account_example_test.go).
import { useEffect, useRef, useState, type ReactNode } from "react";
import { ApiError, createApiClient } from "../lib/api";
import { Icon } from "../lib/Icon";
import { Combobox, FETCH_FAILED, type Choice } from "./Combobox";
import { checkAccountNumber } from "./digits";

export interface AccountFormProps {
  action: string;
  submitLabel: string;
  bankCode: string;
  bankName: string;
  branchCode: string;
  branchName: string;
  /** "2" 普通, "1" 当座, "" not chosen. */
  accountType: string;
  accountNumber: string;
  holderName: string;
  /** Field → message; Go sends null for none. */
  errors: Record<string, string> | null;
  /** The 8 major banks, listed before anything is typed. */
  majors: Choice[] | null;
  /** The icon sprite's URL; read from the server's fallback when absent. */
  iconHref?: string;
}

export const BANK_HINT = "金融機関名・カナ・金融機関コードの一部（例：みずほ、ミズホ、0001）";
export const BRANCH_HINT = "支店名・カナ・3桁の支店コードの一部（例：渋谷、シブヤ、001）";
export const BRANCH_WAITS = "先に金融機関を選んでください";
export const PREVIEW_LABEL = "登録される口座名義：";
const SEARCH_LIMIT = 20;

const api = createApiClient({ mode: "cookie" });

const searchBanks = async (q: string, signal: AbortSignal) =>
  (await api.get<{ banks: Choice[] }>("/banks2", { query: { q, limit: SEARCH_LIMIT }, signal })).banks;

const searchBranches = (bankCode: string) => async (q: string, signal: AbortSignal) =>
  (await api.get<{ branches: Choice[] }>("/banks2", { query: { bank_code: bankCode, q, limit: SEARCH_LIMIT }, signal })).branches;

// A 422 of the search (a bank code typed by hand that does not exist) says why; anything
// else is the search being out of reach.
const failureText = (err: unknown) => (err instanceof ApiError && err.status === 422 && err.body?.errors?.[0]?.message) || FETCH_FAILED;

const ACCOUNT_TYPES = [
  { value: "2", label: "普通" },
  { value: "1", label: "当座" },
];

const ISLAND = "[data-island='supplier-account']";

/**
 * What the server's fallback holds when the island takes over (createRoot replaces it on
 * commit, so this runs first): anything typed into it on a slow link, which control had
 * focus, and the sprite URL of its icons.
 */
function readFallback() {
  const root = document.querySelector(ISLAND);
  const value = (sel: string) => root?.querySelector<HTMLInputElement>(sel)?.value;
  const active = document.activeElement;
  let focused = root && active && root.contains(active) ? active.id : "";
  // The no-JS screens' search boxes become the comboboxes.
  if (focused === "bank_q" || focused === "branch_q") focused = focused.replace("_q", "_search");
  return {
    accountNumber: value("#account_number"),
    holderName: value("#holder_name"),
    accountType: value("input[name=account_type]:checked"),
    focused,
    iconHref: root?.querySelector("use")?.getAttribute("href")?.split("#")[0] ?? "",
  };
}

/** The error summary's links to the no-JS screens' search boxes lead to the comboboxes. */
function retargetSummaryLinks() {
  for (const [from, to] of [
    ["bank_q", "bank_search"],
    ["bank_code", "bank_search"],
    ["branch_q", "branch_search"],
    ["branch_code", "branch_search"],
  ]) {
    for (const a of document.querySelectorAll<HTMLAnchorElement>(`#error-summary a[href="#${from}"]`)) a.setAttribute("href", `#${to}`);
  }
}

export default function SupplierAccountForm(props: AccountFormProps) {
  const formRef = useRef<HTMLFormElement>(null);
  const [fallback] = useState(readFallback);
  const iconHref = props.iconHref || fallback.iconHref;
  const [errors, setErrors] = useState<Record<string, string>>(() => ({ ...props.errors }));
  const [bankCode, setBankCode] = useState(props.bankCode);
  const [branchCode, setBranchCode] = useState(props.branchCode);
  // A new bank starts a new branch combobox (empty, with its own search).
  const [bankChanges, setBankChanges] = useState(0);
  const [preview, setPreview] = useState("");
  const holderCheck = useRef<AbortController | null>(null);

  const setError = (field: string, message: string) => setErrors((prev) => ({ ...prev, [field]: message }));

  function onBankCode(code: string) {
    if (code === bankCode) return;
    setBankCode(code);
    setBranchCode("");
    setBankChanges((n) => n + 1);
    if (code) setError("bank_code", "");
  }

  function onBranchCode(code: string) {
    setBranchCode(code);
    if (code) setError("branch_code", "");
  }

  async function checkHolder(value: string) {
    holderCheck.current?.abort();
    const ctrl = new AbortController();
    holderCheck.current = ctrl;
    try {
      const a = await api.post<{ holder_name: string }>("/accounts/holder_kana", { holder_name: value }, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      setPreview(a.holder_name);
      setError("holder_name", "");
    } catch (err) {
      if (ctrl.signal.aborted) return;
      setPreview("");
      // Out of reach: say nothing, the server checks the name on submit.
      setError("holder_name", err instanceof ApiError && err.status === 422 ? err.fieldMessage("holder_name") || err.message : "");
    }
  }

  // Fields are checked on the native change event (a committed value), never per keystroke
  // or on blur (DESIGN.md §4b). Nothing here stops the form from being submitted.
  const latestCheckHolder = useRef(checkHolder);
  latestCheckHolder.current = checkHolder;
  useEffect(() => {
    const form = formRef.current!;
    const onChange = (e: Event) => {
      const el = e.target as HTMLInputElement;
      if (el.name === "account_number") setError("account_number", checkAccountNumber(el.value));
      else if (el.name === "account_type") setError("account_type", "");
      else if (el.name === "holder_name") void latestCheckHolder.current(el.value);
    };
    form.addEventListener("change", onChange);
    return () => {
      form.removeEventListener("change", onChange);
      holderCheck.current?.abort();
    };
  }, []);

  useEffect(() => {
    retargetSummaryLinks();
    if (fallback.focused) formRef.current?.querySelector<HTMLElement>(`[id='${fallback.focused}']`)?.focus();
    // Once, after the island replaced the fallback.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  const fieldError = (id: string, field: string): ReactNode =>
    errors[field] ? (
      <p className="field-error" id={`${id}-error`}>
        {iconHref && <Icon href={iconHref} name="warning_filled" />}
        <span className="visually-hidden">エラー：</span>
        {errors[field]}
      </p>
    ) : null;

  const accountType = fallback.accountType ?? props.accountType;
  return (
    <form ref={formRef} method="post" action={props.action} noValidate className="form">
      <input type="hidden" name="bank_code" value={bankCode} />
      <input type="hidden" name="branch_code" value={branchCode} />
      <Combobox
        name="bank"
        label="金融機関"
        hint={BANK_HINT}
        code={bankCode}
        codeLength={4}
        initialText={props.bankName || props.bankCode}
        error={fieldError("bank_search", "bank_code")}
        hasError={!!errors.bank_code}
        initial={props.majors ?? []}
        search={searchBanks}
        onCode={onBankCode}
        failureText={failureText}
      />
      <Combobox
        key={bankChanges}
        name="branch"
        label="支店"
        hint={bankCode ? BRANCH_HINT : BRANCH_WAITS}
        code={branchCode}
        codeLength={3}
        initialText={bankChanges === 0 ? props.branchName || props.branchCode : ""}
        disabled={!bankCode}
        error={fieldError("branch_search", "branch_code")}
        hasError={!!errors.branch_code}
        search={searchBranches(bankCode)}
        onCode={onBranchCode}
        failureText={failureText}
      />
      <div className={errors.account_type ? "field field--error" : "field"}>
        <fieldset className="fieldset" aria-describedby={errors.account_type ? "account_type-error" : undefined}>
          <legend className="fieldset__legend">
            口座種別<span className="field__required">必須</span>
          </legend>
          {fieldError("account_type", "account_type")}
          <div className="radios">
            {ACCOUNT_TYPES.map((t, i) => {
              const id = i === 0 ? "account_type" : `account_type-${i + 1}`;
              return (
                <div className="radios__item" key={t.value}>
                  <input className="radios__input" id={id} name="account_type" type="radio" value={t.value} defaultChecked={t.value === accountType} />
                  <label className="radios__label" htmlFor={id}>
                    {t.label}
                  </label>
                </div>
              );
            })}
          </div>
        </fieldset>
      </div>
      <TextField
        id="account_number"
        label="口座番号"
        hint="7桁の数字（7桁に満たない場合は先頭に0を付けてください）"
        value={fallback.accountNumber ?? props.accountNumber}
        medium
        numeric
        error={fieldError("account_number", "account_number")}
        hasError={!!errors.account_number}
      />
      <TextField
        id="holder_name"
        label="口座名義（カナ）"
        hint="通帳に記載の名義をカナで入力してください。半角カナに変換して登録します（例：カ）ヤマダショウジ → ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ）"
        value={fallback.holderName ?? props.holderName}
        error={fieldError("holder_name", "holder_name")}
        hasError={!!errors.holder_name}
      >
        {/* Present from the start so that a new preview is announced. */}
        <p className="holder-preview" id="holder_name-preview" role="status">
          {preview && PREVIEW_LABEL + preview}
        </p>
      </TextField>
      <button type="submit" className="btn btn--md btn--primary">
        {iconHref && <Icon href={iconHref} name="arrow_forward" />}
        <span>{props.submitLabel}</span>
      </button>
    </form>
  );
}

interface TextFieldProps {
  id: string;
  label: string;
  hint: string;
  value: string;
  medium?: boolean;
  numeric?: boolean;
  error: ReactNode;
  hasError: boolean;
  children?: ReactNode;
}

/** views/form_fields.templ's InputField, for a required text field. */
function TextField({ id, label, hint, value, medium, numeric, error, hasError, children }: TextFieldProps) {
  return (
    <div className={hasError ? "field field--error" : "field"}>
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
          className={medium ? "field__input field__input--medium" : "field__input"}
          id={id}
          name={id}
          type="text"
          defaultValue={value}
          inputMode={numeric ? "numeric" : undefined}
          aria-describedby={hasError ? `${id}-hint ${id}-error` : `${id}-hint`}
          aria-invalid={hasError || undefined}
          aria-required="true"
          autoComplete="off"
        />
      </div>
      {children}
    </div>
  );
}
