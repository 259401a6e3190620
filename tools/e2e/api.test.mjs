// The islands' API client (islands/lib/api.ts) against the real server: token mode with
// login, refresh-once-and-replay on expiry, refresh-token reuse revoking the sign-in, and
// cookie mode (DESIGN.md §4 "API auth", SPEC.md §8).
//
// The module is bundled for Node with esbuild's JS API, then imported. The expiry test
// needs a short access-token lifetime: tools/e2e.sh starts the server with
// API_ACCESS_TOKEN_TTL=3s (development only). With the default 15 minutes it is skipped.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";

import * as esbuild from "esbuild";

import { BASE_URL, CORP, DEMO_PASSWORD, ROOT, url } from "./lib.mjs";

const API = `${BASE_URL}/api/v1`;
let lib;
let buildDir;

before(async () => {
  buildDir = mkdtempSync(path.join(tmpdir(), "cardpay-api-"));
  const outfile = path.join(buildDir, "api.mjs");
  await esbuild.build({
    entryPoints: [path.join(ROOT, "islands/lib/api.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  lib = await import(pathToFileURL(outfile).href);
});

after(() => {
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** A fetch that records the path of every API call (node's fetch needs absolute URLs). */
function recordingFetch(extraHeaders = {}) {
  const calls = [];
  const f = async (input, init = {}) => {
    calls.push(new URL(input).pathname.replace(/^\/api\/v1/, ""));
    return fetch(input, { ...init, headers: { ...init.headers, ...extraHeaders } });
  };
  return { fetch: f, calls };
}

/** A token-mode client with tokens in memory and navigation recorded. */
function tokenClient(extra = {}) {
  const rec = recordingFetch();
  const navigations = [];
  const client = lib.createApiClient({
    mode: "token",
    baseUrl: API,
    fetch: rec.fetch,
    tokens: lib.memoryTokenStore(),
    navigate: (u) => navigations.push(u),
    ...extra,
  });
  return { client, calls: rec.calls, navigations };
}

async function post(p, body, headers = {}) {
  const res = await fetch(API + p, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function login() {
  const r = await post("/login", { email_address: CORP, password: DEMO_PASSWORD });
  assert.equal(r.status, 200, `POST /api/v1/login as ${CORP}: ${JSON.stringify(r.body)}`);
  assert.ok(r.body.access_token && r.body.id_token && r.body.refresh_token, JSON.stringify(r.body));
  return r.body;
}

const tokensOf = (b) => ({ accessToken: b.access_token, idToken: b.id_token, refreshToken: b.refresh_token });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe("API client, token mode", () => {
  it(`logs in as ${CORP} and reads users/information`, async () => {
    const { client, navigations } = tokenClient();
    assert.deepEqual(await client.login(CORP, DEMO_PASSWORD), { kind: "signed_in" });
    const info = await client.get("/users/information");
    assert.equal(info.email_address, CORP);
    assert.equal(info.business_form, 1);
    assert.equal(info.collection_mode, "enabled");
    const list = await client.get("/users/notifications", { query: { page: 0, size: 1 } });
    assert.ok(list.count_all >= 2, "the demo buyer has notifications");
    assert.equal(list.notifications.length, 1);
    await client.logout();
    assert.equal(client.tokens, null);
    assert.deepEqual(navigations, []);
  });

  it("refreshes once for three concurrent calls after the access token expires, and replays them", async (t) => {
    const first = await login();
    if (first.expires_in > 30) {
      t.skip(`access tokens live ${first.expires_in} s here; start the server with API_ACCESS_TOKEN_TTL=3s to test expiry`);
      return;
    }
    await sleep((first.expires_in + 1) * 1000);

    // The server says so in the body the client reacts to.
    const raw = await fetch(`${API}/users/information`, {
      headers: { Authorization: `Bearer ${first.id_token}`, "X-Access-Token": first.access_token },
    });
    assert.equal(raw.status, 401);
    assert.equal((await raw.json()).status, "expired_access_token");

    const { client, calls, navigations } = tokenClient();
    client.setTokens(tokensOf(first));
    const [info, stats, list] = await Promise.all([
      client.get("/users/information"),
      client.get("/users/stats"),
      client.get("/users/notifications", { query: { page: 0, size: 1 } }),
    ]);
    assert.equal(info.email_address, CORP);
    assert.equal(typeof stats.notification_unread_count, "number");
    assert.ok(Array.isArray(list.notifications));
    assert.equal(calls.filter((c) => c === "/users/token").length, 1, `one refresh for three calls: ${calls.join(", ")}`);
    assert.equal(calls.length, 7, `3 calls, 1 refresh, 3 replays: ${calls.join(", ")}`);
    assert.notEqual(client.tokens.refreshToken, first.refresh_token, "the refresh token rotated");
    assert.deepEqual(navigations, []);
    await client.logout();
  });

  it("a reused refresh token revokes the sign-in, and the client goes to /signin", async () => {
    const first = await login();
    const rotated = await post("/users/token", { refresh_token: first.refresh_token });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));

    const { client, navigations } = tokenClient();
    client.setTokens(tokensOf(rotated.body));
    assert.equal((await client.get("/users/information")).email_address, CORP);

    const reuse = await post("/users/token", { refresh_token: first.refresh_token });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.status, "invalid_refresh_token");

    await assert.rejects(client.get("/users/information"), (e) => e.status === 401 && e.code === "unauthorized");
    assert.deepEqual(navigations, ["/signin"]);
    assert.equal(client.tokens, null, "the tokens are forgotten");
    const again = await post("/users/token", { refresh_token: rotated.body.refresh_token });
    assert.equal(again.body.status, "invalid_refresh_token", "the family's newest refresh token is revoked too");
  });

  it("a wrong two-factor session or refresh token is an answer, not a sign-out", async () => {
    const { client, navigations } = tokenClient();
    await assert.rejects(client.loginTwoFactor("not-a-session", "123456"), (e) => e.status === 401);
    await assert.rejects(client.post("/users/token", { refresh_token: "nope" }), (e) => e.code === "invalid_refresh_token");
    assert.deepEqual(navigations, []);
  });
});

describe("API client, cookie mode", () => {
  it("uses the signed-in session with X-Requested-With: fetch", async () => {
    const res = await fetch(url("/signin"), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE_URL, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams({ email_address: CORP, password: DEMO_PASSWORD }).toString(),
    });
    assert.equal(res.status, 303);
    const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    assert.ok(cookie);

    const rec = recordingFetch({ Cookie: cookie });
    const navigations = [];
    const client = lib.createApiClient({
      mode: "cookie",
      baseUrl: API,
      fetch: rec.fetch,
      navigate: (u) => navigations.push(u),
      currentPath: () => "/myaccount/company",
    });
    assert.equal((await client.get("/users/information")).email_address, CORP);

    const bare = await fetch(`${API}/users/information`, { headers: { Cookie: cookie } });
    assert.equal(bare.status, 401, "a cookie without X-Requested-With is refused");

    await client.logout();
    await assert.rejects(client.get("/users/information"), (e) => e.status === 401);
    assert.deepEqual(navigations, ["/signin?redirect=%2Fmyaccount%2Fcompany"]);
  });
});

describe("API basics", () => {
  it("serves its OpenAPI document", async () => {
    const res = await fetch(`${API}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    assert.ok(doc.paths["/users/information"].get);
  });

  it("answers bad input and unknown calls in JSON with a Japanese message", async () => {
    for (const [p, init, status] of [
      ["/login", { method: "POST", body: "{not json", headers: { "Content-Type": "application/json" } }, 400],
      ["/login", { method: "GET" }, 405],
      ["/no/such/call", {}, 404],
    ]) {
      const res = await fetch(API + p, init);
      assert.equal(res.status, status, p);
      const body = await res.json();
      assert.match(body.message, /[\u3040-\u30ff\u4e00-\u9fff]/, `${p}: ${JSON.stringify(body)}`);
    }
  });
});
