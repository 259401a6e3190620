// The loading overlay of SPEC.md §3 "App state flags". The layout renders
//   <div id="loading-overlay" class="loading-overlay" hidden>…</div>
// and <main id="main">; islands switch it on around slow calls (uploads, OCR, payments).

export const LOADING_OVERLAY_ID = "loading-overlay";
export const MAIN_ID = "main";

/** Shows or hides the overlay and marks <main> busy meanwhile. Missing elements are ignored. */
export function setLoading(on: boolean, doc: Document = document): void {
  doc.getElementById(LOADING_OVERLAY_ID)?.toggleAttribute("hidden", !on);
  const main = doc.getElementById(MAIN_ID);
  if (!main) return;
  if (on) main.setAttribute("aria-busy", "true");
  else main.removeAttribute("aria-busy");
}
