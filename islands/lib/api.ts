// The islands' client for the JSON API under /api/v1 (SPEC.md §7, §8; DESIGN.md §4, §4b).
//
// Two modes:
//   - "cookie": islands on our own pages. The signed-in session cookie goes along
//     (credentials: same-origin) with X-Requested-With: fetch, which the server requires
//     in this mode. A 401 means the session ended: go to /signin?redirect=<this page>.
//   - "token": tokens from POST /login kept in storage (localStorage, prefixed keys).
//     Calls carry Authorization: Bearer <id_token> and X-Access-Token: <access_token>.
//     On 401 {"status":"expired_access_token"} (any call but login, login_2auth, logout
//     and users/token) the client refreshes the tokens once through POST /users/token —
//     calls that fail or start meanwhile wait for that one refresh — and replays them
//     with the new tokens, at most 3 times per call. A failed refresh, any other 401, or
//     a 4th expiry clears the tokens and goes to /signin.
//
// Tabs of one browser share the tokens (localStorage), and the server rotates the refresh
// token and takes a second use of one for theft, revoking the whole sign-in. So a refresh
// runs under a Web Lock (navigator.locks) shared by the tabs, and re-reads the stored tokens
// first: a tab that waited behind another tab's refresh takes the new tokens instead of
// presenting the used one. New tokens and sign-outs are posted on a BroadcastChannel, so a
// tab that keeps tokens in memory follows, and every tab goes to /signin when one signs out.
// Without Web Locks (old browsers, plain http) each tab refreshes on its own as before.

export type ApiMode = "token" | "cookie";

/** The three tokens of a sign-in. */
export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
}

/** Where token mode keeps its tokens. */
export interface TokenStore {
  get(): Tokens | null;
  set(tokens: Tokens): void;
  clear(): void;
}

/** SPEC.md §3: "Stored keys are prefixed." */
export const DEFAULT_KEY_PREFIX = "cardpay:";
export const TOKEN_KEYS = { accessToken: "access_token", idToken: "id_token", refreshToken: "refresh_token" } as const;

/** SPEC.md §9: token retry cap. */
export const MAX_RETRIES = 3;

/** Calls whose 401 is an answer for the caller, never a reason to refresh or sign out (SPEC.md §8). */
export const NO_REFRESH_PATHS: readonly string[] = ["/login", "/login_2auth", "/logout", "/users/token"];

export const SIGNIN_PATH = "/signin";

type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** The part of the Web Locks API (navigator.locks) token mode uses. */
export interface LockManagerLike {
  request(name: string, callback: () => Promise<boolean>): Promise<boolean>;
}

/** The part of a BroadcastChannel token mode uses. */
export interface TokenChannel {
  postMessage(message: unknown): void;
  onmessage: ((ev: MessageEvent) => void) | null;
  close(): void;
}

/** What a tab tells the others, naming by refresh token the tokens it is about. */
export type TokenMessage =
  | { kind: "tokens"; replaced: string | null; tokens: Tokens }
  | { kind: "signed_out"; refreshToken: string };

/** Tokens in a Web Storage (localStorage in the browser) under prefixed keys. */
export function storageTokenStore(storage: KeyValueStorage | null, prefix = DEFAULT_KEY_PREFIX): TokenStore {
  const key = (k: keyof typeof TOKEN_KEYS) => prefix + TOKEN_KEYS[k];
  return {
    get() {
      if (!storage) return null;
      try {
        const accessToken = storage.getItem(key("accessToken"));
        const idToken = storage.getItem(key("idToken"));
        const refreshToken = storage.getItem(key("refreshToken"));
        return accessToken && idToken && refreshToken ? { accessToken, idToken, refreshToken } : null;
      } catch {
        return null; // storage switched off (private mode, policy)
      }
    },
    set(t) {
      storage?.setItem(key("accessToken"), t.accessToken);
      storage?.setItem(key("idToken"), t.idToken);
      storage?.setItem(key("refreshToken"), t.refreshToken);
    },
    clear() {
      for (const k of Object.keys(TOKEN_KEYS) as (keyof typeof TOKEN_KEYS)[]) {
        try {
          storage?.removeItem(key(k));
        } catch {
          // nothing to clear
        }
      }
    },
  };
}

/** Tokens in memory only (tests, scripts). */
export function memoryTokenStore(initial: Tokens | null = null): TokenStore {
  let tokens = initial;
  return {
    get: () => tokens,
    set: (t) => {
      tokens = { ...t };
    },
    clear: () => {
      tokens = null;
    },
  };
}

/** The body of every API error (handlers/api/errors.go). */
export interface ApiErrorBody {
  status: string;
  message: string;
  errors?: { field: string; message: string }[];
}

/** A call that did not succeed. `code` is the body's status, such as "validation_error". */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ApiErrorBody | null;

  constructor(status: number, body: ApiErrorBody | null) {
    super(body?.message || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }

  get code(): string {
    return this.body?.status ?? "";
  }

  /** The message for one field of a validation_error, or "". */
  fieldMessage(field: string): string {
    return this.body?.errors?.find((e) => e.field === field)?.message ?? "";
  }
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ApiClientOptions {
  mode: ApiMode;
  /** Defaults to "/api/v1" (same origin). */
  baseUrl?: string;
  fetch?: FetchLike;
  /** Token mode only; defaults to localStorage under keyPrefix. */
  tokens?: TokenStore;
  /** Token mode only: prefix of the default store's keys, the Web Lock's and the channel's names. */
  keyPrefix?: string;
  /** Token mode only; defaults to navigator.locks when present. null: refresh without a lock. */
  locks?: LockManagerLike | null;
  /** Token mode only; defaults to a BroadcastChannel named <keyPrefix>tokens when present. */
  channel?: TokenChannel | null;
  /** Defaults to location.assign; injectable because tests cannot navigate. */
  navigate?: (url: string) => void;
  /** The page to come back to after signing in (cookie mode); defaults to location. */
  currentPath?: () => string;
  maxRetries?: number;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** What POST /login answers: signed in, or a second factor is needed. */
export type LoginResult =
  | { kind: "signed_in" }
  | { kind: "two_factor"; method: "email" | "totp"; sessionToken: string; message: string };

interface TokenAnswer {
  access_token: string;
  id_token: string;
  refresh_token: string;
}

export class ApiClient {
  readonly mode: ApiMode;
  private readonly baseUrl: string;
  private readonly fetchFn: FetchLike;
  private readonly store: TokenStore;
  private readonly navigate: (url: string) => void;
  private readonly currentPath: () => string;
  private readonly maxRetries: number;
  private readonly locks: LockManagerLike | null;
  private readonly lockName: string;
  private readonly channel: TokenChannel | null;
  /** The one refresh in flight; every call that meets an expiry meanwhile waits for it. */
  private refreshing: Promise<boolean> | null = null;
  private leaving = false;

  constructor(o: ApiClientOptions) {
    this.mode = o.mode;
    this.baseUrl = (o.baseUrl ?? "/api/v1").replace(/\/$/, "");
    this.fetchFn = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const prefix = o.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.store = o.tokens ?? storageTokenStore(localStorageOrNull(), prefix);
    this.navigate = o.navigate ?? ((url) => window.location.assign(url));
    this.currentPath = o.currentPath ?? (() => window.location.pathname + window.location.search);
    this.maxRetries = o.maxRetries ?? MAX_RETRIES;
    // Cookie mode has nothing to share: the browser keeps the one session cookie.
    const token = this.mode === "token";
    this.locks = token ? (o.locks === undefined ? browserLocks() : o.locks) : null;
    this.lockName = prefix + "refresh";
    this.channel = token ? (o.channel === undefined ? browserChannel(prefix + "tokens") : o.channel) : null;
    if (this.channel) this.channel.onmessage = (ev) => this.hear(ev.data);
  }

  /** Stops listening to the other tabs (an island that goes away). */
  close(): void {
    if (!this.channel) return;
    this.channel.onmessage = null;
    this.channel.close();
  }

  get tokens(): Tokens | null {
    return this.store.get();
  }

  setTokens(t: Tokens): void {
    const replaced = this.store.get()?.refreshToken ?? null;
    this.store.set(t);
    this.leaving = false;
    this.tell({ kind: "tokens", replaced, tokens: t });
  }

  get<T>(path: string, o?: Omit<RequestOptions, "body">): Promise<T> {
    return this.request<T>("GET", path, o);
  }
  post<T>(path: string, body?: unknown, o?: RequestOptions): Promise<T> {
    return this.request<T>("POST", path, { ...o, body });
  }
  put<T>(path: string, body?: unknown, o?: RequestOptions): Promise<T> {
    return this.request<T>("PUT", path, { ...o, body });
  }
  delete<T>(path: string, o?: RequestOptions): Promise<T> {
    return this.request<T>("DELETE", path, o);
  }

  /** Sends a call, refreshing and replaying it on an expired access token (token mode). */
  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const refreshable = this.mode === "token" && !NO_REFRESH_PATHS.includes(path);
    let retries = 0;
    for (;;) {
      // Queue behind a refresh in flight rather than spend a call on tokens being replaced.
      if (refreshable && this.refreshing) {
        // A refresh that failed on the network is simply tried again by the next expiry.
        if (!(await this.refreshing.catch(() => true))) throw new ApiError(401, null);
      }
      const used = this.store.get();
      const res = await this.send(method, path, o, used);
      if (res.status !== 401 || (this.mode === "token" && !refreshable)) return this.finish<T>(res);
      const body = await readBody(res);
      if (this.mode === "cookie") {
        this.leave(`${SIGNIN_PATH}?redirect=${encodeURIComponent(this.currentPath())}`);
        throw new ApiError(401, body);
      }
      if (body?.status !== "expired_access_token" || retries >= this.maxRetries) {
        this.signOut();
        throw new ApiError(401, body);
      }
      retries++;
      if (!(await this.refreshOnce(used))) throw new ApiError(401, body);
    }
  }

  /** POST /login; stores the tokens unless a second factor is needed. */
  async login(emailAddress: string, password: string): Promise<LoginResult> {
    const res = await this.send("POST", "/login", { body: { email_address: emailAddress, password } }, null);
    // SPEC.md §5: the login call treats 200 to 303 as success.
    if (res.status < 200 || res.status > 303) throw new ApiError(res.status, await readBody(res));
    const body = (await res.json()) as Partial<TokenAnswer> & { status?: string; method?: "email" | "totp"; session_token?: string; message?: string };
    if (body.status === "two_factor_required") {
      return { kind: "two_factor", method: body.method ?? "email", sessionToken: body.session_token ?? "", message: body.message ?? "" };
    }
    this.keep(body as TokenAnswer);
    return { kind: "signed_in" };
  }

  /** POST /login_2auth with the code for login's sessionToken; stores the tokens. */
  async loginTwoFactor(sessionToken: string, code: string): Promise<void> {
    const body = await this.request<TokenAnswer>("POST", "/login_2auth", { body: { session_token: sessionToken, code } });
    this.keep(body);
  }

  /** POST /logout, then forgets the tokens whatever the answer (SPEC.md §4). */
  async logout(): Promise<void> {
    try {
      if (this.mode === "cookie" || this.store.get()) await this.send("POST", "/logout", {}, this.store.get());
    } catch {
      // Offline: the tokens are forgotten anyway and expire on their own.
    } finally {
      this.forget();
    }
  }

  private keep(t: TokenAnswer): void {
    if (!t.access_token || !t.id_token || !t.refresh_token) throw new ApiError(500, null);
    this.setTokens({ accessToken: t.access_token, idToken: t.id_token, refreshToken: t.refresh_token });
  }

  /**
   * Resolves true once tokens newer than `used` exist: right away if another call already
   * refreshed, else after the one shared refresh. False when the refresh failed (signed out).
   */
  private refreshOnce(used: Tokens | null): Promise<boolean> {
    const current = this.store.get();
    if (current && used && current.accessToken !== used.accessToken) return Promise.resolve(true);
    if (!this.refreshing) {
      // One tab at a time: the other tabs hold the same refresh token, and a second use of
      // it would end the sign-in for all of them.
      const run = () => this.refresh(used);
      this.refreshing = (this.locks ? this.locks.request(this.lockName, run) : run()).finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async refresh(used: Tokens | null): Promise<boolean> {
    // Read again: another tab may have refreshed, or signed out, while this one waited.
    const t = this.store.get();
    if (!t) {
      this.signOut();
      return false;
    }
    if (used && t.refreshToken !== used.refreshToken) return true; // its tokens are ours
    // users/token is sent without the auth headers (SPEC.md §7).
    const res = await this.send("POST", "/users/token", { body: { refresh_token: t.refreshToken } }, null);
    if (!res.ok) {
      this.signOut();
      return false;
    }
    this.keep((await res.json()) as TokenAnswer);
    return true;
  }

  private signOut(): void {
    this.forget();
    this.leave(SIGNIN_PATH);
  }

  /** Clears the tokens here and in the tabs that keep the same ones. */
  private forget(): void {
    const refreshToken = this.store.get()?.refreshToken;
    this.store.clear();
    if (refreshToken) this.tell({ kind: "signed_out", refreshToken });
  }

  private tell(m: TokenMessage): void {
    try {
      this.channel?.postMessage(m);
    } catch {
      // Closed channel: the other tabs still find the stored tokens when they next call.
    }
  }

  /**
   * Another tab's news. It is applied only to the tokens it names: a message that crossed a
   * newer sign-in or refresh here must not bring back used tokens or end the new sign-in.
   * With a shared store the sender has written it already, so only sign-outs do anything.
   */
  private hear(data: unknown): void {
    if (!isTokenMessage(data)) return;
    const held = this.store.get()?.refreshToken ?? null;
    if (data.kind === "tokens") {
      if (held === data.replaced && held !== data.tokens.refreshToken) this.store.set(data.tokens);
      return;
    }
    if (held !== null && held !== data.refreshToken) return;
    this.store.clear();
    this.leave(SIGNIN_PATH);
  }

  /** Navigates away once, however many calls fail together. */
  private leave(url: string): void {
    if (this.leaving) return;
    this.leaving = true;
    this.navigate(url);
  }

  private send(method: string, path: string, o: RequestOptions, tokens: Tokens | null): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json", ...o.headers };
    let body: string | undefined;
    if (o.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(o.body);
    }
    const init: RequestInit = { method, headers, body, signal: o.signal };
    if (this.mode === "cookie") {
      headers["X-Requested-With"] = "fetch";
      init.credentials = "same-origin";
    } else {
      init.credentials = "omit";
      if (tokens) {
        headers.Authorization = `Bearer ${tokens.idToken}`;
        headers["X-Access-Token"] = tokens.accessToken;
      }
    }
    return this.fetchFn(this.baseUrl + path + queryString(o.query), init);
  }

  private async finish<T>(res: Response): Promise<T> {
    if (!res.ok) throw new ApiError(res.status, await readBody(res));
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }
}

export function createApiClient(o: ApiClientOptions): ApiClient {
  return new ApiClient(o);
}

function queryString(q: RequestOptions["query"]): string {
  if (!q) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

async function readBody(res: Response): Promise<ApiErrorBody | null> {
  try {
    const b = (await res.json()) as ApiErrorBody;
    return b && typeof b === "object" ? b : null;
  } catch {
    return null;
  }
}

function isTokenMessage(d: unknown): d is TokenMessage {
  if (!d || typeof d !== "object") return false;
  const m = d as Partial<Record<string, unknown>>;
  if (m.kind === "signed_out") return typeof m.refreshToken === "string";
  if (m.kind !== "tokens" || !(m.replaced === null || typeof m.replaced === "string")) return false;
  const t = m.tokens as Partial<Tokens> | null | undefined;
  return !!t && typeof t.accessToken === "string" && typeof t.idToken === "string" && typeof t.refreshToken === "string";
}

/** navigator.locks, which browsers offer only to secure contexts (https, localhost). */
function browserLocks(): LockManagerLike | null {
  try {
    return (typeof navigator !== "undefined" && navigator.locks) || null;
  } catch {
    return null;
  }
}

function browserChannel(name: string): TokenChannel | null {
  try {
    if (typeof BroadcastChannel !== "function") return null;
    const ch = new BroadcastChannel(name);
    // Node (the browser tests' API client) keeps a process alive while a channel is
    // open; the client must never be what keeps it running. Browsers have no unref.
    (ch as { unref?: () => void }).unref?.();
    return ch;
  } catch {
    return null; // an opaque origin (sandboxed frame)
  }
}

function localStorageOrNull(): KeyValueStorage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}
