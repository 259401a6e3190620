// A tooltip (SPEC.md §9: delay 700 ms, skip delay 300 ms): the short name or description of
// a control, shown near it while the pointer rests on it or it has keyboard focus.
//   <Tooltip content="メールアドレスをコピー"><button aria-label="コピー">…</button></Tooltip>
// The trigger is described by the tooltip (aria-describedby) from the start, so a screen
// reader hears it on focus whether or not it is drawn. WCAG 1.4.13: Escape hides it without
// moving focus; the pointer can move onto it (it is inside the hovered box); it stays until
// the pointer or focus leaves. Focus shows it at once; hovering waits TOOLTIP_DELAY_MS,
// unless a tooltip closed less than TOOLTIP_SKIP_DELAY_MS ago (moving along a toolbar).
import { cloneElement, useEffect, useId, useRef, useState, type ReactElement } from "react";

export const TOOLTIP_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

// When the last tooltip of the page closed (performance.now()), shared like Radix's provider.
let lastClosedAt = Number.NEGATIVE_INFINITY;

/** For the tests: forget the last close. */
export function resetTooltipSkip() {
  lastClosedAt = Number.NEGATIVE_INFINITY;
}

export interface TooltipProps {
  content: string;
  /** One element that can take focus (a button or a link). */
  children: ReactElement<{ "aria-describedby"?: string }>;
}

export function Tooltip({ content, children }: TooltipProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const clear = () => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    timer.current = undefined;
  };
  const show = (wait: number) => {
    clear();
    if (wait <= 0) setOpen(true);
    else timer.current = setTimeout(() => setOpen(true), wait);
  };
  const hide = () => {
    clear();
    setOpen((was) => {
      if (was) lastClosedAt = performance.now();
      return false;
    });
  };
  useEffect(() => clear, []);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") hide();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  const described = [children.props["aria-describedby"], id].filter(Boolean).join(" ");
  return (
    <span
      className="tooltip"
      onPointerEnter={(e) => {
        if (e.pointerType === "touch") return;
        show(performance.now() - lastClosedAt < TOOLTIP_SKIP_DELAY_MS ? 0 : TOOLTIP_DELAY_MS);
      }}
      onPointerLeave={hide}
      onFocus={(e) => {
        // Keyboard focus only: a click's focus already has the pointer's tooltip.
        if ((e.target as HTMLElement).matches?.(":focus-visible")) show(0);
      }}
      onBlur={hide}
    >
      {cloneElement(children, { "aria-describedby": described })}
      <span role="tooltip" id={id} className="tooltip__content" hidden={!open}>
        {content}
      </span>
    </span>
  );
}
