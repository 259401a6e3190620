package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// Every call that takes a body, with the body broken in every way a client can break it:
// never a 500, always a Japanese message, and nothing changes.
func TestBadBodiesAreRefusedClearly(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	signedIn := env.client(t)
	signedIn.login(u.EmailAddress)

	bodies := []struct {
		name   string
		body   any
		status int
		kind   string
	}{
		{"malformed JSON", `{"email_address": "a@b.jp",`, 400, "invalid_json"},
		{"not JSON at all", `email_address=a@b.jp&password=x`, 400, "invalid_json"},
		{"an array", `[1, 2]`, 400, "invalid_json"},
		{"a string", `"hello"`, 400, "invalid_json"},
		{"null", `null`, 400, "invalid_json"},
		{"two objects", `{}{}`, 400, "invalid_json"},
		{"invalid UTF-8", []byte("{\"email_address\": \"\xff\xfe@example.jp\", \"user_last_name\": \"\xc3\x28\"}"), 400, "invalid_encoding"},
		{"a NUL character", `{"email_address": "a\u0000@example.jp", "user_last_name": "x\u0000"}`, 400, "bad_request"},
		{"a huge body", `{"email_address": "` + strings.Repeat("a", 70<<10) + `"}`, 413, "payload_too_large"},
		{"a huge number", `{"business_form": 1e400, "terms_version": 99999999999999999999999, "consent": 1}`, 0, ""},
		{"deep nesting", strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000), 0, ""},
	}
	for _, rt := range routesWithBodies() {
		for _, b := range bodies {
			t.Run(rt.method+" "+rt.path+" with "+b.name, func(t *testing.T) {
				c := env.client(t)
				if rt.signedIn {
					c.tokens = signedIn.tokens
				}
				r := c.call(rt.method, rt.path, b.body)
				assert.Less(t, r.Status, 500, r.String())
				if r.Status >= 400 {
					assert.NotEmpty(t, r.str("message"), "a message for the person: %s", r)
					assert.True(t, hasJapanese(r.str("message")), "in Japanese: %s", r)
				}
				// Unknown fields are ignored, so nesting under one may be a valid call.
				if b.status != 0 {
					assert.Equal(t, b.status, r.Status, r.String())
					assert.Equal(t, b.kind, r.str("status"), r.String())
				}
			})
		}
	}
	info := signedIn.get("/users/information")
	assert.Equal(t, "山田", info.str("user_last_name"), "nothing changed")
}

func TestWrongTypesNameTheField(t *testing.T) {
	env := newEnv(t)
	c := env.client(t)
	r := c.post("/users", map[string]any{"email_address": "a@b.jp", "password": "kakunin2026pass", "consent": "yes"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "consentは真偽値（true または false）で指定してください", r.fieldErrors()["consent"])

	r = c.post("/users/validation", map[string]any{"business_form": "1"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "business_formは整数で指定してください", r.fieldErrors()["business_form"])

	r = c.post("/users/validation", map[string]any{"business_form": 1, "corporate_name": []string{"x"}})
	assert.Equal(t, "corporate_nameは文字列で指定してください", r.fieldErrors()["corporate_name"])

	r = c.post("/user_simple_check", map[string]any{"password": nil, "email_address": nil})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, "null is as good as missing")
}

func TestContentTypeMustBeJSON(t *testing.T) {
	c := newEnv(t).client(t)
	c.headers["Content-Type"] = "application/x-www-form-urlencoded"
	r := c.post("/login", `{"email_address":"a@b.jp","password":"x"}`)
	assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
	c.headers["Content-Type"] = "application/json; charset=utf-8"
	r = c.post("/login", `{"email_address":"a@b.jp","password":"x"}`)
	assert.Equal(t, http.StatusUnauthorized, r.Status, r.String())
	c.headers["Content-Type"] = ""
	r = c.post("/login", `{"email_address":"a@b.jp","password":"x"}`)
	assert.Equal(t, http.StatusUnauthorized, r.Status, "no Content-Type is read as JSON: %s", r)
}

func TestUnknownPathsAndMethodsAnswerJSON(t *testing.T) {
	env := newEnv(t)
	c := env.client(t)
	r := c.get("/no/such/call")
	assert.Equal(t, http.StatusNotFound, r.Status)
	assert.Equal(t, "not_found", r.str("status"))
	r = c.get("/login")
	assert.Equal(t, http.StatusMethodNotAllowed, r.Status)
	assert.Equal(t, "method_not_allowed", r.str("status"))
	assert.Equal(t, "POST", r.Header.Get("Allow"))
	r = c.call(http.MethodDelete, "/users/security_settings", nil)
	assert.Equal(t, "GET, PUT", r.Header.Get("Allow"))

	// Outside /api/v1 the app's own pages answer.
	res, err := http.Get(env.URL + "/no-such-page")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Contains(t, res.Header.Get("Content-Type"), "text/html")
}

// Cross-site requests never reach the API (Go's CrossOriginProtection, as in the app).
func TestCrossSiteRequestsAreRefused(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	req, err := http.NewRequest(http.MethodPost, env.URL+"/api/v1/login",
		bytes.NewReader([]byte(`{"email_address":"`+u.EmailAddress+`","password":"`+webtest.Password+`"}`)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
}

func TestCookieModeNeedsTheFetchHeader(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	browser := env.client(t)
	browser.cookieSignIn(u)

	r := browser.get("/users/information")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a cookie alone is not enough")
	browser.headers["X-Requested-With"] = "fetch"
	r = browser.get("/users/information")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, u.EmailAddress, r.str("email_address"))
	browser.headers["X-Requested-With"] = "XMLHttpRequest"
	assert.Equal(t, http.StatusUnauthorized, browser.get("/users/information").Status)
	browser.headers["X-Requested-With"] = "fetch"

	// Tokens, when present, are what counts: bad tokens are not rescued by the cookie.
	browser.headers["X-Access-Token"] = "forged"
	assert.Equal(t, http.StatusUnauthorized, browser.get("/users/information").Status)
	browser.headers["X-Access-Token"] = ""

	r = browser.post("/logout", nil)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, http.StatusUnauthorized, browser.get("/users/information").Status, "logout ends the session")
}

type apiRoute struct {
	method, path string
	signedIn     bool
}

// routesWithBodies are the calls that read a JSON body.
func routesWithBodies() []apiRoute {
	var out []apiRoute
	for _, op := range documentedOperations() {
		method, path, _ := strings.Cut(op, " ")
		o := operation(method, path)
		rb, ok := o["requestBody"].(map[string]any)
		if !ok {
			continue
		}
		// Only JSON bodies: the file uploads take multipart or raw bytes, and have
		// their own refusal tests (invoice_files_test.go).
		if content, _ := rb["content"].(map[string]any); content["application/json"] == nil {
			continue
		}
		sec, _ := o["security"].([]any)
		out = append(out, apiRoute{method, strings.ReplaceAll(path, "{id}", "1"), len(sec) > 0})
	}
	return out
}

func hasJapanese(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && r <= 0x30ff || r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}
