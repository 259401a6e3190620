import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { boot, MOUNTED_ATTR } from "../lib/mount";
import CardEntryForm, {
  DIRECT_NOTE,
  FIELDS_SOURCE,
  FRAME_TITLE,
  INITIAL_FRAME_HEIGHT,
  MAX_FRAME_HEIGHT,
  MESSAGES,
  STATUS,
  STRIPE_JS,
  type CardEntryProps,
  type StripeConstructor,
} from "./CardEntryForm";
import exampleProps from "./example-props.json";
import fallbackHTML from "./example-fallback.html?raw";
import islandSource from "./CardEntryForm.tsx?raw";
import entrySource from "./index.ts?raw";

// example-props.json: the props the add page gives the island (a Go test keeps them equal to
// views' CardEntryProps), here the sandbox PSP. example-fallback.html: the server's no-JS
// form, which sends the buyer to the PSP's hosted card page.
const props = exampleProps as CardEntryProps;
const PSP = "http://localhost:8081";
const stripeProps: CardEntryProps = {
  psp: "stripe",
  action: "/myaccount/creditcards/new",
  setup: "seti_123",
  pspOrigin: "https://js.stripe.com",
  publishableKey: "pk_test_abc",
  clientSecret: "seti_123_secret_xyz",
  returnUrl: "http://localhost:3000/myaccount/creditcards/new/return",
  acceptedBrands: ["JCB", "VISA", "MASTER"],
  iconHref: "/static/icons.svg",
};

/** Every form the page submitted natively (form.submit()), with what it carried. */
let submitted: { action: string; method: string; fields: [string, string][] }[];

beforeEach(() => {
  // The layout's overlay and <main>, which setLoading() switches.
  document.body.innerHTML = '<main id="main"></main><div id="loading-overlay" class="loading-overlay" hidden></div>';
  submitted = [];
  vi.spyOn(HTMLFormElement.prototype, "submit").mockImplementation(function (this: HTMLFormElement) {
    submitted.push({
      action: this.getAttribute("action") ?? "",
      method: this.method,
      fields: Array.from(new FormData(this).entries()).map(([k, v]) => [k, String(v)]),
    });
  });
});

afterEach(() => {
  for (const s of document.head.querySelectorAll("script")) s.remove();
  delete (window as { Stripe?: unknown }).Stripe;
});

const overlayShown = () => !document.getElementById("loading-overlay")!.hidden;
const mainBusy = () => document.getElementById("main")!.getAttribute("aria-busy") === "true";

function renderIsland(p: CardEntryProps = props) {
  const container = document.getElementById("main")!.appendChild(document.createElement("div"));
  render(<CardEntryForm {...p} />, { container });
  return container;
}

// ---- sandbox: the PSP's fields in an iframe ----

const frame = () => screen.getByTitle(FRAME_TITLE) as HTMLIFrameElement;

/** A message as the browser delivers it to our window. */
function post(data: unknown, { origin = PSP, source = frame().contentWindow as Window | null } = {}) {
  act(() => {
    window.dispatchEvent(new MessageEvent("message", { data, origin, source }));
  });
}
const fields = (type: string, extra: Record<string, unknown> = {}) => ({ source: FIELDS_SOURCE, type, ...extra });

describe("CardEntryForm with the sandbox PSP", () => {
  it("shows the PSP's fields in a titled frame on the PSP's origin, and no card field of ours", () => {
    const container = renderIsland();
    const f = frame();
    expect(f.getAttribute("src")).toBe(`${PSP}/fields/${props.setup}`);
    expect(f.title).toBe("カード情報の入力（決済代行会社のページ）");
    expect(f.style.width).toBe("100%");
    expect(f.style.height).toBe(`${INITIAL_FRAME_HEIGHT}px`);
    expect(f.style.borderWidth || f.style.border).toMatch(/^0/);
    // The frame may not navigate our page or open windows.
    expect(f.getAttribute("sandbox")!.split(" ").sort()).toEqual(["allow-forms", "allow-same-origin", "allow-scripts"]);
    expect(container.textContent).toContain(DIRECT_NOTE);
    expect(DIRECT_NOTE).toBe("カード情報は当社のサーバーを経由せず、決済代行会社へ直接送信されます。");

    // Our page holds one input: the hidden setup id, in a plain POST to our server.
    expect(Array.from(container.querySelectorAll("input, select, textarea")).map((e) => [(e as HTMLInputElement).type, (e as HTMLInputElement).name])).toEqual([
      ["hidden", "setup"],
    ]);
    expect(container.querySelector("[autocomplete]")).toBeNull();
    const form = container.querySelector("form")!;
    expect(form.getAttribute("method")).toBe("post");
    expect(form.getAttribute("action")).toBe(props.action);
    // The status region exists before anything happens, so changes are announced.
    expect(screen.getByRole("status").getAttribute("aria-live")).toBe("polite");
  });

  it("sets the frame's height from its resize messages", () => {
    renderIsland();
    post(fields("resize", { height: 612.4 }));
    expect(frame().style.height).toBe("613px");
    post(fields("resize", { height: 540 }));
    expect(frame().style.height).toBe("540px");
    // Nonsense heights are ignored; a huge one is clamped.
    post(fields("resize", { height: "9999" }));
    post(fields("resize", { height: -1 }));
    post(fields("resize", { height: Number.NaN }));
    expect(frame().style.height).toBe("540px");
    post(fields("resize", { height: 1e9 }));
    expect(frame().style.height).toBe(`${MAX_FRAME_HEIGHT}px`);
  });

  // Who else can post to our window: any page that opens or frames us, another frame of the
  // PSP's origin (a hosted page of another setup), our own scripts.
  const senders: [string, () => { origin: string; source: Window | null }][] = [
    ["another origin", () => ({ origin: "http://evil.example", source: frame().contentWindow })],
    ["our own origin", () => ({ origin: window.location.origin, source: frame().contentWindow })],
    ["another window", () => ({ origin: PSP, source: window })],
    ["another frame of the PSP's origin", () => ({ origin: PSP, source: document.body.appendChild(document.createElement("iframe")).contentWindow })],
    ["no window", () => ({ origin: PSP, source: null })],
  ];
  it.each(senders)("ignores messages from %s", (_, sender) => {
    const container = renderIsland();
    const from = sender();
    post(fields("resize", { height: 700 }), from);
    post(fields("busy"), from);
    expect(frame().style.height).toBe(`${INITIAL_FRAME_HEIGHT}px`);
    expect(overlayShown()).toBe(false);
    post(fields("tokenized", { setup: props.setup, token: "tok_1", brand: "VISA", last4: "1111" }), from);
    expect(submitted).toEqual([]);
    expect(container.querySelector<HTMLInputElement>("input[name=setup]")!.value).toBe("");
    // The same messages from the frame itself do count.
    post(fields("resize", { height: 700 }));
    expect(frame().style.height).toBe("700px");
  });

  it.each([
    ["another source", (type: string) => ({ source: "some-widget", type, setup: props.setup })],
    ["no source", (type: string) => ({ type, setup: props.setup })],
    ["a string", (type: string) => type],
    ["null", () => null],
  ])("ignores a message from the frame with %s", (_, message) => {
    renderIsland();
    post(message("busy"));
    expect(overlayShown()).toBe(false);
    post(message("tokenized"));
    expect(submitted).toEqual([]);
  });

  it("ignores message types the fields do not send", () => {
    const container = renderIsland();
    post(fields("card", { number: "4111111111111111" }));
    post(fields("submit"));
    expect(overlayShown()).toBe(false);
    expect(submitted).toEqual([]);
    expect(container.textContent).not.toContain("4111");
  });

  it("shows the overlay while the fields tokenise and hides it when they are idle again", () => {
    const container = renderIsland();
    const region = container.querySelector(".card-entry__fields")!;
    post(fields("busy"));
    expect(overlayShown()).toBe(true);
    expect(mainBusy()).toBe(true);
    expect(region.getAttribute("aria-busy")).toBe("true");
    expect(screen.getByRole("status").textContent).toBe(STATUS.busy);

    // Tokenising failed: the frame shows its errors, our page is usable again.
    post(fields("idle"));
    expect(overlayShown()).toBe(false);
    expect(mainBusy()).toBe(false);
    expect(region.hasAttribute("aria-busy")).toBe(false);
    expect(screen.getByRole("status").textContent).toBe("");
    expect(submitted).toEqual([]);
  });

  it("posts only the setup id to our server once the fields have tokenized, keeping the overlay", () => {
    renderIsland();
    post(fields("busy"));
    post(fields("tokenized", { setup: props.setup, token: "tok_abc", brand: "VISA", last4: "1111", exp_month: 12, exp_year: 2031 }));
    expect(submitted).toEqual([{ action: "/myaccount/creditcards/new", method: "post", fields: [["setup", props.setup]] }]);
    // Neither the token nor anything of the card goes to our server.
    expect(JSON.stringify(submitted)).not.toMatch(/tok_abc|1111|number|cvc/);
    expect(overlayShown()).toBe(true);
    expect(screen.getByRole("status").textContent).toBe(STATUS.tokenized);

    // The page is leaving: later messages change nothing.
    post(fields("idle"));
    post(fields("tokenized", { setup: props.setup }));
    expect(overlayShown()).toBe(true);
    expect(submitted).toHaveLength(1);
  });

  it("does not post a tokenized message for another setup", () => {
    renderIsland();
    post(fields("tokenized", { setup: "setup_someone_else", token: "tok_x" }));
    expect(submitted).toEqual([]);
    expect(overlayShown()).toBe(false);
  });

  it.each([
    ["the fields are on another origin", { fieldsUrl: "http://localhost:8082/fields/setup_1" }],
    ["the fields are a path on our origin", { fieldsUrl: "/fields/setup_1" }],
    ["the PSP is our own origin", { pspOrigin: window.location.origin, fieldsUrl: `${window.location.origin}/fields/setup_1` }],
    ["the fields are missing", { fieldsUrl: "" }],
    ["the setup is posted elsewhere", { action: "https://evil.example/cards" }],
    ["the PSP is unknown", { psp: "other" as CardEntryProps["psp"] }],
  ])("refuses to start when %s", (_, change) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => render(<CardEntryForm {...props} {...change} />)).toThrow(/card-entry:/);
  });
});

// ---- stripe: Stripe.js and its Payment Element ----

type ConfirmResult = Awaited<ReturnType<ReturnType<StripeConstructor>["confirmSetup"]>>;

/** A stand-in for Stripe.js on window (the real one cannot be reached from the test machines). */
function stubStripe(confirm: () => Promise<ConfirmResult>) {
  const handlers: Record<string, (e?: unknown) => void> = {};
  const element = {
    mount: vi.fn((el: HTMLElement) => {
      // Stripe draws its own iframe in the element.
      el.appendChild(document.createElement("iframe")).title = "安全な決済入力フレーム";
    }),
    destroy: vi.fn(),
    on: vi.fn((event: string, handler: (e?: unknown) => void) => (handlers[event] = handler)),
    focus: vi.fn(),
  };
  const elements = { create: vi.fn(() => element) };
  const stripe = { elements: vi.fn(() => elements), confirmSetup: vi.fn(confirm) };
  const Stripe = vi.fn(() => stripe);
  (window as { Stripe?: unknown }).Stripe = Stripe;
  return { Stripe, stripe, elements, element, handlers };
}

async function renderStripe(p: CardEntryProps = stripeProps) {
  const container = renderIsland(p);
  await act(async () => {});
  return container;
}

const registerButton = () => screen.getByRole("button", { name: "カードを登録する" });

async function submitCard() {
  await act(async () => {
    fireEvent.click(registerButton());
  });
}

describe("CardEntryForm with Stripe", () => {
  it("loads Stripe.js once from js.stripe.com and mounts the Payment Element in Japanese", async () => {
    const first = renderIsland(stripeProps);
    renderIsland(stripeProps);
    const scripts = document.querySelectorAll(`script[src='${STRIPE_JS}']`);
    expect(scripts).toHaveLength(1);
    expect(STRIPE_JS).toBe("https://js.stripe.com/v3/");
    expect((scripts[0] as HTMLScriptElement).textContent).toBe("");
    expect(first.querySelector("[role=status]")!.textContent).toBe(STATUS.loading);
    expect(screen.getAllByRole("button", { name: "カードを登録する" })[0].getAttribute("aria-disabled")).toBe("true");

    const { Stripe, stripe, elements, element } = stubStripe(async () => ({}));
    await act(async () => {
      scripts[0].dispatchEvent(new Event("load"));
    });
    expect(Stripe).toHaveBeenCalledWith("pk_test_abc", { locale: "ja" });
    expect(stripe.elements).toHaveBeenCalledWith(expect.objectContaining({ clientSecret: "seti_123_secret_xyz", appearance: expect.any(Object) }));
    expect(elements.create).toHaveBeenCalledWith("payment");
    expect(element.mount).toHaveBeenCalledTimes(2);
    expect(first.contains(element.mount.mock.calls[0][0])).toBe(true);
    expect(first.querySelector("[role=status]")!.textContent).toBe("");
    expect(first.textContent).toContain(DIRECT_NOTE);
    expect(first.textContent).toContain("ご利用いただけるカード：JCB、VISA、Mastercard");
    // Nothing of ours asks for a card: the only input is the hidden setup id.
    expect(Array.from(first.querySelectorAll("input")).map((i) => i.name)).toEqual(["setup"]);
    expect(screen.getAllByRole("button", { name: "カードを登録する" })[0].hasAttribute("aria-disabled")).toBe(false);
  });

  it("shows Stripe's error next to the element, focuses it, and lets the buyer try again", async () => {
    const { stripe } = stubStripe(async () => ({
      error: { type: "card_error", message: "カードの有効期限が切れています。" },
    }));
    const container = await renderStripe();
    await submitCard();
    expect(stripe.confirmSetup).toHaveBeenCalledTimes(1);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toBe("エラー：カードの有効期限が切れています。");
    expect(document.activeElement).toBe(alert);
    expect(alert.previousElementSibling).toBe(container.querySelector(".card-entry__element"));
    expect(overlayShown()).toBe(false);
    expect(submitted).toEqual([]);
    expect(registerButton().hasAttribute("aria-disabled")).toBe(false);

    // A message that is not written for the buyer is replaced by ours.
    stripe.confirmSetup.mockResolvedValueOnce({ error: { type: "invalid_request_error", message: "No such setupintent: 'seti_123'" } });
    await submitCard();
    expect(screen.getByRole("alert").textContent).toBe(`エラー：${MESSAGES.stripeFailed}`);
    expect(container.textContent).not.toContain("No such");
  });

  it("posts the SetupIntent id to our server when Stripe has confirmed the card", async () => {
    let confirmed!: (r: ConfirmResult) => void;
    const { stripe } = stubStripe(() => new Promise((resolve) => (confirmed = resolve)));
    await renderStripe();
    await submitCard();
    expect(overlayShown()).toBe(true);
    expect(registerButton().getAttribute("aria-disabled")).toBe("true");
    await submitCard();
    expect(stripe.confirmSetup).toHaveBeenCalledTimes(1);
    const [options] = stripe.confirmSetup.mock.calls[0] as unknown as [Record<string, unknown>];
    expect(options).toEqual({
      elements: stripe.elements.mock.results[0].value,
      redirect: "if_required",
      confirmParams: { return_url: stripeProps.returnUrl },
    });

    await act(async () => confirmed({ setupIntent: { id: "seti_123", status: "succeeded" } }));
    expect(submitted).toEqual([{ action: "/myaccount/creditcards/new", method: "post", fields: [["setup", "seti_123"]] }]);
    expect(overlayShown()).toBe(true);
  });

  it("leaves the page to Stripe when the card needs a redirect, posting nothing itself", async () => {
    // With redirect "if_required", Stripe.js navigates to return_url itself and its promise
    // never settles; the server handles returnUrl?setup_intent=…&redirect_status=….
    const { stripe } = stubStripe(() => new Promise(() => {}));
    await renderStripe();
    await submitCard();
    await submitCard();
    expect(stripe.confirmSetup).toHaveBeenCalledTimes(1);
    expect((stripe.confirmSetup.mock.calls[0] as unknown as [{ confirmParams: { return_url: string } }])[0].confirmParams.return_url).toBe(
      "http://localhost:3000/myaccount/creditcards/new/return",
    );
    expect(overlayShown()).toBe(true);
    expect(screen.getByRole("status").textContent).toBe(STATUS.busy);
    expect(submitted).toEqual([]);
  });

  it("posts the setup when Stripe says it already succeeded", async () => {
    stubStripe(async () => ({
      error: { type: "invalid_request_error", message: "…", setup_intent: { id: "seti_123", status: "succeeded" } },
    }));
    await renderStripe();
    await submitCard();
    expect(submitted.map((s) => s.fields)).toEqual([[["setup", "seti_123"]]]);
  });

  it("refuses to start without its keys or with a return URL that is not absolute", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => render(<CardEntryForm {...stripeProps} clientSecret="" />)).toThrow(/card-entry:/);
    expect(() => render(<CardEntryForm {...stripeProps} publishableKey={undefined} />)).toThrow(/card-entry:/);
    expect(() => render(<CardEntryForm {...stripeProps} returnUrl="/return" />)).toThrow(/card-entry:/);
  });
});

// ---- the island over the server's fallback ----

describe("card-entry island", () => {
  function island(p: unknown) {
    const el = document.createElement("div");
    el.dataset.island = "card-entry";
    el.dataset.props = JSON.stringify(p);
    el.innerHTML = fallbackHTML;
    document.getElementById("main")!.append(el);
    return el;
  }

  async function bootNow() {
    await act(async () => {
      await boot("card-entry", async () => import("./CardEntryForm"));
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
  }

  function expectFallback(el: HTMLElement) {
    const server = document.createElement("div");
    server.innerHTML = fallbackHTML;
    expect(el.innerHTML).toBe(server.innerHTML);
  }

  it("replaces the server's hosted-page form with the PSP's frame, carrying the focus over", async () => {
    const el = island(props);
    // The fallback never asks for a card on our page: it sends the buyer to the PSP's.
    expect(el.querySelector("[autocomplete^='cc-']")).toBeNull();
    el.querySelector("button")!.focus();

    await bootNow();
    expect(el.getAttribute(MOUNTED_ATTR)).toBe("true");
    expect(el.innerHTML).not.toContain("hosted");
    expect(document.activeElement).toBe(frame());
  });

  it("keeps the fallback when the fields are not on the PSP's origin", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const el = island({ ...props, fieldsUrl: "https://elsewhere.example/fields/setup_1" });
    await bootNow();
    expect(el.getAttribute(MOUNTED_ATTR)).toBe("error");
    expectFallback(el);
    expect(el.querySelector("iframe")).toBeNull();
  });

  it("says so and keeps the hosted-page form when Stripe.js cannot load", async () => {
    const el = island(stripeProps);
    await bootNow();
    const script = document.querySelector<HTMLScriptElement>(`script[src='${STRIPE_JS}']`)!;
    await act(async () => {
      script.dispatchEvent(new Event("error"));
    });
    expect(screen.getByRole("alert").textContent).toBe(MESSAGES.stripeUnavailable);
    const form = el.querySelector<HTMLFormElement>("form[action='/myaccount/creditcards/new/hosted']")!;
    expect(form.getAttribute("method")).toBe("post");
    expect(form.querySelector("button")!.textContent).toBe("カード情報を入力する");
    expect(screen.queryByRole("button", { name: "カードを登録する" })).toBeNull();
    // A blocked tag is removed, so a later attempt adds a fresh one.
    expect(script.isConnected).toBe(false);
  });
});

// ---- what our bundle holds ----

describe("card-entry source", () => {
  it("holds no card-number handling: no card inputs, Luhn or brand rules", () => {
    for (const src of [islandSource, entrySource]) {
      expect(src).not.toMatch(/luhn|cc-number|cc-csc|cc-exp|autocomplete=|\bregroup|brandOf|\/\^4\b|\[\s*"?card_number/i);
      expect(src).not.toMatch(/from "\.\/rules"/);
    }
  });
});
