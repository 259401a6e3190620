// The snackbar island: enhances the server-rendered flash notice with SPEC.md §4 timing.
//
// Server fallback (the island replaces it; same classes so one stylesheet serves both),
// inside the layout's <div class="snackbar-region">:
//   <div data-island="snackbar" data-props='{"color":…,"title":…,"text":…,"duration":…,"iconHref":…}'>
//     <div class="snackbar snackbar--success" role="status">
//       <svg class="icon" aria-hidden="true"><use href="/static/icons.HASH.svg#check_circle"></use></svg>
//       <div class="snackbar__body"><p class="snackbar__title">…</p><p class="snackbar__text">…</p></div>
//       <a class="snackbar__close" href="/current/path">閉じる</a>
//     </div>
//   </div>
// The island renders <div class="snackbar-live" role="status"> around the same .snackbar, with
// a <button type="button" class="snackbar__close"> and, while not shown, .snackbar--hidden and
// data-state="hidden" (data-state="shown" otherwise).
//
// Lifecycle: mounted hidden → shown after SHOW_DELAY_MS → auto-closed `duration` ms later
// (or by 閉じる) → hidden → cleared HIDE_DELAY_MS later. While the pointer or focus is on the
// notice the auto-close waits (WCAG 2.2.1), and restarts the full duration afterwards.
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../lib/Icon";
import { SNACKBAR_EVENT, type SnackbarColor, type SnackbarNotice } from "../lib/snackbar-events";
import { Toaster } from "../lib/toast";

export const SHOW_DELAY_MS = 100;
export const HIDE_DELAY_MS = 400;
export const DEFAULT_DURATION_MS = 5000;
export const CLOSE_LABEL = "閉じる";

export type { SnackbarColor, SnackbarNotice };

export interface SnackbarProps {
  color: SnackbarColor;
  title: string;
  text: string;
  duration?: number;
  /** Sprite URL, e.g. "/static/icons.abc123.svg". */
  iconHref: string;
}

/** Icon by colour (SPEC.md §4): success a check, error a warning, otherwise info. */
export function snackbarIcon(color: string): string {
  if (color === "success") return "check_circle";
  if (color === "error") return "warning";
  return "info";
}

type Notice = Required<SnackbarNotice>;
type Phase = "entering" | "shown" | "leaving";

interface State {
  notice: Notice | null;
  phase: Phase;
}

function normalise(n: Partial<SnackbarNotice> | null | undefined): Notice {
  const color = n?.color === "success" || n?.color === "error" ? n.color : "info";
  const d = Number(n?.duration);
  return {
    color,
    title: typeof n?.title === "string" ? n.title : "",
    text: typeof n?.text === "string" ? n.text : "",
    duration: Number.isFinite(d) && d > 0 ? d : DEFAULT_DURATION_MS,
  };
}

export default function Snackbar(props: SnackbarProps) {
  // A page whose islands may raise notices gets the snackbar with none (no title, no
  // text): it waits, hidden, for the first showSnackbar().
  const [state, setState] = useState<State>(() =>
    props.title || props.text ? { notice: normalise(props), phase: "entering" } : { notice: null, phase: "leaving" },
  );
  const [paused, setPaused] = useState(false);

  // Setting a new notice: hide, then show after SHOW_DELAY_MS.
  useEffect(() => {
    const onNotice = (e: Event) => {
      setPaused(false);
      setState({ notice: normalise((e as CustomEvent<SnackbarNotice>).detail), phase: "entering" });
    };
    window.addEventListener(SNACKBAR_EVENT, onNotice);
    return () => window.removeEventListener(SNACKBAR_EVENT, onNotice);
  }, []);

  useEffect(() => {
    const { notice, phase } = state;
    if (!notice) return;
    let delay: number;
    let next: State;
    if (phase === "entering") {
      delay = SHOW_DELAY_MS;
      next = { notice, phase: "shown" };
    } else if (phase === "shown") {
      if (paused) return;
      delay = notice.duration;
      next = { notice, phase: "leaving" };
    } else {
      delay = HIDE_DELAY_MS;
      next = { notice: null, phase: "leaving" };
    }
    const timer = setTimeout(() => setState(next), delay);
    return () => clearTimeout(timer);
  }, [state, paused]);

  const close = useCallback(() => {
    setState((s) => (s.notice && s.phase !== "leaving" ? { notice: s.notice, phase: "leaving" } : s));
  }, []);

  const { notice, phase } = state;
  const hidden = phase !== "shown";
  return (
    // The live region stays from mount to unmount so screen readers announce each notice.
    // (Not .snackbar-region: the layout already wraps the island in that fixed box.) The
    // page's toasts (islands/lib/toast.tsx) are hosted here too, in their own corner.
    <>
      <Toaster />
      <div className="snackbar-live" role="status">
        {notice && (
          <div
            className={`snackbar snackbar--${notice.color}${hidden ? " snackbar--hidden" : ""}`}
            data-state={hidden ? "hidden" : "shown"}
            // While hidden it is out of the accessibility tree and the tab order, so showing it
            // is an addition to the live region (announced) whatever the CSS does.
            inert={hidden}
            onMouseEnter={() => setPaused(true)}
            onMouseLeave={() => setPaused(false)}
            onFocus={() => setPaused(true)}
            onBlur={(e) => {
              if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setPaused(false);
            }}
          >
            <Icon href={props.iconHref} name={snackbarIcon(notice.color)} />
            <div className="snackbar__body">
              {notice.title && <p className="snackbar__title">{notice.title}</p>}
              {notice.text && <p className="snackbar__text">{notice.text}</p>}
            </div>
            <button type="button" className="snackbar__close" onClick={close}>
              {CLOSE_LABEL}
            </button>
          </div>
        )}
      </div>
    </>
  );
}
