package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"cardpay/static"
	"cardpay/views"
)

type nonceKey struct{}

func nonceFrom(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey{}).(string)
	return n
}

// SecurityHeaders sets the headers every response carries. Scripts run only from our
// own files with this request's nonce: no 'unsafe-inline' for scripts or styles.
func (a *App) SecurityHeaders(next http.Handler) http.Handler {
	hsts := strings.HasPrefix(a.BaseURL, "https://")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 18)
		_, _ = rand.Read(b)
		nonce := base64.RawURLEncoding.EncodeToString(b)
		h := w.Header()
		h.Set("Content-Security-Policy", a.policy(nonce, pagePolicy{}))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		if hsts || r.TLS != nil {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		// Pages can show a buyer's data: never store them. Hashed static files set
		// their own long-lived caching.
		if !strings.HasPrefix(r.URL.Path, static.Prefix) {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nonceKey{}, nonce)))
	})
}

// cspOrigin is origin as a CSP source (scheme://host[:port]), or "" when it is not an
// http(s) origin, so that configuration can never add anything else to the policy.
func cspOrigin(origin string) string {
	u, err := url.Parse(strings.TrimRight(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(u.Host, " ;,'\"") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// DenyCrossOrigin answers a cross-origin POST (a CSRF attempt) before any handler or
// session runs, so nothing is written.
func (a *App) DenyCrossOrigin(w http.ResponseWriter, r *http.Request) {
	page := views.ErrorPage(views.ErrorView{
		Base: views.Base{
			ServiceName: a.ServiceName, Title: "送信を受け付けられません", Nonce: nonceFrom(r.Context()),
			CurrentPath: r.URL.Path, Links: a.Links,
		},
		Heading: "送信を受け付けられません",
		Message: "他のサイトから送信されたため、処理を中止しました。お手数ですが、画面を開き直してからもう一度お試しください。",
	})
	var buf bytes.Buffer
	if err := page.Render(r.Context(), &buf); err != nil {
		http.Error(w, "403 Forbidden", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(buf.Bytes())
}
