// Toasts (SPEC.md §9: 5000 ms by default, at most 20, top-right, swipe threshold 50): short
// notices an island raises with showToast() that stack in a corner without taking the
// page's one snackbar. The page's snackbar island hosts the <Toaster> (islands/snackbar),
// so every page with islands has one.
//
// Each toast's text is a polite live region, pauses while the pointer or focus is on it (WCAG
// 2.2.1), closes with its 閉じる button, by Escape while focused, or by a swipe of at least
// SWIPE_THRESHOLD_PX to the right (a shorter swipe snaps back).
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { createPortal } from "react-dom";

export const TOAST_EVENT = "cardpay:toast";
export const TOAST_DURATION_MS = 5000;
export const TOAST_LIMIT = 20;
export const SWIPE_THRESHOLD_PX = 50;
export const TOAST_CLOSE_LABEL = "閉じる";

export interface ToastNotice {
  title: string;
  text?: string;
  color?: "success" | "error" | "info";
  /** Milliseconds; missing or ≤ 0 means TOAST_DURATION_MS. */
  duration?: number;
}

export function showToast(t: ToastNotice, target: EventTarget = window): void {
  target.dispatchEvent(new CustomEvent<ToastNotice>(TOAST_EVENT, { detail: t }));
}

interface Item extends Required<ToastNotice> {
  key: number;
}

let nextKey = 1;

function normalise(t: Partial<ToastNotice> | null | undefined): Item {
  const d = Number(t?.duration);
  return {
    key: nextKey++,
    title: typeof t?.title === "string" ? t.title : "",
    text: typeof t?.text === "string" ? t.text : "",
    color: t?.color === "success" || t?.color === "error" ? t.color : "info",
    duration: Number.isFinite(d) && d > 0 ? d : TOAST_DURATION_MS,
  };
}

/** The toasts' corner; rendered into <body> so no positioned parent can move it. */
export function Toaster() {
  const [items, setItems] = useState<Item[]>([]);
  useEffect(() => {
    const onToast = (e: Event) => {
      const item = normalise((e as CustomEvent<ToastNotice>).detail);
      if (!item.title && !item.text) return;
      // The oldest go first past the limit.
      setItems((list) => [...list, item].slice(-TOAST_LIMIT));
    };
    window.addEventListener(TOAST_EVENT, onToast);
    return () => window.removeEventListener(TOAST_EVENT, onToast);
  }, []);
  const remove = (key: number) => setItems((list) => list.filter((i) => i.key !== key));
  if (typeof document === "undefined") return null;
  return createPortal(
    <ol className="toaster" aria-label="通知">
      {items.map((i) => (
        <Toast key={i.key} item={i} onClose={() => remove(i.key)} />
      ))}
    </ol>,
    document.body,
  );
}

function Toast({ item, onClose }: { item: Item; onClose: () => void }) {
  const [paused, setPaused] = useState(false);
  const [dx, setDx] = useState(0);
  const start = useRef<number | null>(null);
  // The Toaster hands a new onClose on each render; a new toast must not restart the timers.
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    if (paused) return;
    const timer = setTimeout(() => close.current(), item.duration);
    return () => clearTimeout(timer);
  }, [paused, item.duration]);

  const onPointerDown = (e: ReactPointerEvent<HTMLLIElement>) => {
    if ((e.target as HTMLElement).closest("button")) return;
    start.current = e.clientX;
    setPaused(true);
  };
  const onPointerMove = (e: ReactPointerEvent<HTMLLIElement>) => {
    if (start.current === null) return;
    setDx(Math.max(0, e.clientX - start.current));
  };
  const onPointerEnd = (e: ReactPointerEvent<HTMLLIElement>) => {
    if (start.current === null) return;
    const moved = e.clientX - start.current;
    start.current = null;
    setPaused(false);
    if (moved >= SWIPE_THRESHOLD_PX) onClose();
    else setDx(0);
  };

  return (
    <li
      className={`toast toast--${item.color}`}
      style={dx ? { transform: `translateX(${dx}px)` } : undefined}
      data-swiping={dx ? "true" : undefined}
      onPointerEnter={() => setPaused(true)}
      onPointerLeave={() => start.current === null && setPaused(false)}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
      onFocus={() => setPaused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setPaused(false);
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      {/* The live region is inside the <li>: a list holds only list items. */}
      <div className="toast__body" role="status" aria-live="polite">
        {item.title && <p className="toast__title">{item.title}</p>}
        {item.text && <p className="toast__text">{item.text}</p>}
      </div>
      <button type="button" className="toast__close" onClick={onClose}>
        {TOAST_CLOSE_LABEL}
      </button>
    </li>
  );
}
