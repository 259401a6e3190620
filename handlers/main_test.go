package handlers

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/v2"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

const testPassword = "correct horse battery"

var testHash = func() string {
	h, err := auth.HashPassword(testPassword)
	if err != nil {
		panic(err)
	}
	return h
}()

// testApp is the real application on a real database, behind a real HTTP server.
type testApp struct {
	*App
	srv  *httptest.Server
	logs *bytes.Buffer
	mail *mailtest.Server
}

func newTestApp(t *testing.T, mutate ...func(*Options)) *testApp {
	t.Helper()
	sessions := scs.New()
	sessions.Store = postgresstore.NewWithCleanupInterval(db.Store.DB.DB, 0)
	sessions.Cookie.Name = "cardpay_session"
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	logs := &bytes.Buffer{}
	mailSrv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(mailSrv.URL(), "no-reply@test.example")
	require.NoError(t, err)
	o := Options{
		Store: db.Store, Sessions: sessions, DevMailbox: db.Store,
		Account: &account.Service{
			Store: db.Store, Mail: sender, Codes: auth.NewCodes("test secret key"), Sealer: auth.NewSealer("test secret key"),
			Throttle: auth.DefaultThrottle, ServiceName: "請求書カード払い",
		}, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		ServiceName: "請求書カード払い", BaseURL: "http://localhost", Links: DefaultLinks,
		CollectionExclusions: map[string]bool{},
	}
	for _, f := range mutate {
		f(&o)
	}
	if o.Now != nil {
		o.Account.Now = o.Now
	}
	a := newApp(o)
	srv := httptest.NewServer(a.handler())
	t.Cleanup(srv.Close)
	return &testApp{App: a, srv: srv, logs: logs, mail: mailSrv}
}

// client is a browser stand-in: a cookie jar and no automatic redirects, so each
// test sees every 303.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func (ta *testApp) client(t *testing.T) *client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &client{t: t, base: ta.srv.URL, http: &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Timeout: 30 * time.Second,
	}}
}

type response struct {
	*http.Response
	body string
}

func (c *client) do(req *http.Request) response {
	c.t.Helper()
	res, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return response{res, string(b)}
}

func (c *client) get(path string) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	require.NoError(c.t, err)
	return c.do(req)
}

// post sends a same-origin form, as a browser would from our own page.
func (c *client) post(path string, form url.Values) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.do(req)
}

func (c *client) cookie(name string) string {
	u, _ := url.Parse(c.base)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

func (c *client) signIn(email string) {
	c.t.Helper()
	res := c.post("/signin", url.Values{"email_address": {email}, "password": {testPassword}})
	require.Equal(c.t, http.StatusSeeOther, res.StatusCode, res.body)
}

var buyerSeq int

func newBuyer(t *testing.T, form pay.BusinessForm, corporateNumber string) store.User {
	t.Helper()
	buyerSeq++
	email := strings.ReplaceAll(t.Name(), "/", "_") + "-" + string(rune('a'+buyerSeq%26)) + time.Now().Format("150405.000000") + "@test.example"
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: form, CorporateName: "テスト商事株式会社", CorporateNumber: corporateNumber,
		BusinessName: "テスト工房", EmailAddress: email, PasswordHash: testHash, LastName: "山田", FirstName: "太郎",
		TermsVersion: account.TermsVersion,
	})
	require.NoError(t, err)
	return u
}
