// The card-entry island hosts the PSP's card fields; nothing in it reads a card.
// 割賦販売法 (非保持化) and PCI DSS SAQ A ask that the card be typed into the PSP's own form,
// so our page never touches the number or the security code:
//   - sandbox: the PSP's card-fields page in an <iframe> on the PSP's origin (props.fieldsUrl).
//     The frame tokenises inside its own origin and tells us, by postMessage, only that it is
//     busy, idle, its height, and that the setup has a card. We accept a message only from
//     props.pspOrigin, only from that iframe's window, and only with the fields' source tag;
//     we send nothing to the frame.
//   - stripe: Stripe.js (from js.stripe.com, never bundled) mounts its Payment Element, which
//     is Stripe's own iframe; stripe.confirmSetup() confirms the SetupIntent, with 3-D Secure
//     in Stripe's modal or by a redirect to returnUrl.
// Either way our server then gets a plain <form method="post" action={action}> with one hidden
// field, setup = the setup's id, submitted as a real navigation so its redirects (a 3-D Secure
// challenge on the PSP's page, the cards list) are followed by the browser.
// Without JavaScript, or when the island cannot start, the server's fallback form sends the
// buyer to the PSP's hosted card page. Props are views' CardEntryProps (example-props.json).
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { Icon } from "../lib/Icon";
import { setLoading } from "../lib/loading";

export interface CardEntryProps {
  /** Which PSP's fields to host. */
  psp: "sandbox" | "stripe";
  /** Where the setup id is posted (our origin), e.g. /myaccount/creditcards/new. */
  action: string;
  /** The card setup's id (sandbox setup_…, Stripe seti_…). */
  setup: string;
  /** The PSP's origin, e.g. http://localhost:8081: the only origin whose messages count (sandbox; Go may omit it for stripe). */
  pspOrigin?: string;
  /** The PSP's card-fields page for this setup, on pspOrigin (sandbox). */
  fieldsUrl?: string;
  /** Stripe's publishable key (stripe). */
  publishableKey?: string;
  /** The SetupIntent's client secret (stripe). */
  clientSecret?: string;
  /** Where Stripe sends the buyer back after a redirect (stripe), on our origin. */
  returnUrl?: string;
  /** Brand codes we take, in display order; Go sends null for none. */
  acceptedBrands: string[] | null;
  /** The icon sprite's URL; read from the server's fallback when absent. */
  iconHref?: string;
  /** The submit button's text (stripe: the fields' own button in the sandbox frame). */
  submitLabel?: string;
}

/** data.source of every message from the sandbox's card fields. */
export const FIELDS_SOURCE = "sandbox-card-fields";
export const FRAME_TITLE = "カード情報の入力（決済代行会社のページ）";
export const DIRECT_NOTE = "カード情報は当社のサーバーを経由せず、決済代行会社へ直接送信されます。";
export const DEFAULT_SUBMIT_LABEL = "カードを登録する";
/** The frame's height until it says how tall it is. */
export const INITIAL_FRAME_HEIGHT = 480;
/** A frame asking for more than this is clamped (it scrolls inside instead). */
export const MAX_FRAME_HEIGHT = 4000;

export const STRIPE_JS = "https://js.stripe.com/v3/";
/** Stripe.js that has not loaded in this time is treated as blocked. */
export const STRIPE_LOAD_TIMEOUT_MS = 20_000;

export const STATUS = {
  busy: "カード情報を確認しています。しばらくお待ちください。",
  tokenized: "カード情報を受け付けました。カードを登録しています。",
  loading: "カード情報の入力欄を読み込んでいます。",
} as const;
export const MESSAGES = {
  stripeUnavailable:
    "カード情報の入力欄を読み込めませんでした。通信環境をご確認のうえページを再読み込みいただくか、下のボタンから決済代行会社の画面でカードを登録してください。",
  stripeFailed: "カードを登録できませんでした。時間をおいて、もう一度お試しください。",
} as const;

const BRAND_LABELS: Record<string, string> = { JCB: "JCB", VISA: "VISA", MASTER: "Mastercard" };
const ISLAND = "[data-island='card-entry']";
const SETUP_FIELD = "setup";

/** The Payment Element's look, close to static/css/app.css (Stripe draws it in its own frame). */
const STRIPE_APPEARANCE = {
  theme: "stripe",
  variables: {
    colorPrimary: "#0b4ea2",
    colorText: "#1c2430",
    colorDanger: "#b3261e",
    borderRadius: "6px",
    fontFamily: '"Hiragino Sans", "Hiragino Kaku Gothic ProN", "Noto Sans JP", "Yu Gothic", Meiryo, sans-serif',
  },
};

// The little of Stripe.js we use (https://docs.stripe.com/js).
interface StripeError {
  type?: string;
  message?: string;
  setup_intent?: { id?: string; status?: string };
}
interface SetupIntentLike {
  id: string;
  status: string;
}
export interface StripePaymentElement {
  mount(el: HTMLElement): void;
  destroy(): void;
  on(event: "ready" | "loaderror", handler: (e?: unknown) => void): void;
  focus?(): void;
}
export interface StripeElements {
  create(type: "payment", options?: Record<string, unknown>): StripePaymentElement;
}
export interface StripeInstance {
  elements(options: { clientSecret: string; appearance?: unknown }): StripeElements;
  confirmSetup(options: {
    elements: StripeElements;
    redirect: "if_required";
    confirmParams: { return_url: string };
  }): Promise<{ error?: StripeError; setupIntent?: SetupIntentLike }>;
}
export type StripeConstructor = (publishableKey: string, options: { locale: string }) => StripeInstance;
type WindowWithStripe = Window & { Stripe?: StripeConstructor };

/** Stripe.js, loaded once by a <script> from js.stripe.com (it must never be bundled). */
export function loadStripe(): Promise<StripeConstructor> {
  const w = window as WindowWithStripe;
  if (typeof w.Stripe === "function") return Promise.resolve(w.Stripe);
  return new Promise((resolve, reject) => {
    let script = document.querySelector<HTMLScriptElement>(`script[src='${STRIPE_JS}']`);
    if (!script) {
      script = document.createElement("script");
      script.src = STRIPE_JS;
      script.async = true;
      document.head.append(script);
    }
    const el = script;
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      el.removeEventListener("load", onLoad);
      el.removeEventListener("error", onError);
      if (ok && typeof w.Stripe === "function") return resolve(w.Stripe);
      // Blocked, offline, or not Stripe.js: a later attempt adds a fresh tag.
      if (!ok) el.remove();
      reject(new Error("card-entry: Stripe.js could not be loaded"));
    };
    const onLoad = () => settle(true);
    const onError = () => settle(false);
    const timer = setTimeout(() => settle(false), STRIPE_LOAD_TIMEOUT_MS);
    el.addEventListener("load", onLoad);
    el.addEventListener("error", onError);
  });
}

/** An http(s) origin as the browser serialises it (event.origin), or an error. */
function originOf(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`card-entry: ${what} must be an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`card-entry: ${what} must be http(s)`);
  return url.origin;
}

interface Checked {
  psp: "sandbox" | "stripe";
  pspOrigin: string;
  fieldsUrl: string;
}

/**
 * Refuses props that could send a card, or the setup, anywhere but where they belong; the
 * thrown error keeps the server's fallback (lib/mount's boundary puts it back).
 */
function checkProps(p: CardEntryProps): Checked {
  const ours = window.location.origin;
  if (new URL(p.action, window.location.href).origin !== ours) throw new Error("card-entry: action must be on our origin");
  if (p.psp === "sandbox") {
    const pspOrigin = originOf(p.pspOrigin ?? "", "pspOrigin");
    if (pspOrigin === ours) throw new Error("card-entry: pspOrigin must be the PSP's origin, not ours");
    if (!p.fieldsUrl || originOf(p.fieldsUrl, "fieldsUrl") !== pspOrigin) {
      throw new Error("card-entry: fieldsUrl must be on pspOrigin");
    }
    if (!p.setup) throw new Error("card-entry: setup is missing");
    return { psp: "sandbox", pspOrigin, fieldsUrl: new URL(p.fieldsUrl).href };
  }
  if (p.psp === "stripe") {
    if (p.pspOrigin && originOf(p.pspOrigin, "pspOrigin") === ours) throw new Error("card-entry: pspOrigin must not be ours");
    if (!p.publishableKey || !p.clientSecret) throw new Error("card-entry: publishableKey and clientSecret are required");
    if (!p.returnUrl) throw new Error("card-entry: returnUrl is required");
    originOf(p.returnUrl, "returnUrl");
    return { psp: "stripe", pspOrigin: "", fieldsUrl: "" };
  }
  throw new Error(`card-entry: unknown psp ${JSON.stringify(p.psp)}`);
}

/** What the server rendered before the island (read before React's first commit empties it). */
function readFallback() {
  const root = document.querySelector(ISLAND);
  const active = document.activeElement;
  return {
    focused: !!(root && active && active !== document.body && root.contains(active)),
    iconHref: root?.querySelector("use")?.getAttribute("href")?.split("#")[0] ?? "",
    // Put back under our message when Stripe.js cannot load: the hosted card page still works.
    nodes: root ? Array.from(root.childNodes, (n) => n.cloneNode(true)) : [],
  };
}

export default function CardEntryForm(props: CardEntryProps) {
  const checked = useMemo(
    () => checkProps(props),
    [props.psp, props.action, props.setup, props.pspOrigin, props.fieldsUrl, props.publishableKey, props.clientSecret, props.returnUrl],
  );
  const [fallback] = useState(readFallback);
  const postRef = useRef<HTMLFormElement>(null);
  const setupRef = useRef<HTMLInputElement>(null);
  /** Set once the setup is being posted: nothing else happens on this page after that. */
  const posting = useRef(false);

  /** Posts the setup id to our server as a real navigation; the overlay stays until the page goes. */
  function post(setup: string) {
    if (posting.current) return;
    posting.current = true;
    setLoading(true);
    setupRef.current!.value = setup;
    postRef.current!.submit();
  }

  // Back through the back/forward cache after posting: usable again.
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const onPageShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      posting.current = false;
      setLoading(false);
      setGeneration((n) => n + 1);
    };
    window.addEventListener("pageshow", onPageShow);
    return () => window.removeEventListener("pageshow", onPageShow);
  }, []);

  const postForm = (
    // What our server receives: the setup's id, nothing else.
    <form ref={postRef} method="post" action={props.action} hidden>
      <input ref={setupRef} type="hidden" name={SETUP_FIELD} defaultValue="" />
    </form>
  );

  return (
    <div className="card-entry">
      {checked.psp === "sandbox" ? (
        <SandboxFields
          key={generation}
          setup={props.setup}
          pspOrigin={checked.pspOrigin}
          fieldsUrl={checked.fieldsUrl}
          focus={fallback.focused}
          posting={posting}
          onTokenized={post}
        />
      ) : (
        <StripeFields
          key={generation}
          props={props}
          iconHref={props.iconHref || fallback.iconHref}
          fallback={fallback.nodes}
          focus={fallback.focused}
          posting={posting}
          onConfirmed={post}
        />
      )}
      {postForm}
    </div>
  );
}

interface SandboxProps {
  setup: string;
  pspOrigin: string;
  fieldsUrl: string;
  focus: boolean;
  posting: { current: boolean };
  onTokenized: (setup: string) => void;
}

interface FieldsMessage {
  source: typeof FIELDS_SOURCE;
  type: string;
  height?: unknown;
  setup?: unknown;
}

function SandboxFields({ setup, pspOrigin, fieldsUrl, focus, posting, onTokenized }: SandboxProps) {
  const frameRef = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(INITIAL_FRAME_HEIGHT);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const latest = useRef(onTokenized);
  latest.current = onTokenized;

  useEffect(() => {
    // The buyer was on the fallback's button: carry on in the fields.
    if (focus) frameRef.current?.focus();
    // Once, after the island replaced the fallback.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      const frame = frameRef.current;
      // Only the PSP's origin, only our frame's window (not another frame of the same
      // origin), only the fields' own messages.
      if (!frame || e.origin !== pspOrigin || e.source === null || e.source !== frame.contentWindow) return;
      const data = e.data as FieldsMessage | null;
      if (typeof data !== "object" || data === null || data.source !== FIELDS_SOURCE) return;
      switch (data.type) {
        case "resize": {
          const h = data.height;
          if (typeof h === "number" && Number.isFinite(h) && h > 0) setHeight(Math.min(Math.ceil(h), MAX_FRAME_HEIGHT));
          return;
        }
        case "busy":
          if (posting.current) return;
          setBusy(true);
          setStatus(STATUS.busy);
          setLoading(true);
          return;
        case "idle":
          // Tokenising ended without a card: the frame shows its errors itself.
          if (posting.current) return;
          setBusy(false);
          setStatus("");
          setLoading(false);
          return;
        case "tokenized":
          // The setup in the frame is this page's setup; anything else is not ours to post.
          if (posting.current || (data.setup !== undefined && data.setup !== setup)) return;
          setBusy(true);
          setStatus(STATUS.tokenized);
          latest.current(setup);
          return;
      }
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [pspOrigin, setup, posting]);

  // Leaving the page mid-way (tests, a remount): never leave the overlay up.
  useEffect(
    () => () => {
      if (!posting.current) setLoading(false);
    },
    [posting],
  );

  return (
    <div className="card-entry__fields" aria-busy={busy || undefined}>
      <p className="card-entry__note">{DIRECT_NOTE}</p>
      <iframe
        ref={frameRef}
        className="card-entry__frame"
        src={fieldsUrl}
        title={FRAME_TITLE}
        // The frame keeps its own origin (its script posts to it) but may not navigate our
        // page, open windows or reach anything of ours.
        sandbox="allow-scripts allow-forms allow-same-origin"
        referrerPolicy="strict-origin-when-cross-origin"
        // Set through the CSSOM, which a CSP without 'unsafe-inline' styles allows.
        style={{ width: "100%", height: `${height}px`, border: 0, display: "block" }}
      />
      <p className="card-entry__status visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
    </div>
  );
}

interface StripeProps {
  props: CardEntryProps;
  iconHref: string;
  fallback: Node[];
  focus: boolean;
  posting: { current: boolean };
  onConfirmed: (setup: string) => void;
}

type StripeState = "loading" | "ready" | "unavailable";

function StripeFields({ props, iconHref, fallback, focus, posting, onConfirmed }: StripeProps) {
  const mountRef = useRef<HTMLDivElement>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);
  const fallbackRef = useRef<HTMLDivElement>(null);
  const stripeRef = useRef<{ stripe: StripeInstance; elements: StripeElements } | null>(null);
  const confirming = useRef(false);
  const [state, setState] = useState<StripeState>("loading");
  const [error, setError] = useState("");
  /** Bumped by each failed confirmation, to focus the error once it has rendered. */
  const [failures, setFailures] = useState(0);
  const [busy, setBusy] = useState(false);

  const { publishableKey = "", clientSecret = "", returnUrl = "" } = props;
  useEffect(() => {
    let cancelled = false;
    let element: StripePaymentElement | null = null;
    const unavailable = () => {
      if (cancelled) return;
      stripeRef.current = null;
      setState("unavailable");
    };
    loadStripe()
      .then((Stripe) => {
        if (cancelled) return;
        const stripe = Stripe(publishableKey, { locale: "ja" });
        const elements = stripe.elements({ clientSecret, appearance: STRIPE_APPEARANCE });
        element = elements.create("payment");
        element.on("loaderror", unavailable);
        element.on("ready", () => {
          if (focus && !cancelled) element?.focus?.();
        });
        element.mount(mountRef.current!);
        stripeRef.current = { stripe, elements };
        setState("ready");
      })
      .catch(unavailable);
    return () => {
      cancelled = true;
      stripeRef.current = null;
      try {
        element?.destroy();
      } catch {
        // Already gone with its frame.
      }
    };
  }, [publishableKey, clientSecret, focus]);

  // The server's hosted-page form under our message, as it was before the island.
  useEffect(() => {
    if (state === "unavailable") fallbackRef.current?.replaceChildren(...fallback.map((n) => n.cloneNode(true)));
  }, [state, fallback]);

  useLayoutEffect(() => {
    if (failures > 0) errorRef.current?.focus();
  }, [failures]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const s = stripeRef.current;
    if (!s || confirming.current || posting.current) return;
    confirming.current = true;
    setBusy(true);
    setError("");
    setLoading(true);
    let result: Awaited<ReturnType<StripeInstance["confirmSetup"]>> | null = null;
    try {
      // 3-D Secure in Stripe's own modal; a payment method that needs a redirect leaves the
      // page for returnUrl?setup_intent=…, which the server handles (this promise then never
      // settles, and the overlay stays until the page goes).
      result = await s.stripe.confirmSetup({
        elements: s.elements,
        redirect: "if_required",
        confirmParams: { return_url: returnUrl },
      });
    } catch {
      result = null;
    }
    const intent = result?.setupIntent ?? (result?.error?.setup_intent as SetupIntentLike | undefined);
    if (intent?.id && (intent.status === "succeeded" || intent.status === "processing")) {
      onConfirmed(intent.id);
      return;
    }
    confirming.current = false;
    setBusy(false);
    setLoading(false);
    const err = result?.error;
    // Card and input errors are written for the buyer (in Japanese, locale "ja"); others are not.
    const shown = err && (err.type === "card_error" || err.type === "validation_error") && err.message;
    setError(shown || MESSAGES.stripeFailed);
    setFailures((n) => n + 1);
  }

  if (state === "unavailable") {
    return (
      <>
        <div className="callout callout--error" role="alert">
          <p>{MESSAGES.stripeUnavailable}</p>
        </div>
        <div className="card-entry__fallback" ref={fallbackRef} />
      </>
    );
  }

  const accepted = (props.acceptedBrands ?? []).map((b) => BRAND_LABELS[b] ?? b);
  const label = props.submitLabel || DEFAULT_SUBMIT_LABEL;
  return (
    <form className="form card-entry__form" noValidate onSubmit={onSubmit} aria-busy={busy || undefined}>
      <p className="card-entry__note">{DIRECT_NOTE}</p>
      {accepted.length > 0 && <p className="field__hint">ご利用いただけるカード：{accepted.join("、")}</p>}
      <p className="card-entry__status field__hint" role="status" aria-live="polite">
        {state === "loading" ? STATUS.loading : busy ? STATUS.busy : ""}
      </p>
      <div className="card-entry__element" ref={mountRef} />
      {error && (
        <p className="field-error" role="alert" tabIndex={-1} ref={errorRef} id="card-entry-error">
          {iconHref && <Icon href={iconHref} name="warning_filled" />}
          <span className="visually-hidden">エラー：</span>
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="btn btn--md btn--primary" aria-disabled={state !== "ready" || busy || undefined}>
          {iconHref && <Icon href={iconHref} name="credit_card" />}
          <span>{label}</span>
        </button>
      </div>
    </form>
  );
}
