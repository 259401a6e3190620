import { beforeEach, describe, expect, it, vi } from "vitest";

import {
  ApiClient,
  ApiError,
  DEFAULT_KEY_PREFIX,
  MAX_RETRIES,
  memoryTokenStore,
  storageTokenStore,
  type FetchLike,
  type LockManagerLike,
  type TokenChannel,
  type TokenMessage,
  type Tokens,
  type TokenStore,
} from "./api";

// jsdom has no BroadcastChannel, but Node's shows through and would carry messages between
// the clients of different tests. Tests that want one bring the fake below.
beforeEach(() => {
  vi.stubGlobal("BroadcastChannel", undefined);
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

interface Call {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  credentials?: RequestCredentials;
}

/**
 * A fake API: tokens named by a generation number; only the current generation's access
 * token is valid unless `expireAll` is set. users/token hands out the next generation.
 * With `revokeOnReuse`, like the real server, a used refresh token ends the sign-in: it and
 * every later call answer 401.
 */
function fakeServer() {
  const state = {
    generation: 1,
    expired: false,
    expireAll: false,
    refreshStatus: 200,
    refreshGate: null as Promise<void> | null,
    revokeOnReuse: false,
    revoked: false,
    calls: [] as Call[],
  };
  const tokensOf = (g: number): Tokens => ({ accessToken: `a${g}`, idToken: `i${g}`, refreshToken: `r${g}` });
  const fetch = vi.fn(async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, "http://app.test");
    const headers = (init.headers ?? {}) as Record<string, string>;
    const call: Call = {
      method: init.method ?? "GET",
      path: url.pathname.replace(/^\/api\/v1/, "") + url.search,
      headers,
      body: init.body ? JSON.parse(init.body as string) : undefined,
      credentials: init.credentials,
    };
    state.calls.push(call);
    await Promise.resolve();
    if (call.path === "/users/token") {
      if (state.refreshGate) await state.refreshGate;
      const presented = (call.body as { refresh_token: string }).refresh_token;
      if (state.revokeOnReuse && /^r\d+$/.test(presented) && Number(presented.slice(1)) < state.generation) state.revoked = true;
      if (state.revoked) return json(401, { status: "invalid_refresh_token", message: "期限切れ" });
      if (state.refreshStatus !== 200 || presented !== `r${state.generation}`) {
        return json(state.refreshStatus === 200 ? 401 : state.refreshStatus, { status: "invalid_refresh_token", message: "期限切れ" });
      }
      state.generation++;
      state.expired = false;
      const t = tokensOf(state.generation);
      return json(200, { access_token: t.accessToken, id_token: t.idToken, refresh_token: t.refreshToken, expires_in: 900 });
    }
    if (call.path === "/login") {
      const b = call.body as { password: string };
      if (b.password === "2fa") return json(200, { status: "two_factor_required", method: "email", session_token: "s1", message: "送信しました" });
      if (b.password !== "right") return json(401, { status: "invalid_credentials", message: "違います" });
      const t = tokensOf(state.generation);
      return json(200, { access_token: t.accessToken, id_token: t.idToken, refresh_token: t.refreshToken });
    }
    if (call.path === "/logout") return json(200, { status: "logged_out" });
    if (call.path === "/users/validation") return json(422, { status: "validation_error", message: "誤り", errors: [{ field: "corporate_number", message: "法人番号が正しくありません" }] });
    if (call.path === "/unauthorized") return json(401, { status: "unauthorized", message: "ログインしてください" });
    if (state.revoked) return json(401, { status: "unauthorized", message: "ログインしてください" });
    const access = headers["X-Access-Token"];
    const id = headers.Authorization;
    if (!access || id !== `Bearer i${access.slice(1)}`) return json(401, { status: "unauthorized", message: "ログインしてください" });
    if (state.expireAll || (state.expired && access === `a${state.generation}`) || access !== `a${state.generation}`) {
      return json(401, { status: "expired_access_token", message: "期限切れ" });
    }
    return json(200, { path: call.path, token: access });
  });
  return { state, fetch, tokensOf };
}

function tokenClient(server: ReturnType<typeof fakeServer>, tokens: Tokens | null = server.tokensOf(1)) {
  const navigate = vi.fn();
  const store = memoryTokenStore(tokens);
  const client = new ApiClient({ mode: "token", fetch: server.fetch, tokens: store, navigate });
  return { client, navigate, store };
}

const count = (s: ReturnType<typeof fakeServer>, path: string) => s.state.calls.filter((c) => c.path === path).length;

describe("token mode", () => {
  it("sends the id token as Bearer and the access token in X-Access-Token", async () => {
    const server = fakeServer();
    const { client } = tokenClient(server);
    await expect(client.get("/users/information")).resolves.toEqual({ path: "/users/information", token: "a1" });
    const [call] = server.state.calls;
    expect(call.headers.Authorization).toBe("Bearer i1");
    expect(call.headers["X-Access-Token"]).toBe("a1");
    expect(call.headers["X-Requested-With"]).toBeUndefined();
    expect(call.credentials).toBe("omit");
  });

  it("refreshes once for concurrent expired calls and replays each with the new tokens", async () => {
    const server = fakeServer();
    const { client, navigate, store } = tokenClient(server);
    server.state.expired = true;
    const results = await Promise.all([
      client.get<{ token: string }>("/users/information"),
      client.get<{ token: string }>("/users/stats"),
      client.get<{ token: string }>("/users/notifications", { query: { page: 0, size: 1 } }),
    ]);
    expect(results.map((r) => r.token)).toEqual(["a2", "a2", "a2"]);
    expect(count(server, "/users/token")).toBe(1);
    const refresh = server.state.calls.find((c) => c.path === "/users/token")!;
    expect(refresh.headers.Authorization).toBeUndefined();
    expect(refresh.headers["X-Access-Token"]).toBeUndefined();
    expect(refresh.body).toEqual({ refresh_token: "r1" });
    expect(store.get()).toEqual(server.tokensOf(2));
    expect(navigate).not.toHaveBeenCalled();
    expect(server.state.calls.map((c) => c.path)).toEqual([
      "/users/information",
      "/users/stats",
      "/users/notifications?page=0&size=1",
      "/users/token",
      "/users/information",
      "/users/stats",
      "/users/notifications?page=0&size=1",
    ]);
  });

  it("holds calls that start during a refresh until it ends", async () => {
    const server = fakeServer();
    const { client } = tokenClient(server);
    server.state.expired = true;
    let open!: () => void;
    server.state.refreshGate = new Promise<void>((r) => (open = r));
    const first = client.get<{ token: string }>("/users/information");
    await vi.waitFor(() => expect(count(server, "/users/token")).toBe(1));
    const second = client.get<{ token: string }>("/users/stats");
    await new Promise((r) => setTimeout(r, 10));
    expect(count(server, "/users/stats")).toBe(0);
    open();
    await expect(first).resolves.toMatchObject({ token: "a2" });
    await expect(second).resolves.toMatchObject({ token: "a2" });
    const stats = server.state.calls.filter((c) => c.path === "/users/stats");
    expect(stats).toHaveLength(1);
    expect(stats[0].headers["X-Access-Token"]).toBe("a2");
  });

  it("clears the tokens and goes to /signin when the refresh fails", async () => {
    const server = fakeServer();
    const { client, navigate, store } = tokenClient(server);
    server.state.expired = true;
    server.state.refreshStatus = 401;
    const calls = [client.get("/users/information"), client.get("/users/stats"), client.get("/users/notifications")];
    for (const c of calls) await expect(c).rejects.toMatchObject({ status: 401 });
    expect(count(server, "/users/token")).toBe(1);
    expect(store.get()).toBeNull();
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate).toHaveBeenCalledWith("/signin");
  });

  it("signs out on any other 401", async () => {
    const server = fakeServer();
    const { client, navigate, store } = tokenClient(server);
    const err = await client.get("/unauthorized").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("unauthorized");
    expect(count(server, "/users/token")).toBe(0);
    expect(store.get()).toBeNull();
    expect(navigate).toHaveBeenCalledWith("/signin");
  });

  it(`gives up after ${MAX_RETRIES} retries of one call`, async () => {
    const server = fakeServer();
    const { client, navigate, store } = tokenClient(server);
    server.state.expireAll = true;
    await expect(client.get("/users/information")).rejects.toMatchObject({ status: 401 });
    expect(count(server, "/users/token")).toBe(MAX_RETRIES);
    expect(count(server, "/users/information")).toBe(MAX_RETRIES + 1);
    expect(store.get()).toBeNull();
    expect(navigate).toHaveBeenCalledTimes(1);
  });

  it("does not refresh or sign out for login, login_2auth, logout and users/token", async () => {
    const server = fakeServer();
    const { client, navigate, store } = tokenClient(server);
    await expect(client.login("a@b.jp", "wrong")).rejects.toMatchObject({ status: 401, code: "invalid_credentials" });
    server.state.expired = true;
    await expect(client.post("/login_2auth", { session_token: "x", code: "1" })).rejects.toMatchObject({ status: 401 });
    await expect(client.post("/users/token", { refresh_token: "nope" })).rejects.toMatchObject({ status: 401 });
    expect(count(server, "/users/token")).toBe(1);
    expect(navigate).not.toHaveBeenCalled();
    expect(store.get()).toEqual(server.tokensOf(1));
  });

  it("stores the tokens of a login and reports a second factor", async () => {
    const server = fakeServer();
    const { client, store } = tokenClient(server, null);
    await expect(client.login("a@b.jp", "2fa")).resolves.toEqual({
      kind: "two_factor",
      method: "email",
      sessionToken: "s1",
      message: "送信しました",
    });
    expect(store.get()).toBeNull();
    await expect(client.login("a@b.jp", "right")).resolves.toEqual({ kind: "signed_in" });
    expect(store.get()).toEqual(server.tokensOf(1));
    await expect(client.get("/users/information")).resolves.toMatchObject({ token: "a1" });
  });

  it("logs out: tells the server, then forgets the tokens", async () => {
    const server = fakeServer();
    const { client, store } = tokenClient(server);
    await client.logout();
    const call = server.state.calls.find((c) => c.path === "/logout")!;
    expect(call.headers["X-Access-Token"]).toBe("a1");
    expect(store.get()).toBeNull();

    const offline = new ApiClient({
      mode: "token",
      tokens: memoryTokenStore(server.tokensOf(1)),
      fetch: () => Promise.reject(new TypeError("offline")),
      navigate: () => {},
    });
    await offline.logout();
    expect(offline.tokens).toBeNull();
  });

  it("turns error answers into ApiError with field messages", async () => {
    const server = fakeServer();
    const { client } = tokenClient(server);
    const err = (await client.post("/users/validation", { business_form: 1 }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(422);
    expect(err.code).toBe("validation_error");
    expect(err.fieldMessage("corporate_number")).toBe("法人番号が正しくありません");
    expect(err.message).toBe("誤り");
    expect(server.state.calls[0].headers["Content-Type"]).toBe("application/json");
  });
});

describe("cookie mode", () => {
  it("sends the session cookie with X-Requested-With and no tokens", async () => {
    const server = fakeServer();
    const fetch = vi.fn(async () => json(200, { ok: true }));
    const client = new ApiClient({ mode: "cookie", fetch, navigate: () => {} });
    await client.get("/users/information");
    const init = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1];
    const headers = init.headers as Record<string, string>;
    expect(init.credentials).toBe("same-origin");
    expect(headers["X-Requested-With"]).toBe("fetch");
    expect(headers.Authorization).toBeUndefined();
    expect(server.state.calls).toHaveLength(0);
  });

  it("sends a 401 to /signin with a way back", async () => {
    const navigate = vi.fn();
    const client = new ApiClient({
      mode: "cookie",
      fetch: async () => json(401, { status: "unauthorized", message: "ログインしてください" }),
      navigate,
      currentPath: () => "/myaccount/company?tab=1",
    });
    await expect(client.get("/users/information")).rejects.toMatchObject({ status: 401 });
    expect(navigate).toHaveBeenCalledWith("/signin?redirect=%2Fmyaccount%2Fcompany%3Ftab%3D1");
  });
});

describe("storageTokenStore", () => {
  it("keeps the three tokens under prefixed keys", () => {
    const s = storageTokenStore(localStorage);
    expect(s.get()).toBeNull();
    s.set({ accessToken: "a", idToken: "i", refreshToken: "r" });
    expect(localStorage.getItem(`${DEFAULT_KEY_PREFIX}access_token`)).toBe("a");
    expect(localStorage.getItem(`${DEFAULT_KEY_PREFIX}id_token`)).toBe("i");
    expect(localStorage.getItem(`${DEFAULT_KEY_PREFIX}refresh_token`)).toBe("r");
    expect(s.get()).toEqual({ accessToken: "a", idToken: "i", refreshToken: "r" });
    s.clear();
    expect(s.get()).toBeNull();
    expect(localStorage.length).toBe(0);
  });

  it("is the default store of token mode", async () => {
    storageTokenStore(localStorage).set({ accessToken: "a1", idToken: "i1", refreshToken: "r1" });
    const server = fakeServer();
    const client = new ApiClient({ mode: "token", fetch: server.fetch, navigate: () => {} });
    await expect(client.get("/users/information")).resolves.toMatchObject({ token: "a1" });
    localStorage.clear();
  });

  it("survives a storage that throws", () => {
    const broken = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {},
      removeItem: () => {
        throw new Error("denied");
      },
    };
    const s = storageTokenStore(broken);
    expect(s.get()).toBeNull();
    expect(() => s.clear()).not.toThrow();
  });
});

/** A Storage stand-in that several tabs share, as they share localStorage. */
function sharedStorage() {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, String(v)),
    removeItem: (k: string) => void data.delete(k),
  };
}

/** navigator.locks for tabs of one browser: callbacks of one name run one at a time. */
function fakeLocks() {
  const state = { requests: [] as string[], held: 0, maxHeld: 0 };
  const tails = new Map<string, Promise<unknown>>();
  const locks: LockManagerLike = {
    request(name, callback) {
      state.requests.push(name);
      const run = (tails.get(name) ?? Promise.resolve()).then(async () => {
        state.maxHeld = Math.max(state.maxHeld, ++state.held);
        try {
          return await callback();
        } finally {
          state.held--;
        }
      });
      tails.set(name, run.catch(() => undefined));
      return run;
    },
  };
  return { locks, state };
}

/** BroadcastChannel for tabs of one browser: a copy of each message, later, to the others. */
function fakeBus() {
  const members = new Set<FakeChannel>();
  const sent: { name: string; data: unknown }[] = [];
  class FakeChannel implements TokenChannel {
    onmessage: ((ev: MessageEvent) => void) | null = null;
    closed = false;
    constructor(readonly name: string) {
      members.add(this);
    }
    postMessage(data: unknown) {
      if (this.closed) throw new DOMException("closed", "InvalidStateError");
      sent.push({ name: this.name, data });
      for (const m of members) {
        if (m === this || m.name !== this.name) continue;
        const copy = structuredClone(data);
        setTimeout(() => m.onmessage?.(new MessageEvent("message", { data: copy })), 0);
      }
    }
    close() {
      this.closed = true;
      members.delete(this);
    }
  }
  return { Channel: FakeChannel, members, sent };
}

const CHANNEL = `${DEFAULT_KEY_PREFIX}tokens`;

/** One browser tab: its own client (and fetch log), the browser's storage, locks and channel. */
function tab(
  server: ReturnType<typeof fakeServer>,
  o: { store: TokenStore; locks?: LockManagerLike | null; bus?: ReturnType<typeof fakeBus> | null; hold?: Promise<void> },
) {
  const navigate = vi.fn();
  const paths: string[] = [];
  const fetch: FetchLike = async (input, init) => {
    const path = new URL(input, "http://app.test").pathname.replace(/^\/api\/v1/, "");
    paths.push(`${init?.method} ${path} ${(init?.headers as Record<string, string>)["X-Access-Token"] ?? "-"}`);
    const res = await server.fetch(input, init);
    if (o.hold) await o.hold;
    return res;
  };
  const client = new ApiClient({
    mode: "token",
    fetch,
    tokens: o.store,
    navigate,
    locks: o.locks ?? null,
    channel: o.bus ? new o.bus.Channel(CHANNEL) : null,
  });
  return { client, navigate, store: o.store, paths };
}

describe("tabs of one browser", () => {
  it("refresh once when they meet an expiry together, and both go on signed in", async () => {
    const server = fakeServer();
    server.state.revokeOnReuse = true;
    const storage = sharedStorage();
    const { locks, state: lock } = fakeLocks();
    const bus = fakeBus();
    const a = tab(server, { store: storageTokenStore(storage), locks, bus });
    const b = tab(server, { store: storageTokenStore(storage), locks, bus });
    a.store.set(server.tokensOf(1));
    server.state.expired = true;
    let open!: () => void;
    server.state.refreshGate = new Promise<void>((r) => (open = r));

    const fromA = a.client.get<{ token: string }>("/users/information");
    const fromB = b.client.get<{ token: string }>("/users/stats");
    // Both tabs have met the expiry with r1 and asked for the lock before any refresh ended.
    await vi.waitFor(() => expect(lock.requests).toEqual([`${DEFAULT_KEY_PREFIX}refresh`, `${DEFAULT_KEY_PREFIX}refresh`]));
    open();

    await expect(fromA).resolves.toMatchObject({ token: "a2" });
    await expect(fromB).resolves.toMatchObject({ token: "a2" });
    expect(count(server, "/users/token")).toBe(1);
    expect(lock.maxHeld).toBe(1);
    expect(server.state.revoked).toBe(false);
    expect(a.paths).toEqual(["GET /users/information a1", "POST /users/token -", "GET /users/information a2"]);
    // B waited for A's refresh, then took the tokens A stored instead of presenting r1.
    expect(b.paths).toEqual(["GET /users/stats a1", "GET /users/stats a2"]);
    expect(b.client.tokens).toEqual(server.tokensOf(2));
    expect(a.navigate).not.toHaveBeenCalled();
    expect(b.navigate).not.toHaveBeenCalled();
    await expect(b.client.get("/users/notifications")).resolves.toMatchObject({ token: "a2" });
  });

  it("without Web Locks or BroadcastChannel refresh each on their own, reading the stored tokens first, as before", async () => {
    const server = fakeServer();
    server.state.revokeOnReuse = true;
    const storage = sharedStorage();
    const fetch = server.fetch;
    // Defaults, as in jsdom and old browsers: no navigator.locks, no BroadcastChannel.
    expect((navigator as { locks?: unknown }).locks).toBeUndefined();
    const a = new ApiClient({ mode: "token", fetch, tokens: storageTokenStore(storage), navigate: vi.fn() });
    let releaseB!: () => void;
    const b = tab(server, { store: storageTokenStore(storage), hold: new Promise<void>((r) => (releaseB = r)) });
    storageTokenStore(storage).set(server.tokensOf(1));
    server.state.expired = true;

    // B's call meets the expiry, but its answer comes back after A has refreshed.
    const fromB = b.client.get<{ token: string }>("/users/stats");
    await vi.waitFor(() => expect(b.paths).toEqual(["GET /users/stats a1"]));
    await expect(a.get("/users/information")).resolves.toMatchObject({ token: "a2" });
    releaseB();
    await expect(fromB).resolves.toMatchObject({ token: "a2" });
    expect(count(server, "/users/token")).toBe(1);
    expect(b.navigate).not.toHaveBeenCalled();
    expect(server.state.revoked).toBe(false);

    // What the lock is for: two tabs that refresh at the same moment without it present one
    // refresh token twice, and the server ends the sign-in.
    server.state.expired = true;
    server.state.refreshGate = new Promise<void>((r) => setTimeout(r, 20));
    const both = [a.get("/users/information"), b.client.get("/users/stats")];
    for (const c of both) await expect(c).rejects.toMatchObject({ status: 401 });
    expect(count(server, "/users/token")).toBe(3);
    expect(server.state.revoked).toBe(true);
    expect(storage.data.size).toBe(0);
  });

  it("hear of a sign-out in another tab and go to /signin", async () => {
    const server = fakeServer();
    const storage = sharedStorage();
    const { locks } = fakeLocks();
    const bus = fakeBus();
    const a = tab(server, { store: storageTokenStore(storage), locks, bus });
    const b = tab(server, { store: storageTokenStore(storage), locks, bus });
    // A tab that keeps its tokens in memory only.
    const c = tab(server, { store: memoryTokenStore(server.tokensOf(1)), locks, bus });
    a.store.set(server.tokensOf(1));

    await a.client.logout();
    expect(bus.sent.at(-1)).toEqual({ name: CHANNEL, data: { kind: "signed_out", refreshToken: "r1" } satisfies TokenMessage });
    await vi.waitFor(() => expect(b.navigate).toHaveBeenCalledWith("/signin"));
    await vi.waitFor(() => expect(c.navigate).toHaveBeenCalledWith("/signin"));
    expect(b.client.tokens).toBeNull();
    expect(c.client.tokens).toBeNull();
    expect(a.navigate).not.toHaveBeenCalled(); // logout's caller decides where to go
    expect(count(server, "/logout")).toBe(1);
  });

  it("all go to /signin when the refresh is refused", async () => {
    const server = fakeServer();
    const storage = sharedStorage();
    const { locks } = fakeLocks();
    const bus = fakeBus();
    const a = tab(server, { store: storageTokenStore(storage), locks, bus });
    const b = tab(server, { store: storageTokenStore(storage), locks, bus });
    a.store.set(server.tokensOf(1));
    server.state.expired = true;
    server.state.refreshStatus = 401;
    await expect(a.client.get("/users/information")).rejects.toMatchObject({ status: 401 });
    expect(a.navigate).toHaveBeenCalledWith("/signin");
    await vi.waitFor(() => expect(b.navigate).toHaveBeenCalledWith("/signin"));
    expect(b.navigate).toHaveBeenCalledTimes(1);
  });

  it("pass new tokens to a tab that keeps them in memory, and ignore news about other tokens", async () => {
    const server = fakeServer();
    server.state.revokeOnReuse = true;
    const { locks } = fakeLocks();
    const bus = fakeBus();
    const a = tab(server, { store: memoryTokenStore(server.tokensOf(1)), locks, bus });
    const b = tab(server, { store: memoryTokenStore(server.tokensOf(1)), locks, bus });
    server.state.expired = true;
    await expect(a.client.get("/users/information")).resolves.toMatchObject({ token: "a2" });
    await vi.waitFor(() => expect(b.client.tokens).toEqual(server.tokensOf(2)));
    await expect(b.client.get("/users/stats")).resolves.toMatchObject({ token: "a2" });
    expect(count(server, "/users/token")).toBe(1);

    // Late or foreign messages: tokens that replaced r1 (B holds r2 now), a sign-out of r1,
    // and things that are not ours at all change nothing.
    const other = new bus.Channel(CHANNEL);
    const stale: TokenMessage[] = [
      { kind: "tokens", replaced: "r1", tokens: server.tokensOf(9) },
      { kind: "signed_out", refreshToken: "r1" },
    ];
    for (const m of [...stale, null, "signed_out", { kind: "tokens", replaced: "r2" }, { kind: "signed_out" }]) other.postMessage(m);
    await new Promise((r) => setTimeout(r, 10));
    expect(b.client.tokens).toEqual(server.tokensOf(2));
    expect(b.navigate).not.toHaveBeenCalled();
    expect(server.state.revoked).toBe(false);
  });

  it("use navigator.locks and a BroadcastChannel named after the key prefix when the browser has them", async () => {
    const server = fakeServer();
    const { locks, state: lock } = fakeLocks();
    const bus = fakeBus();
    vi.stubGlobal("BroadcastChannel", bus.Channel);
    Object.defineProperty(navigator, "locks", { value: locks, configurable: true });
    try {
      const fetch = server.fetch;
      const cookie = new ApiClient({ mode: "cookie", fetch, navigate: vi.fn() });
      expect(bus.members.size).toBe(0);
      cookie.close();

      const storage = sharedStorage();
      const client = new ApiClient({ mode: "token", fetch, tokens: storageTokenStore(storage, "x:"), keyPrefix: "x:", navigate: vi.fn() });
      expect([...bus.members].map((m) => m.name)).toEqual(["x:tokens"]);
      client.setTokens(server.tokensOf(1));
      expect(storage.data.get("x:refresh_token")).toBe("r1");
      server.state.expired = true;
      await expect(client.get("/users/information")).resolves.toMatchObject({ token: "a2" });
      expect(lock.requests).toEqual(["x:refresh"]);
      expect(bus.sent.map((m) => m.name)).toEqual(["x:tokens", "x:tokens"]);
      expect(bus.sent[1].data).toEqual({ kind: "tokens", replaced: "r1", tokens: server.tokensOf(2) });
      client.close();
      expect(bus.members.size).toBe(0);
    } finally {
      delete (navigator as { locks?: unknown }).locks;
    }
  });
});
