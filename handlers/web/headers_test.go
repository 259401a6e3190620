package web_test

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

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/static"
)

func TestSecurityHeaders(t *testing.T) {
	ta := webtest.New(t)
	c := ta.Client(t)
	res := c.Get("/signin")
	h := res.Header
	csp := h.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self' 'nonce-")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.Equal(t, "strict-origin-when-cross-origin", h.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Empty(t, h.Get("Strict-Transport-Security"), "no HSTS over plain HTTP")

	other := c.Get("/signin").Header.Get("Content-Security-Policy")
	assert.NotEqual(t, csp, other, "a new nonce per webtest.Response")

	tls := webtest.New(t, func(o *web.Deps) { o.BaseURL = "https://pay.example.jp" }).Client(t)
	assert.Contains(t, tls.Get("/signin").Header.Get("Strict-Transport-Security"), "max-age=")
}

func TestStaticAssetsAreImmutable(t *testing.T) {
	c := webtest.New(t).Client(t)
	css := static.URL("css/app.css")
	require.NotEmpty(t, css)
	res := c.Get(css)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))
	assert.Equal(t, http.StatusNotFound, c.Get("/static/css/app.css").StatusCode, "only hashed names are served")
}

func TestHTMLIsGzipped(t *testing.T) {
	ta := webtest.New(t)
	req, err := http.NewRequest(http.MethodGet, ta.URL+"/signin", nil)
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
	ta := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	ctx := context.Background()
	var before int
	require.NoError(t, webtest.Store().DB.GetContext(ctx, &before, `SELECT count(*) FROM sessions`))

	c := ta.Client(t)
	form := url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}}
	req, err := http.NewRequest(http.MethodPost, ta.URL+"/signin", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res := c.Do(req)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, res.Body, "送信を受け付けられません")
	assert.Empty(t, c.Cookie("cardpay_session"))

	var after int
	require.NoError(t, webtest.Store().DB.GetContext(ctx, &after, `SELECT count(*) FROM sessions`))
	assert.Equal(t, before, after, "nothing written")

	// The same post from our own origin works.
	ok := c.Post("/signin", form)
	assert.Equal(t, http.StatusSeeOther, ok.StatusCode)
}

func TestErrorPagesAreGzipped(t *testing.T) {
	ta := webtest.New(t)
	for _, p := range []string{"/no-such-page", "/error/a/b"} {
		req, err := http.NewRequest(http.MethodGet, ta.URL+p, nil)
		require.NoError(t, err)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"), p)
	}
}
