// Lets any island put up a new notice on the page's snackbar island (SPEC.md §4: "setting a
// notice hides it, then shows it after 100 ms") without bundling the snackbar itself.

export const SNACKBAR_EVENT = "cardpay:snackbar";

export type SnackbarColor = "success" | "error" | "info";

export interface SnackbarNotice {
  color: SnackbarColor;
  title: string;
  text: string;
  /** Milliseconds the notice stays shown; missing or ≤ 0 means 5000. */
  duration?: number;
}

export function showSnackbar(notice: SnackbarNotice, target: EventTarget = window): void {
  target.dispatchEvent(new CustomEvent<SnackbarNotice>(SNACKBAR_EVENT, { detail: notice }));
}
