package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/api"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

const testPassword = "correct horse battery 7"

var testHash = func() string {
	h, err := auth.HashPassword(testPassword)
	if err != nil {
		panic(err)
	}
	return h
}()

// clock is a settable clock shared by the API and the account service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is the API on a real database and a real SMTP server, behind the same wrappers
// as handlers.App: cross-origin protection, then scs LoadAndSave around echo.
type env struct {
	srv   *httptest.Server
	echo  *echo.Echo
	mail  *mailtest.Server
	clock *clock
	logs  *bytes.Buffer
}

// Session keys of the stand-in for the HTML handlers' loadUser (handlers/session.go).
const (
	sessionUserID  = "user_id"
	sessionBuyerID = "buyer_id"
	sessionEpoch   = "epoch"
)

func newEnv(t *testing.T, mutate ...func(*api.Deps)) *env {
	t.Helper()
	sessions := scs.New()
	sessions.Store = postgresstore.NewWithCleanupInterval(db.Store.DB.DB, 0)
	sessions.Cookie.Name = "cardpay_session"
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	mailSrv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(mailSrv.URL(), "no-reply@test.example")
	require.NoError(t, err)
	clk := &clock{t: time.Now()}
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	acct := &account.Service{
		Store: db.Store, Mail: sender, Codes: auth.NewCodes("test secret key"), Sealer: auth.NewSealer("test secret key"),
		Throttle: auth.DefaultThrottle, ServiceName: "請求書カード払い", Now: clk.Now,
	}
	e := echo.NewWithConfig(echo.Config{Logger: logger, NoGroupAutoRegister404Routes: true})
	loadUser := func(c *echo.Context) *store.User {
		ctx := c.Request().Context()
		uid, bid := sessions.GetInt64(ctx, sessionUserID), sessions.GetInt64(ctx, sessionBuyerID)
		if uid == 0 || bid == 0 {
			return nil
		}
		u, err := db.Store.User(ctx, bid, uid)
		if err != nil || u.SessionEpoch != sessions.GetInt(ctx, sessionEpoch) {
			return nil
		}
		return &u
	}
	startSession := func(c *echo.Context, u store.User) error {
		ctx := c.Request().Context()
		if err := sessions.RenewToken(ctx); err != nil {
			return err
		}
		sessions.Put(ctx, sessionUserID, u.ID)
		sessions.Put(ctx, sessionBuyerID, u.BuyerID)
		sessions.Put(ctx, sessionEpoch, u.SessionEpoch)
		return nil
	}
	d := api.Deps{
		Store: db.Store, Account: acct, Sessions: sessions, Logger: logger, Now: clk.Now,
		SecretKey: "test secret key", CollectionExclusions: map[string]bool{"2000012010019": true},
		SessionUser: loadUser, RenewSession: startSession,
	}
	for _, f := range mutate {
		f(&d)
	}
	api.Register(e, d)
	// Test-only stand-in for POST /signin: signs the cookie session in as a user.
	e.POST("/test/session", func(c *echo.Context) error {
		var body struct {
			BuyerID int64 `json:"buyer_id"`
			UserID  int64 `json:"user_id"`
		}
		if err := json.NewDecoder(c.Request().Body).Decode(&body); err != nil {
			return err
		}
		u, err := db.Store.User(c.Request().Context(), body.BuyerID, body.UserID)
		if err != nil {
			return err
		}
		if err := startSession(c, u); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	})
	// The app answers unknown pages with its HTML 404 page; the API must win under /api/v1.
	e.RouteNotFound("/*", func(c *echo.Context) error {
		return c.HTML(http.StatusNotFound, "<h1>ページが見つかりません</h1>")
	})
	cop := http.NewCrossOriginProtection()
	srv := httptest.NewServer(cop.Handler(sessions.LoadAndSave(e)))
	t.Cleanup(srv.Close)
	return &env{srv: srv, echo: e, mail: mailSrv, clock: clk, logs: logs}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// client calls the API; tokens, when set, go in the two auth headers.
type client struct {
	t       *testing.T
	env     *env
	http    *http.Client
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
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &client{t: t, env: e, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}, headers: map[string]string{}}
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
	req, err := http.NewRequest(method, c.env.srv.URL+api.Prefix+path, rd)
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
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	r := result{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	if len(raw) > 0 {
		require.NoError(c.t, json.Unmarshal(raw, &r.Body), "every API answer but 204 is a JSON object: %s %s → %d %q", method, path, res.StatusCode, raw)
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
	r := c.post("/login", map[string]any{"email_address": email, "password": testPassword})
	require.Equal(c.t, http.StatusOK, r.Status, r.String())
	c.setTokens(r)
	return r
}

func (c *client) setTokens(r result) {
	c.t.Helper()
	require.NoError(c.t, json.Unmarshal([]byte(r.Raw), &c.tokens))
	require.NotEmpty(c.t, c.tokens.AccessToken, r.String())
}

// cookieSignIn signs the client's cookie session in as u (the pages' sign-in).
func (c *client) cookieSignIn(u store.User) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]int64{"buyer_id": u.BuyerID, "user_id": u.ID})
	req, err := http.NewRequest(http.MethodPost, c.env.srv.URL+"/test/session", bytes.NewReader(b))
	require.NoError(c.t, err)
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	res.Body.Close()
	require.Equal(c.t, http.StatusNoContent, res.StatusCode)
}

var buyerSeq atomic.Int64

func newBuyer(t *testing.T, form pay.BusinessForm) store.User {
	t.Helper()
	n := buyerSeq.Add(1)
	email := fmt.Sprintf("%s-%d-%d@api.example", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), n, time.Now().UnixNano()%1e6)
	nb := store.NewBuyer{
		BusinessForm: form, EmailAddress: email, PasswordHash: testHash, LastName: "山田", FirstName: "太郎",
		PhoneNumber: "0312345678", TermsVersion: account.TermsVersion,
		Details: store.BuyerDetails{TransferPersonName: "テストショウジ"},
	}
	if form == pay.Corporation {
		nb.CorporateName, nb.CorporateNumber = "テスト商事株式会社", "7000012050002"
	} else {
		nb.BusinessName = "テスト工房"
	}
	u, err := db.Store.CreateBuyer(context.Background(), nb)
	require.NoError(t, err)
	return u
}

// waitCode reads the newest mailed code to address.
func (e *env) waitCode(t *testing.T, address string) string {
	t.Helper()
	m := e.mail.WaitFor(t, address, 10*time.Second)
	code := mailtest.Code(m.Text)
	require.Len(t, code, 6, "a 6-digit code in %q", m.Text)
	return code
}
