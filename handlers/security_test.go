package handlers

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/static"
)

func TestSecurityHeaders(t *testing.T) {
	ta := newTestApp(t)
	c := ta.client(t)
	res := c.get("/signin")
	h := res.Header
	csp := h.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self' 'nonce-")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.Equal(t, "strict-origin-when-cross-origin", h.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Empty(t, h.Get("Strict-Transport-Security"), "no HSTS over plain HTTP")

	other := c.get("/signin").Header.Get("Content-Security-Policy")
	assert.NotEqual(t, csp, other, "a new nonce per response")

	tls := newTestApp(t, func(o *Options) { o.BaseURL = "https://pay.example.jp" }).client(t)
	assert.Contains(t, tls.get("/signin").Header.Get("Strict-Transport-Security"), "max-age=")
}

func TestStaticAssetsAreImmutable(t *testing.T) {
	c := newTestApp(t).client(t)
	css := static.URL("css/app.css")
	require.NotEmpty(t, css)
	res := c.get(css)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))
	assert.Equal(t, http.StatusNotFound, c.get("/static/css/app.css").StatusCode, "only hashed names are served")
}

func TestHTMLIsGzipped(t *testing.T) {
	ta := newTestApp(t)
	req, err := http.NewRequest(http.MethodGet, ta.srv.URL+"/signin", nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	zr, err := gzip.NewReader(res.Body)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Contains(t, string(b), "ログイン")
}

// A cross-site form post (CSRF) is refused before any handler runs: no session is
// created and nobody is signed in.
func TestCrossSitePostIsRefused(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	ctx := context.Background()
	var before int
	require.NoError(t, db.Store.DB.GetContext(ctx, &before, `SELECT count(*) FROM sessions`))

	c := ta.client(t)
	form := url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}}
	req, err := http.NewRequest(http.MethodPost, ta.srv.URL+"/signin", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res := c.do(req)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, res.body, "送信を受け付けられません")
	assert.Empty(t, c.cookie("cardpay_session"))

	var after int
	require.NoError(t, db.Store.DB.GetContext(ctx, &after, `SELECT count(*) FROM sessions`))
	assert.Equal(t, before, after, "nothing written")

	// The same post from our own origin works.
	ok := c.post("/signin", form)
	assert.Equal(t, http.StatusSeeOther, ok.StatusCode)
}

func TestErrorPagesAreGzipped(t *testing.T) {
	ta := newTestApp(t)
	for _, p := range []string{"/no-such-page", "/error/a/b"} {
		req, err := http.NewRequest(http.MethodGet, ta.srv.URL+p, nil)
		require.NoError(t, err)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"), p)
	}
}
