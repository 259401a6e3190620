// HTTP-level security and caching (plain fetch, no browser): security headers on every
// response, no-store on signed-in pages, immutable hashed static assets, gzip, and a
// cross-site POST refused with 403 before anything is written (DESIGN.md §5, §6).
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";

import { BASE_URL, CORP, DEMO_PASSWORD, displayPath, expectedStatus, pages, url } from "./lib.mjs";

const all = pages();
const publicPages = all.filter((p) => p.access === "public");
const signedInPages = all.filter((p) => p.access !== "public");
const ONE_YEAR = 31_536_000;

/** GET or POST without following redirects, as a same-origin browser would send it. */
function request(path, { method = "GET", cookie, body, headers = {} } = {}) {
  const h = { "Accept-Encoding": "gzip", ...headers };
  if (cookie) h.Cookie = cookie;
  if (body) h["Content-Type"] = "application/x-www-form-urlencoded";
  if (method !== "GET" && !("Origin" in headers)) {
    h.Origin = BASE_URL;
    h["Sec-Fetch-Site"] = "same-origin";
  }
  return fetch(url(path), { method, headers: h, body: body && new URLSearchParams(body).toString(), redirect: "manual" });
}

/** The name=value pairs of a response's Set-Cookie headers, as a Cookie header. */
const cookiesOf = (res) => res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

/** Signs in through POST /signin; returns the session cookie. */
async function signIn(email = CORP) {
  const res = await request("/signin", { method: "POST", body: { email_address: email, password: DEMO_PASSWORD } });
  assert.equal(res.status, 303, `POST /signin as ${email} redirects (got ${res.status})`);
  const cookie = cookiesOf(res);
  assert.ok(cookie, "POST /signin sets a session cookie");
  return cookie;
}

/** Problems with the headers every response must carry. */
function headerProblems(res) {
  const problems = [];
  const csp = res.headers.get("content-security-policy");
  if (!csp) problems.push("no Content-Security-Policy");
  else {
    if (csp.includes("'unsafe-inline'")) problems.push(`CSP allows 'unsafe-inline': ${csp}`);
    if (csp.includes("'unsafe-eval'")) problems.push(`CSP allows 'unsafe-eval': ${csp}`);
    if (!/(^|;)\s*frame-ancestors 'none'\s*(;|$)/.test(csp)) problems.push(`CSP lacks frame-ancestors 'none': ${csp}`);
  }
  if (res.headers.get("x-content-type-options") !== "nosniff") {
    problems.push(`X-Content-Type-Options is ${JSON.stringify(res.headers.get("x-content-type-options"))}, want nosniff`);
  }
  if (!res.headers.get("referrer-policy")) problems.push("no Referrer-Policy");
  return problems;
}

function assertHeaders(res, what) {
  const problems = headerProblems(res);
  assert.deepEqual(problems, [], `${what} (${res.status}): ${problems.join("; ")}`);
}

/** URLs of the stylesheet, icon sprite, scripts and module preloads a page refers to. */
function assetURLs(html) {
  const found = new Set();
  for (const re of [
    /<link[^>]+rel="stylesheet"[^>]*href="([^"]+)"/g,
    /<link[^>]+href="([^"]+)"[^>]*rel="stylesheet"/g,
    /<link[^>]+rel="modulepreload"[^>]*href="([^"]+)"/g,
    /<script[^>]+src="([^"]+)"/g,
    /<use[^>]+href="([^"#]+)#/g,
  ]) {
    for (const m of html.matchAll(re)) found.add(m[1].replaceAll("&amp;", "&"));
  }
  return [...found];
}

describe("security headers on every response", () => {
  describe("anonymous", () => {
    for (const p of publicPages) {
      it(`${displayPath(p.path)} answers ${expectedStatus(p)} with CSP, nosniff, frame-ancestors 'none' and Referrer-Policy`, async () => {
        const res = await request(p.path);
        assert.equal(res.status, expectedStatus(p));
        assertHeaders(res, p.path);
      });
    }
    it("redirects (/ and an anonymous /toppage) carry them too", async () => {
      for (const path of ["/", "/toppage"]) {
        const res = await request(path);
        assert.equal(res.status, 303, `${path} redirects`);
        assertHeaders(res, path);
      }
      const res = await request("/toppage");
      assert.equal(res.headers.get("location"), "/signin?redirect=%2Ftoppage");
    });
    it("a sign-in with validation errors (422) carries them", async () => {
      const res = await request("/signin", { method: "POST", body: { email_address: "", password: "" } });
      assert.equal(res.status, 422);
      assertHeaders(res, "POST /signin (422)");
      assert.match(res.headers.get("cache-control") ?? "", /no-store/, "a re-rendered form is not stored");
    });
  });

  describe(`signed in as ${CORP}`, () => {
    let cookie;
    before(async () => {
      cookie = await signIn();
    });
    for (const p of signedInPages) {
      it(`${p.path} has the headers and Cache-Control: no-store`, async () => {
        const res = await request(p.path, { cookie });
        assert.equal(res.status, 200, `${p.path} as ${CORP}`);
        assertHeaders(res, p.path);
        const cc = res.headers.get("cache-control") ?? "";
        assert.match(cc, /\bno-store\b/, `${p.path}: Cache-Control is ${JSON.stringify(cc)}, want no-store`);
      });
    }
  });

  it("a sole proprietor's 403 on /collections/* carries them", async () => {
    const cookie = await signIn("sole@demo.example");
    const res = await request("/collections/create", { cookie });
    assert.equal(res.status, 403);
    assertHeaders(res, "/collections/create as sole");
  });
});

describe("static assets", () => {
  let assets;
  let nonceChecked;
  before(async () => {
    const anon = await (await request("/signin")).text();
    // The landing page right after sign-in has the snackbar island and its scripts.
    const cookie = await signIn();
    const landing = await request("/payments/create", { cookie });
    const html = await landing.text();
    assets = [...new Set([...assetURLs(anon), ...assetURLs(html)])];
    const csp = landing.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    const scriptNonces = [...html.matchAll(/<script[^>]*\snonce="([^"]+)"/g)].map((m) => m[1]);
    nonceChecked = { nonce, scriptNonces, scripts: (html.match(/<script\b/g) ?? []).length };
  });

  it("pages refer to a stylesheet, the icon sprite and, with a notice, the island's scripts", () => {
    assert.ok(assets.some((a) => a.endsWith(".css")), `a stylesheet among ${assets.join(", ")}`);
    assert.ok(assets.some((a) => a.endsWith(".svg")), `the icon sprite among ${assets.join(", ")}`);
    assert.ok(assets.some((a) => a.endsWith(".js")), `island scripts among ${assets.join(", ")}`);
  });

  it("every asset has a hashed name under /static/ and is cached for a year as immutable", async () => {
    const problems = [];
    for (const a of assets) {
      if (!a.startsWith("/static/")) problems.push(`${a}: not under /static/`);
      if (!/[.-][A-Za-z0-9_]{8,}\.[a-z0-9]+$/.test(a)) problems.push(`${a}: no content hash in the name`);
      const res = await request(a);
      if (res.status !== 200) {
        problems.push(`${a}: status ${res.status}`);
        continue;
      }
      const cc = res.headers.get("cache-control") ?? "";
      const maxAge = Number(/max-age=(\d+)/.exec(cc)?.[1] ?? 0);
      if (!/\bimmutable\b/.test(cc) || maxAge < ONE_YEAR) problems.push(`${a}: Cache-Control ${JSON.stringify(cc)}`);
      problems.push(...headerProblems(res).map((p) => `${a}: ${p}`));
      await res.arrayBuffer();
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  it("the stylesheet is not served under its unhashed name", async () => {
    const res = await request("/static/css/app.css");
    assert.equal(res.status, 404);
  });

  it("island scripts carry the nonce of the page's CSP", () => {
    assert.ok(nonceChecked.nonce, "the CSP has a nonce");
    assert.ok(nonceChecked.scripts >= 1, "the page with a notice has a script");
    assert.equal(nonceChecked.scriptNonces.length, nonceChecked.scripts, "every <script> has a nonce");
    for (const n of nonceChecked.scriptNonces) assert.equal(n, nonceChecked.nonce, "script nonce matches the CSP");
  });
});

describe("compression", () => {
  it("HTML is served gzip to a client that accepts it", async () => {
    for (const path of ["/signin", "/help/manual", "/error/x/y"]) {
      const res = await request(path, { headers: { "Accept-Encoding": "gzip" } });
      assert.equal(res.headers.get("content-encoding"), "gzip", `${path}: Content-Encoding`);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(await res.text(), /<html lang="ja">/, `${path}: the body decodes to the page`);
    }
  });

  it("error pages (404, 403) are served gzip", async () => {
    const cookie = await signIn("sole@demo.example");
    const plain = [];
    for (const [path, status, c] of [["/no-such-page", 404], ["/collections/create", 403, cookie]]) {
      const res = await request(path, { cookie: c, headers: { "Accept-Encoding": "gzip" } });
      assert.equal(res.status, status, path);
      const body = await res.text();
      if (res.headers.get("content-encoding") !== "gzip") plain.push(`${path} (${status}, ${Buffer.byteLength(body)} bytes)`);
    }
    assert.deepEqual(plain, [], `sent without gzip: ${plain.join(", ")}`);
  });

  it("signed-in HTML is served gzip", async () => {
    const cookie = await signIn();
    const res = await request("/suppliers?status=enable", { cookie, headers: { "Accept-Encoding": "gzip" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), "gzip");
  });

  it("HTML is sent uncompressed to a client that does not accept gzip", async () => {
    const res = await request("/signin", { headers: { "Accept-Encoding": "identity" } });
    assert.equal(res.headers.get("content-encoding"), null);
    assert.match(await res.text(), /<html lang="ja">/);
  });

  it("the stylesheet is served gzip", async () => {
    const html = await (await request("/signin")).text();
    const css = assetURLs(html).find((a) => a.endsWith(".css"));
    assert.ok(css, "the page links a stylesheet");
    const res = await request(css, { headers: { "Accept-Encoding": "gzip" } });
    assert.equal(res.headers.get("content-encoding"), "gzip");
  });
});

describe("cross-site requests (CSRF)", () => {
  const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };

  it("POST /signin from another site gets 403 and no session, even with the right password", async () => {
    const res = await request("/signin", {
      method: "POST",
      headers: evil,
      body: { email_address: CORP, password: DEMO_PASSWORD },
    });
    assert.equal(res.status, 403);
    assert.deepEqual(res.headers.getSetCookie(), [], "no cookie is set");
    assertHeaders(res, "cross-site POST /signin");
    assert.match(await res.text(), /<h1[^>]*>[^<]*送信を受け付けられません/, "the 403 page explains the refusal");
  });

  it("POST /signout from another site gets 403 and leaves the session signed in", async () => {
    const cookie = await signIn();
    const res = await request("/signout", { method: "POST", cookie, headers: evil });
    assert.equal(res.status, 403);
    const after = await request("/myaccount", { cookie });
    assert.equal(after.status, 200, "the session still works after the refused sign-out");
  });

  it("a same-origin POST /signout signs out", async () => {
    const cookie = await signIn();
    const res = await request("/signout", { method: "POST", cookie });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin");
    const after = await request("/myaccount", { cookie });
    assert.equal(after.status, 303, "the old cookie no longer signs anyone in");
    assert.match(after.headers.get("location") ?? "", /^\/signin\?redirect=/);
  });
});
