package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/handlers/api"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// env is the whole site (webtest) with the API tests' settings: a clock the tests move
// to expire tokens and codes, and one corporation excluded from collections.
type env struct {
	*webtest.Env
	clock *webtest.Clock
}

func newEnv(t *testing.T, mutate ...func(*web.Deps)) *env {
	t.Helper()
	clk := webtest.NewClock(time.Now())
	settings := func(d *web.Deps) {
		d.CollectionExclusions = map[string]bool{"2000012010019": true}
		d.Clock = clk.Now
	}
	return &env{Env: webtest.New(t, append([]func(*web.Deps){settings}, mutate...)...), clock: clk}
}

// client calls the API; tokens, when set, go in the two auth headers.
// A client is also a browser: its cookie jar holds the session of cookieSignIn.
type client struct {
	t       *testing.T
	browser *webtest.Client
	tokens  tokens
	headers map[string]string
}

type tokens struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
}

func (e *env) client(t *testing.T) *client {
	return &client{t: t, browser: e.Client(t), headers: map[string]string{}}
}

type result struct {
	Status int
	Header http.Header
	Raw    string
	Body   map[string]any
}

// str is a string field of the answer ("" when missing).
func (r result) str(key string) string {
	s, _ := r.Body[key].(string)
	return s
}

// num is a number field of the answer.
func (r result) num(key string) float64 {
	n, _ := r.Body[key].(float64)
	return n
}

// fieldErrors maps each field of a validation_error to its message.
func (r result) fieldErrors() map[string]string {
	m := map[string]string{}
	list, _ := r.Body["errors"].([]any)
	for _, e := range list {
		fe, _ := e.(map[string]any)
		f, _ := fe["field"].(string)
		msg, _ := fe["message"].(string)
		m[f] = msg
	}
	return m
}

func (r result) String() string { return fmt.Sprintf("%d %s", r.Status, r.Raw) }

// call sends body (a value to marshal, a string or []byte sent as is, or nil).
func (c *client) call(method, path string, body any) result {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(c.t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.browser.Base+api.Prefix+path, rd)
	require.NoError(c.t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.tokens.AccessToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.tokens.IDToken)
		req.Header.Set("X-Access-Token", c.tokens.AccessToken)
	}
	for k, v := range c.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res := c.browser.Do(req)
	raw := res.Body
	r := result{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 {
		require.NoError(c.t, json.Unmarshal([]byte(raw), &r.Body), "every API answer but 204 is a JSON object: %s %s → %d %q", method, path, res.StatusCode, raw)
	}
	if res.StatusCode == http.StatusNoContent {
		require.Empty(c.t, raw, "204 has no body")
	} else {
		require.True(c.t, strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"), "%s %s: Content-Type %q", method, path, res.Header.Get("Content-Type"))
	}
	checkDocumented(c.t, method, path, r)
	return r
}

func (c *client) get(path string) result { c.t.Helper(); return c.call(http.MethodGet, path, nil) }
func (c *client) post(path string, body any) result {
	c.t.Helper()
	return c.call(http.MethodPost, path, body)
}
func (c *client) put(path string, body any) result {
	c.t.Helper()
	return c.call(http.MethodPut, path, body)
}
func (c *client) delete(path string) result {
	c.t.Helper()
	return c.call(http.MethodDelete, path, nil)
}

// login signs in with the password and keeps the tokens.
func (c *client) login(email string) result {
	c.t.Helper()
	r := c.post("/login", map[string]any{"email_address": email, "password": webtest.Password})
	require.Equal(c.t, http.StatusOK, r.Status, r.String())
	c.setTokens(r)
	return r
}

func (c *client) setTokens(r result) {
	c.t.Helper()
	require.NoError(c.t, json.Unmarshal([]byte(r.Raw), &c.tokens))
	require.NotEmpty(c.t, c.tokens.AccessToken, r.String())
}

// cookieSignIn signs the client's cookie session in as u through the sign-in form.
func (c *client) cookieSignIn(u store.User) {
	c.t.Helper()
	c.browser.SignIn(u.EmailAddress)
}
