package securitysuite_test

// Security headers (web.App.SecurityHeaders wraps the whole site): every page of
// handlers.Pages, opened by whoever may open it, and a set of other answers — the
// error pages (404, the origin check's 403, a role's 403, a form's 422), the API's JSON
// (200, 401, 404, 405, 422), a redirect and a static file — must carry a
// Content-Security-Policy without 'unsafe-inline' or 'unsafe-eval', nosniff, a refusal
// to be framed and a Referrer-Policy; Strict-Transport-Security only when BASE_URL is
// https.

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cardpay/handlers"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/static"
)

// headerCase is one answer whose headers are checked.
type headerCase struct {
	name   string
	status int
	header http.Header
}

// headerProblems lists what is wrong with h (https: HSTS is expected).
func headerProblems(h http.Header, https bool) []string {
	var out []string
	csp := h.Get("Content-Security-Policy")
	switch {
	case csp == "":
		out = append(out, "no Content-Security-Policy")
	case strings.Contains(csp, "unsafe-inline"):
		out = append(out, "CSP allows 'unsafe-inline'")
	case strings.Contains(csp, "unsafe-eval"):
		out = append(out, "CSP allows 'unsafe-eval'")
	case !strings.Contains(csp, "script-src") && !strings.Contains(csp, "default-src"):
		out = append(out, "CSP does not restrict scripts")
	}
	if h.Get("X-Content-Type-Options") != "nosniff" {
		out = append(out, "X-Content-Type-Options: "+h.Get("X-Content-Type-Options"))
	}
	if !strings.Contains(csp, "frame-ancestors 'none'") && !strings.EqualFold(h.Get("X-Frame-Options"), "DENY") {
		out = append(out, "may be framed")
	}
	switch h.Get("Referrer-Policy") {
	case "no-referrer", "same-origin", "strict-origin", "strict-origin-when-cross-origin":
	default:
		out = append(out, "Referrer-Policy: "+h.Get("Referrer-Policy"))
	}
	hsts := h.Get("Strict-Transport-Security")
	switch {
	case https && hstsMaxAge(hsts) < 365*24*3600:
		out = append(out, "HSTS missing or short: "+hsts)
	case !https && hsts != "":
		out = append(out, "HSTS over plain http: "+hsts)
	}
	return out
}

var maxAge = regexp.MustCompile(`max-age=(\d+)`)

func hstsMaxAge(v string) int {
	m := maxAge.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// headerCases opens every page of handlers.Pages and the other answers on env.
func headerCases(t *testing.T, env *webtest.Env) (pages, others []headerCase, byAccess map[string]int) {
	t.Helper()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	buyer := env.Client(t)
	buyer.SignIn(u.EmailAddress)
	operator := env.Client(t)
	op := newOperator(t, env)
	res := operator.Post("/ops/signin", url.Values{"email_address": {op.EmailAddress}, "password": {opPassword}, "code": {opCode(t)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	anon := env.Client(t)

	byAccess = map[string]int{}
	for _, p := range handlers.Pages() {
		c := anon
		switch p.Access {
		case web.SignedIn, web.Collections:
			c = buyer
		case web.Operator:
			c = operator
		}
		byAccess[p.Access]++
		res := c.Get(p.Path)
		pages = append(pages, headerCase{p.Path, res.StatusCode, res.Header})
	}

	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	soleClient := env.Client(t)
	soleClient.SignIn(sole.EmailAddress)
	get := func(c *webtest.Client, name, path string, headers map[string]string) {
		req, err := http.NewRequest(http.MethodGet, c.Base+path, nil)
		require.NoError(t, err)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res := c.Do(req)
		others = append(others, headerCase{name, res.StatusCode, res.Header})
	}
	post := func(c *webtest.Client, name, path, contentType, body string, headers map[string]string) {
		req, err := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res := c.Do(req)
		others = append(others, headerCase{name, res.StatusCode, res.Header})
	}
	same := map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin"}
	get(anon, "404 page", "/no-such-page/at/all", nil)
	post(anon, "403 origin check", "/signin", "application/x-www-form-urlencoded", "email_address=a%40b.jp",
		map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
	get(soleClient, "403 sole proprietor on collections", "/collections/create", nil)
	post(anon, "422 sign-in form", "/signin", "application/x-www-form-urlencoded", "", same)
	get(anon, "303 redirect to sign-in", "/toppage", nil)
	get(anon, "200 API system/time", "/api/v1/system/time", nil)
	get(anon, "401 API", "/api/v1/users/information", nil)
	get(anon, "404 API", "/api/v1/no/such/call", nil)
	get(anon, "405 API", "/api/v1/login", nil)
	post(anon, "422 API", "/api/v1/users/validation", "application/json", `{"business_form":"1"}`, same)
	post(anon, "400 API", "/api/v1/login", "application/json", `{"email_address":`, same)
	get(anon, "200 static CSS", static.URL("css/app.css"), nil)
	// The operator console's own pages (handlers.Pages lists only its sign-in).
	for _, p := range []string{"/ops/screening", "/ops/suppliers", "/ops/audit", "/ops/operators", "/ops/transfers", "/ops/reconciliation", "/ops/ledger"} {
		get(operator, "200 console "+p, p, nil)
	}
	return pages, others, byAccess
}

func TestHeadersOnEveryPageOverPlainHTTP(t *testing.T) {
	env := webtest.New(t)
	pages, others, byAccess := headerCases(t, env)
	require.NotEmpty(t, pages)

	var bad []string
	statuses := map[int]int{}
	for _, p := range pages {
		statuses[p.status]++
		// Every page opens for its visitor (the 404 example is a page too).
		if p.status != http.StatusOK && !(p.name == "/no-such-page" && p.status == http.StatusNotFound) {
			bad = append(bad, fmt.Sprintf("%s answered %d", p.name, p.status))
		}
		for _, pr := range headerProblems(p.header, false) {
			bad = append(bad, p.name+": "+pr)
		}
	}
	if len(bad) > 0 {
		t.Errorf("pages: %s", strings.Join(bad, "; "))
	}
	record(t, "headers", "every page: CSP without unsafe-inline/eval, nosniff, no framing, Referrer-Policy, no HSTS over http",
		fmt.Sprintf("%d pages (%d public, %d signed in, %d collections, %d operator), %d × 200 + %d × 404 example: %d problems",
			len(pages), byAccess[web.Public], byAccess[web.SignedIn], byAccess[web.Collections], byAccess[web.Operator],
			statuses[http.StatusOK], statuses[http.StatusNotFound], len(bad)),
		len(bad) == 0)

	bad = nil
	var names []string
	console := 0
	for _, o := range others {
		if strings.HasPrefix(o.name, "200 console ") {
			console++
		} else {
			names = append(names, o.name)
		}
		want := o.name[:3]
		if strconv.Itoa(o.status) != want {
			bad = append(bad, fmt.Sprintf("%s answered %d", o.name, o.status))
		}
		for _, pr := range headerProblems(o.header, false) {
			bad = append(bad, o.name+": "+pr)
		}
	}
	if len(bad) > 0 {
		t.Errorf("other answers: %s", strings.Join(bad, "; "))
	}
	record(t, "headers", "error, API, redirect, static and console answers: the same",
		fmt.Sprintf("%d answers (%s, %d console pages): %d problems", len(others), strings.Join(names, ", "), console, len(bad)), len(bad) == 0)
}

func TestHeadersHSTSWhenBaseURLIsHTTPS(t *testing.T) {
	env := webtest.New(t, func(d *web.Deps) { d.BaseURL = "https://pay.example.jp" })
	pages, others, _ := headerCases(t, env)
	var bad []string
	all := append(pages, others...)
	for _, p := range all {
		for _, pr := range headerProblems(p.header, true) {
			bad = append(bad, p.name+": "+pr)
		}
	}
	if len(bad) > 0 {
		t.Errorf("https: %s", strings.Join(bad, "; "))
	}
	record(t, "headers", "BASE_URL https: HSTS on every answer",
		fmt.Sprintf("%d pages + %d other answers: %d with HSTS max-age ≥ 1 year (%s), %d problems",
			len(pages), len(others), len(all)-len(bad), all[0].header.Get("Strict-Transport-Security"), len(bad)),
		len(bad) == 0)
}
