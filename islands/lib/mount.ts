// Mounts React islands over their server-rendered fallbacks (DESIGN.md §2 Islands, §6).
//
// The server renders <div data-island="NAME" data-props='{json}'>FALLBACK</div> and one
// <script type="module"> for the island, whose entry is just
//   boot("NAME", () => import("./Component"));
// We use createRoot over the fallback, never hydrateRoot: React did not render that markup,
// and hydrating it fails with error #418.
import { Component, type ComponentType, type ErrorInfo, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";
// jsx() is what <X {...props} /> compiles to. Using it (not createElement) here puts the JSX
// runtime in the same shared chunk as React instead of a chunk of its own.
import { jsx } from "react/jsx-runtime";

/**
 * sessionStorage key that stops a reload loop when island code cannot be fetched (SPEC.md §8).
 * Its value is the address the page was reloaded at.
 */
export const RELOAD_FLAG = "cardpay:island-reloaded";

/**
 * Set on every island element once boot() has claimed it, so each is mounted once:
 * "pending" while loading, "true" once React has committed, "error" when the fallback was kept.
 */
export const MOUNTED_ATTR = "data-island-mounted";

export type IslandModule = { default: ComponentType<any> };

export interface BootOptions {
  /** Defaults to location.reload(); injectable because jsdom cannot navigate. */
  reload?: () => void;
  /** Defaults to window.sessionStorage. */
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
}

/**
 * Mounts every not-yet-mounted [data-island="name"] element with the component from load().
 * Never rejects: failures are logged and leave the server fallback in place.
 */
export async function boot(
  name: string,
  load: () => Promise<IslandModule>,
  options: BootOptions = {},
): Promise<void> {
  const elements = Array.from(
    document.querySelectorAll<HTMLElement>(`[data-island]:not([${MOUNTED_ATTR}])`),
  ).filter((el) => el.dataset.island === name);
  if (elements.length === 0) return;
  // Claim before the first await so a second boot() for the same island skips these.
  for (const el of elements) el.setAttribute(MOUNTED_ATTR, "pending");

  const storage = options.storage === undefined ? sessionStorageOrNull() : options.storage;

  let mod: IslandModule;
  try {
    mod = await load();
  } catch (err) {
    for (const el of elements) el.setAttribute(MOUNTED_ATTR, "error");
    reloadOnce(name, err, storage, options.reload ?? (() => window.location.reload()));
    return;
  }
  // The code arrived: a later failure to load may reload again.
  safely(() => storage?.removeItem(RELOAD_FLAG));

  const island = mod?.default;
  if (typeof island !== "function" && (typeof island !== "object" || island === null)) {
    // A bug, not a network failure: reloading would not help.
    for (const el of elements) el.setAttribute(MOUNTED_ATTR, "error");
    console.error(`island ${name}: the module has no default export component, the server fallback stays`);
    return;
  }

  for (const el of elements) {
    try {
      mountOne(name, el, island);
    } catch (err) {
      el.setAttribute(MOUNTED_ATTR, "error");
      console.error(`island ${name}: not mounted, the server fallback stays`, err);
    }
  }
}

// SPEC.md §8 "screen load failure": reload once; if this session already reloaded, log and
// stay. The page is server-rendered, so staying leaves a working no-JS fallback.
function reloadOnce(name: string, err: unknown, storage: BootOptions["storage"], reload: () => void) {
  const flag = safely(() => storage?.getItem(RELOAD_FLAG));
  const alreadyReloaded = flag !== null && flag !== undefined;
  if (!storage || alreadyReloaded) {
    console.error(`island ${name}: code failed to load, the server fallback stays`, err);
    return;
  }
  const flagged = safely(() => {
    storage.setItem(RELOAD_FLAG, window.location.href);
    return true;
  });
  if (!flagged) {
    // Without the flag a reload could loop; keep the fallback instead.
    console.error(`island ${name}: code failed to load, the server fallback stays`, err);
    return;
  }
  console.error(`island ${name}: code failed to load, reloading the page once`, err);
  reload();
}

/**
 * SPEC.md §2: the reload flag "is cleared on page load", so that a failure on a later page
 * reloads again. The one load that keeps it is the reload boot() asked for (a reload of
 * the address in the flag): a second failure there must not reload again. Runs once per
 * page, when this shared module is first evaluated; exported for the tests.
 */
export function clearReloadFlagOnLoad(
  storage: BootOptions["storage"],
  navigationType: string | undefined,
  href: string,
): void {
  if (!storage) return;
  const flag = safely(() => storage.getItem(RELOAD_FLAG));
  if (flag === null || flag === undefined) return;
  if (navigationType === "reload" && flag === href) return;
  safely(() => storage.removeItem(RELOAD_FLAG));
}

function currentNavigationType(): string | undefined {
  return safely(() => {
    const [nav] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
    return nav?.type;
  });
}

if (typeof window !== "undefined") {
  clearReloadFlagOnLoad(sessionStorageOrNull(), currentNavigationType(), window.location.href);
}

function mountOne(name: string, el: HTMLElement, island: ComponentType<any>) {
  const props: unknown = JSON.parse(el.dataset.props || "{}");
  if (typeof props !== "object" || props === null || Array.isArray(props)) {
    throw new TypeError(`data-props must be a JSON object`);
  }
  // createRoot empties the element on its first commit; keep the fallback's nodes so a
  // component that throws while rendering can put them back.
  const fallback = Array.from(el.childNodes);
  let root: Root | undefined;
  const restore = (err: unknown) => {
    console.error(`island ${name}: failed while rendering, the server fallback is back`, err);
    el.setAttribute(MOUNTED_ATTR, "error");
    // Unmounting inside React's commit is not allowed; do it straight after.
    setTimeout(() => {
      root?.unmount();
      el.replaceChildren(...fallback);
    }, 0);
  };
  root = createRoot(el, {
    // Errors caught by IslandBoundary are reported by restore(); stop React logging them twice.
    onCaughtError: () => {},
  });
  root.render(
    jsx(IslandBoundary, {
      onError: restore,
      onMounted: () => el.setAttribute(MOUNTED_ATTR, "true"),
      children: jsx(island, props),
    }),
  );
}

interface BoundaryProps {
  onError: (err: unknown) => void;
  onMounted: () => void;
  children: ReactNode;
}

class IslandBoundary extends Component<BoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidMount() {
    if (!this.state.failed) this.props.onMounted();
  }

  componentDidCatch(err: unknown, _info: ErrorInfo) {
    this.props.onError(err);
  }

  render() {
    return this.state.failed ? null : this.props.children;
  }
}

function sessionStorageOrNull(): Storage | null {
  // Reading window.sessionStorage throws when storage is blocked.
  return safely(() => window.sessionStorage) ?? null;
}

function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
