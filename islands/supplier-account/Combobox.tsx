// An ARIA 1.2 combobox with a list popup (the APG "list autocomplete" pattern): the text
// box keeps focus, the highlighted option is aria-activedescendant, Enter or a click chooses.
// Used for the bank and for the branch; the caller owns the chosen code (a hidden input).
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { codeOf } from "./digits";

export interface Choice {
  code: string;
  name: string;
  kana: string;
}

export const FETCH_FAILED = "候補を取得できませんでした。時間をおいてお試しください";
export const NO_MATCH = "該当する候補がありません";
export const DEBOUNCE_MS = 200;

export const countText = (n: number) => `${n}件の候補があります`;

export interface ComboboxProps {
  /** "bank" or "branch": the ids are bank_search, bank_listbox, bank_search-hint, … */
  name: string;
  label: string;
  hint: string;
  /** The chosen code ("" for none), kept by the caller in a hidden input. */
  code: string;
  /** Digits of a code typed by hand (4 for a bank, 3 for a branch). */
  codeLength: number;
  initialText: string;
  disabled?: boolean;
  error: ReactNode;
  hasError: boolean;
  /** The list for an empty text without asking the server (the major banks). */
  initial?: Choice[];
  search: (q: string, signal: AbortSignal) => Promise<Choice[]>;
  /** A choice, a code typed by hand, or "" once the text no longer names the choice. */
  onCode: (code: string) => void;
  /** The message to show when search fails; FETCH_FAILED for a network or server failure. */
  failureText: (err: unknown) => string;
}

export function Combobox(p: ComboboxProps) {
  const inputId = `${p.name}_search`;
  const listId = `${p.name}_listbox`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(p.initialText);
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<Choice[]>([]);
  const [active, setActive] = useState(-1);
  // Why the last search failed; shown until a search succeeds.
  const [failure, setFailure] = useState("");
  // The text the listed options answer, so reopening the list does not search again.
  const listedFor = useRef<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inflight = useRef<AbortController | null>(null);
  // Every search takes a number; only the latest may change the list (answers can overtake).
  const seq = useRef(0);

  const optionId = (i: number) => `${p.name}_option-${options[i]?.code}`;
  // The highlighted option stays highlighted when an answer that still lists it arrives
  // (the list is replaced while the person is already moving through it).
  const activeCode = useRef("");
  activeCode.current = open && active >= 0 ? (options[active]?.code ?? "") : "";

  const cancel = () => {
    clearTimeout(timer.current);
    inflight.current?.abort();
    inflight.current = null;
    seq.current++;
  };
  useEffect(() => cancel, []);

  function show(list: Choice[], q: string, first: number) {
    setOptions(list);
    listedFor.current = q;
    setFailure("");
    // An answer that arrives after the person left the box must not pop a list up.
    const focused = document.activeElement === inputRef.current;
    setOpen(focused);
    const kept = activeCode.current ? list.findIndex((c) => c.code === activeCode.current) : -1;
    setActive(!focused || !list.length ? -1 : kept >= 0 ? kept : first < 0 ? -1 : Math.min(first, list.length - 1));
  }

  function search(q: string, delay: number, first = -1) {
    cancel();
    if (q === "" && p.initial) {
      show(p.initial, q, first);
      return;
    }
    const n = seq.current;
    timer.current = setTimeout(async () => {
      const ctrl = new AbortController();
      inflight.current = ctrl;
      try {
        const list = await p.search(q, ctrl.signal);
        if (n === seq.current) show(list, q, first);
      } catch (err) {
        if (n !== seq.current) return;
        listedFor.current = null;
        setOptions([]);
        setOpen(false);
        setActive(-1);
        setFailure(p.failureText(err));
      }
    }, delay);
  }

  /** Opens the list for the current text; first is the option to highlight (-1 none, or n-1 for last). */
  function openList(first: number) {
    const q = text.trim();
    if (listedFor.current === q) {
      setOpen(true);
      setActive(options.length ? (first < 0 ? -1 : Math.min(first, options.length - 1)) : -1);
    } else {
      search(q, 0, first);
    }
  }

  function close() {
    setOpen(false);
    setActive(-1);
  }

  function choose(c: Choice) {
    cancel();
    setText(c.name);
    close();
    p.onCode(c.code);
  }

  useEffect(() => {
    if (open && active >= 0) document.getElementById(optionId(active))?.scrollIntoView?.({ block: "nearest" });
  }, [open, active]); // eslint-disable-line react-hooks/exhaustive-deps

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    // Enter that confirms an IME conversion is not ours.
    if (e.nativeEvent.isComposing || e.keyCode === 229) return;
    const n = options.length;
    const shown = open && n > 0;
    switch (e.key) {
      case "ArrowDown":
        e.preventDefault();
        if (!shown) openList(e.altKey ? -1 : 0);
        else setActive((active + 1) % n);
        break;
      case "ArrowUp":
        e.preventDefault();
        if (!shown) openList(Number.MAX_SAFE_INTEGER);
        else setActive(active <= 0 ? n - 1 : active - 1);
        break;
      case "Enter":
        // While the list is open, Enter chooses (or just closes it): it never submits the form.
        if (!open) break;
        e.preventDefault();
        if (active >= 0 && active < n) choose(options[active]);
        else close();
        break;
      case "Escape":
        if (open) {
          e.preventDefault();
          close();
        }
        break;
    }
  }

  const expanded = open && options.length > 0;
  const describedBy = [`${inputId}-hint`, p.hasError ? `${inputId}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className={p.hasError ? "field field--error" : "field"}>
      <label className="field__label" htmlFor={inputId} id={`${inputId}-label`}>
        {p.label}
        <span className="field__required">必須</span>
      </label>
      <p className="field__hint" id={`${inputId}-hint`}>
        {p.hint}
      </p>
      {p.error}
      <div className="field__control">
        <input
          ref={inputRef}
          className="field__input"
          id={inputId}
          type="text"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
          aria-required="true"
          aria-invalid={p.hasError || undefined}
          aria-describedby={describedBy}
          autoComplete="off"
          spellCheck={false}
          disabled={p.disabled}
          value={text}
          onInput={(e) => {
            const v = e.currentTarget.value;
            setText(v);
            // Typing undoes a choice. A code typed by hand (all 4 or 3 digits) stands in for one,
            // so people can go on when the search is out of reach; the server checks it. This is
            // done as they type rather than on change so that Tab from a bank code typed by hand
            // finds the branch box already enabled.
            const typed = codeOf(v, p.codeLength);
            if (typed !== p.code) p.onCode(typed);
            search(v.trim(), v.trim() === "" && p.initial ? 0 : DEBOUNCE_MS);
          }}
          onKeyDown={onKeyDown}
          onFocus={() => {
            if (!p.code) openList(-1);
          }}
          onClick={() => {
            if (!open) openList(-1);
          }}
          onBlur={close}
        />
      </div>
      <ul
        className="combo__list"
        id={listId}
        role="listbox"
        aria-labelledby={`${inputId}-label`}
        hidden={!expanded}
        // Keep focus in the text box while an option is clicked or the list scrolled.
        onMouseDown={(e) => e.preventDefault()}
      >
        {options.map((c, i) => (
          <li key={c.code} id={optionId(i)} role="option" className="combo__option" aria-selected={i === active} onClick={() => choose(c)}>
            <span>{c.name}</span>
            <span className="choice-list__hint">
              {c.kana}　{c.code}
            </span>
          </li>
        ))}
      </ul>
      <p className="field__status field__status--note" id={`${inputId}-status`} role="status">
        {failure || (open ? (options.length ? countText(options.length) : NO_MATCH) : "")}
      </p>
    </div>
  );
}
