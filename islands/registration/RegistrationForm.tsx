// The registration island: enhances the registration wizard's form (views/signup/registration.templ).
//
// It renders the same markup as the server's fallback, from the same props
// (handlers/signup/registration_layout.go builds them; example-props.json is written by a Go test),
// and adds two things:
//   - a field is checked when it changes (the native change event: not on blur, not on each
//     keystroke; SPEC.md §5), with the server's own messages, shown inline;
//   - postal codes fill the prefecture and city: as soon as seven digits are typed, and with
//     the 住所を検索 button, from GET /api/v1/postal_codes/{code}. Without the island that
//     button submits the form and the server does the lookup.
// The form still posts to the server, which checks everything again.
import { useEffect, useMemo, useRef, useState, type HTMLAttributes, type MouseEvent } from "react";
import { Icon } from "../lib/Icon";
import { checkField, postalDigits, type FieldRule } from "./rules";

export interface FieldOption {
  value: string;
  label: string;
  hint?: string;
}

export interface PostalLookup {
  label: string;
  stateField: string;
  cityField: string;
  streetField: string;
}

export interface RegistrationField {
  id: string;
  label: string;
  control: "text" | "tel" | "date" | "select";
  value: string;
  hint?: string;
  error?: string;
  status?: string;
  autocomplete?: string;
  inputMode?: string;
  width?: string;
  required: boolean;
  autofocus?: boolean;
  choices?: string;
  rule: FieldRule;
  lookup?: PostalLookup;
}

export interface RegistrationGroup {
  id: string;
  legend: string;
  hint?: string;
  fields: RegistrationField[];
}

export interface RegistrationProps {
  action: string;
  postalApi: string;
  iconHref: string;
  groups: RegistrationGroup[];
  choices: Record<string, FieldOption[]>;
  submitLabel: string;
  postalFound: string;
  postalNotFound: string;
}

export const LOOKUP_FAILED = "住所を検索できませんでした。時間をおいてもう一度お試しいただくか、住所を直接入力してください";

interface Address {
  prefecture_code: number;
  prefecture: string;
  city: string;
}

/** A lookup outcome under a postal code: found (a success), or a note that nothing was found. */
interface Status {
  text: string;
  note?: boolean;
}

type Control = HTMLInputElement | HTMLSelectElement;

/**
 * The values of the server-rendered fallback's controls, and which one has focus. The island
 * renders while the fallback is still in the document (createRoot replaces it on commit), so
 * anything typed before the island's code arrived is carried over instead of lost.
 */
function snapshotFallback(fields: Map<string, RegistrationField>): { values: Record<string, string>; focused: string } {
  const values: Record<string, string> = {};
  for (const id of fields.keys()) {
    const el = document.getElementById(id);
    if ((el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.closest("[data-island='registration']")) {
      values[id] = el.value;
    }
  }
  const active = document.activeElement;
  const focused = active && active.id in values ? active.id : "";
  return { values, focused };
}

function describedBy(id: string, hint: string | undefined, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

function widthClass(base: string, width: string | undefined): string {
  return width === "short" || width === "medium" ? `${base} field__input--${width}` : base;
}

export default function RegistrationForm(props: RegistrationProps) {
  const formRef = useRef<HTMLFormElement>(null);
  const fields = useMemo(() => {
    const m = new Map<string, RegistrationField>();
    for (const g of props.groups) for (const f of g.fields) m.set(f.id, f);
    return m;
  }, [props.groups]);
  // What was typed into the server's form before the island took over (a slow link), kept.
  const [fallback] = useState(() => snapshotFallback(fields));
  const [errors, setErrors] = useState<Record<string, string>>(() => {
    const e: Record<string, string> = {};
    for (const f of fields.values()) if (f.error) e[f.id] = f.error;
    return e;
  });
  const [status, setStatus] = useState<Record<string, Status>>(() => {
    const s: Record<string, Status> = {};
    for (const f of fields.values()) if (f.status) s[f.id] = { text: f.status };
    return s;
  });
  // The digits last looked up per postal field, so typing on does not repeat a lookup.
  const looked = useRef<Record<string, string>>({});
  const inflight = useRef<Record<string, AbortController>>({});

  const setError = (id: string, message: string) => setErrors((prev) => ({ ...prev, [id]: message }));
  const control = (name: string) => formRef.current?.elements.namedItem(name) as Control | null;

  // Validate on the native change event, which fires once a changed value is committed.
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    const onChange = (e: Event) => {
      const el = e.target as Control;
      const f = fields.get(el.name);
      if (f) setError(f.id, checkField(el.value, f.rule));
    };
    form.addEventListener("change", onChange);
    return () => form.removeEventListener("change", onChange);
  }, [fields]);

  useEffect(() => {
    if (fallback.focused) control(fallback.focused)?.focus();
    // Once, after the island replaced the fallback.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(
    () => () => {
      for (const c of Object.values(inflight.current)) c.abort();
    },
    [],
  );

  /** Looks up f's postal code; explicit when the person pressed 住所を検索. */
  async function lookup(f: RegistrationField, digits: string, explicit: boolean) {
    const l = f.lookup!;
    inflight.current[f.id]?.abort();
    const ctrl = new AbortController();
    inflight.current[f.id] = ctrl;
    looked.current[f.id] = digits;
    let addresses: Address[] | null = null;
    try {
      const res = await fetch(props.postalApi + encodeURIComponent(digits), {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        signal: ctrl.signal,
      });
      if (res.ok) addresses = ((await res.json()) as { addresses?: Address[] }).addresses ?? [];
      else if (res.status === 404) addresses = [];
      else throw new Error(`postal lookup: HTTP ${res.status}`);
    } catch (err) {
      if (ctrl.signal.aborted) return;
      looked.current[f.id] = "";
      if (explicit) setError(f.id, LOOKUP_FAILED);
      else setStatus((s) => ({ ...s, [f.id]: { text: LOOKUP_FAILED, note: true } }));
      return;
    } finally {
      if (inflight.current[f.id] === ctrl) delete inflight.current[f.id];
    }
    if (ctrl.signal.aborted) return;
    const a = addresses[0];
    if (!a) {
      setStatus((s) => ({ ...s, [f.id]: explicit ? { text: "" } : { text: props.postalNotFound, note: true } }));
      if (explicit) setError(f.id, props.postalNotFound);
      return;
    }
    const state = control(l.stateField);
    const city = control(l.cityField);
    if (state) state.value = a.prefecture;
    if (city) city.value = a.city;
    setErrors((prev) => ({ ...prev, [f.id]: "", [l.stateField]: "", [l.cityField]: "" }));
    setStatus((s) => ({ ...s, [f.id]: { text: props.postalFound + a.prefecture + a.city } }));
    // The button, like the server's lookup, moves on to the street; typing does not move focus.
    if (explicit) (control(l.streetField) as HTMLInputElement | null)?.focus();
  }

  function onPostalInput(f: RegistrationField, value: string) {
    const digits = postalDigits(value);
    if (/^\d{7}$/.test(digits) && looked.current[f.id] !== digits) void lookup(f, digits, false);
  }

  function onLookupClick(e: MouseEvent<HTMLButtonElement>, f: RegistrationField) {
    e.preventDefault();
    const value = control(f.id)?.value ?? "";
    const message = checkField(value, f.rule);
    if (message) {
      setError(f.id, message);
      setStatus((s) => ({ ...s, [f.id]: { text: "" } }));
      return;
    }
    void lookup(f, postalDigits(value), true);
  }

  return (
    <form ref={formRef} method="post" action={props.action} noValidate className="form registration-form">
      <input type="hidden" name="step" value="details" />
      {/* Enter in a field submits the form with its first submit button; not 住所を検索. */}
      <button type="submit" hidden tabIndex={-1}>
        {props.submitLabel}
      </button>
      {props.groups.map((g) => (
        <fieldset key={g.id} className="form-group" id={g.id} aria-describedby={g.hint ? `${g.id}-hint` : undefined}>
          <legend className="form-group__legend">
            <h2 className="form-group__title">{g.legend}</h2>
          </legend>
          {g.hint && (
            <p className="field__hint" id={`${g.id}-hint`}>
              {g.hint}
            </p>
          )}
          {g.fields.map((f) => (
            <Field
              key={f.id}
              field={f.id in fallback.values ? { ...f, value: fallback.values[f.id] } : f}
              options={f.choices ? (props.choices[f.choices] ?? []) : []}
              error={errors[f.id] ?? ""}
              status={status[f.id]}
              iconHref={props.iconHref}
              onPostalInput={onPostalInput}
              onLookupClick={onLookupClick}
            />
          ))}
        </fieldset>
      ))}
      <div className="form-actions">
        <button type="submit" className="btn btn--md btn--primary">
          <Icon href={props.iconHref} name="arrow_forward" />
          <span>{props.submitLabel}</span>
        </button>
      </div>
    </form>
  );
}

interface FieldProps {
  field: RegistrationField;
  options: FieldOption[];
  error: string;
  status?: Status;
  iconHref: string;
  onPostalInput: (f: RegistrationField, value: string) => void;
  onLookupClick: (e: MouseEvent<HTMLButtonElement>, f: RegistrationField) => void;
}

function Field({ field: f, options, error, status, iconHref, onPostalInput, onLookupClick }: FieldProps) {
  const common = {
    id: f.id,
    name: f.id,
    "aria-required": f.required ? ("true" as const) : undefined,
    "aria-invalid": error ? ("true" as const) : undefined,
    "aria-describedby": describedBy(f.id, f.hint, error),
    autoFocus: f.autofocus || undefined,
  };
  let control;
  if (f.control === "select") {
    control = (
      <select className={widthClass("field__select", f.width)} defaultValue={f.value} autoComplete={f.autocomplete || undefined} {...common}>
        <option value="">選択してください</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else {
    const type = f.control === "tel" || f.control === "date" ? f.control : "text";
    const inputMode = f.inputMode || (type === "tel" ? "tel" : undefined);
    const autoComplete = f.autocomplete || (type === "tel" ? "tel" : undefined);
    control = (
      <input
        className={widthClass("field__input", f.width)}
        type={type}
        defaultValue={f.value}
        inputMode={inputMode as HTMLAttributes<HTMLInputElement>["inputMode"]}
        autoComplete={autoComplete}
        onInput={f.lookup ? (e) => onPostalInput(f, e.currentTarget.value) : undefined}
        {...common}
      />
    );
  }
  return (
    <div className={error ? "field field--error" : "field"}>
      <label className="field__label" htmlFor={f.id}>
        {f.label}
        {f.required ? <span className="field__required">必須</span> : <span className="field__optional">任意</span>}
      </label>
      {f.hint && (
        <p className="field__hint" id={`${f.id}-hint`}>
          {f.hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${f.id}-error`}>
          <Icon href={iconHref} name="warning_filled" />
          <span className="visually-hidden">エラー：</span>
          {error}
        </p>
      )}
      <div className="field__control">
        {control}
        {f.lookup && (
          <button
            type="submit"
            className="btn btn--sm btn--secondary field__button"
            name="lookup"
            value={f.id}
            onClick={(e) => onLookupClick(e, f)}
          >
            <Icon href={iconHref} name="search" />
            <span>
              住所を検索<span className="visually-hidden">（{f.lookup.label}）</span>
            </span>
          </button>
        )}
      </div>
      {f.lookup && (
        // Present from the start so that a lookup's outcome is announced.
        <p className={status?.note ? "field__status field__status--note" : "field__status"} id={`${f.id}-status`} role="status">
          {status?.text ?? ""}
        </p>
      )}
    </div>
  );
}
