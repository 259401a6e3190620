package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/handlers/api"
	"cardpay/handlers/web"
)

// The sandbox PSP's keys in tests.
const (
	PSPSecretKey     = "sk_test_webtest"
	PSPWebhookSecret = "whsec_test_webtest"
	// PSPClientTimeout is how long the app waits for the PSP; the timeout test card
	// answers later than that (pspSlowAnswer), so the app must look the payment up. It is
	// generous: under the race detector on a loaded 2-core machine an ordinary answer took
	// over 3 s, and a test then read a timeout (G097) where it expected an authorisation.
	PSPClientTimeout = 10 * time.Second
	pspSlowAnswer    = 12 * time.Second
)

// PSP is the sandbox PSP of one Env, on its own origin (its own httptest server), as the
// browser meets it in production. Its webhooks are not delivered by a loop of their own:
// a test that wants them calls DeliverWebhooks, so that no event arrives in the middle of
// another test's assertions.
type PSP struct {
	Server *sandbox.Server
	Client *sandbox.Client
	// URL is the PSP's origin, http://127.0.0.1:port.
	URL string
	// appURL is the app's own origin (the Env's server), which the PSP's CORS and return
	// URLs allow besides BaseURL.
	appURL string
}

var migrateSandbox sync.Once

// startPSP runs the sandbox PSP for d: the browser's origins are BaseURL and appURL
// (the test server), the webhooks go to appURL. The services reach it by PSP.Client.
func startPSP(t *testing.T, d *web.Deps, appURL string, logger *slog.Logger) *PSP {
	t.Helper()
	var migrateErr error
	migrateSandbox.Do(func() { migrateErr = sandbox.Migrate(context.Background(), db.Store.DB) })
	require.NoError(t, migrateErr)
	var handler http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	clock := d.Clock
	if clock == nil {
		clock = time.Now
	}
	origins := []string{appURL}
	if u, err := url.Parse(d.BaseURL); err == nil && u.Host != "" {
		origins = append(origins, u.Scheme+"://"+u.Host)
	}
	srv, err := sandbox.New(sandbox.Config{
		DB: db.Store.DB, PublicURL: ts.URL, AppOrigins: origins, SecretKey: PSPSecretKey,
		WebhookURL: appURL + api.WebhookPath, WebhookSecret: PSPWebhookSecret,
		Clock: clock, Logger: logger.With("component", "sandbox-psp"), SlowAnswer: pspSlowAnswer,
	})
	require.NoError(t, err)
	handler = srv
	client := sandbox.NewClient(ts.URL, PSPSecretKey, PSPWebhookSecret, &http.Client{Timeout: PSPClientTimeout})
	d.PSPOrigin = ts.URL
	return &PSP{Server: srv, Client: client, URL: ts.URL, appURL: appURL}
}

// DeliverWebhooks posts the PSP's due webhooks to the app now and answers how many the
// app accepted.
func (p *PSP) DeliverWebhooks(t *testing.T) int {
	t.Helper()
	n, err := p.Server.DeliverDue(context.Background())
	require.NoError(t, err)
	return n
}

// CardToken tokenises a test card as the card-entry island does: from the app's page
// (Origin: the app), straight to the PSP. The expiry is three years ahead unless exp
// ("MM/YY") is given.
func (p *PSP) CardToken(t *testing.T, number string, exp ...string) string {
	t.Helper()
	month, year := "12", strconv.Itoa(time.Now().Year()+3)
	if len(exp) > 0 {
		month, year, _ = strings.Cut(exp[0], "/")
	}
	body, err := json.Marshal(map[string]string{"number": number, "exp_month": month, "exp_year": year, "cvc": "123", "name": "TARO YAMADA"})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, p.URL+"/v1/tokens", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.appURL)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusCreated, res.StatusCode, "tokenising %s: %s", number, raw)
	require.Equal(t, p.appURL, res.Header.Get("Access-Control-Allow-Origin"), "the PSP allows the app's origin")
	var tok struct {
		Token string `json:"token"`
	}
	require.NoError(t, json.Unmarshal(raw, &tok))
	require.NotEmpty(t, tok.Token)
	return tok.Token
}

// cardEntryProps finds the card-entry island's props on a page.
var cardEntryProps = regexp.MustCompile(`data-island="card-entry"[^>]*data-props="([^"]*)"|data-props="([^"]*)"[^>]*data-island="card-entry"`)

// CardEntry is the card-entry island's props on an add-card page.
type CardEntry struct {
	PSP       string `json:"psp"`
	Action    string `json:"action"`
	Setup     string `json:"setup"`
	PSPOrigin string `json:"pspOrigin"`
	FieldsURL string `json:"fieldsUrl"`
}

// CardEntryOf reads the card-entry island's props from page (the add-card page's body).
func CardEntryOf(t *testing.T, page string) CardEntry {
	t.Helper()
	m := cardEntryProps.FindStringSubmatch(page)
	require.NotNil(t, m, "the page has the card-entry island")
	raw := m[1] + m[2]
	var p CardEntry
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(raw)), &p))
	require.NotEmpty(t, p.Setup, "the page opened a card setup")
	return p
}

// EnterCard types a test card into the PSP's card fields of a setup (fieldsURL) as the
// fields' own script does, on the PSP's origin, and answers the token the frame would
// hand to our page. The expiry is three years ahead unless exp ("MM/YY") is given.
func (p *PSP) EnterCard(t *testing.T, fieldsURL, number string, exp ...string) string {
	t.Helper()
	require.True(t, strings.HasPrefix(fieldsURL, p.URL+"/fields/"), "the fields are on the PSP's origin: %s", fieldsURL)
	month, year := "12", strconv.Itoa(time.Now().Year()+3)
	if len(exp) > 0 {
		month, year, _ = strings.Cut(exp[0], "/")
	}
	body, err := json.Marshal(map[string]string{"number": number, "exp_month": month, "exp_year": year, "cvc": "123", "name": "TARO YAMADA"})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, fieldsURL, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.URL)
	res, err := pspBrowser.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusCreated, res.StatusCode, "the fields took %s: %s", number, raw)
	var tok struct {
		Token string `json:"token"`
	}
	require.NoError(t, json.Unmarshal(raw, &tok))
	require.NotEmpty(t, tok.Token)
	return tok.Token
}

// AddCard adds a test card as a buyer with JavaScript does: opens the add page (which
// opens a card setup), enters the card into the PSP's fields, and posts the setup as
// the island does. It answers our server's answer to that post.
func (p *PSP) AddCard(t *testing.T, c *Client, number string, exp ...string) Response {
	t.Helper()
	page := c.Get("/myaccount/creditcards/new")
	require.Equal(t, http.StatusOK, page.StatusCode, "the add page")
	entry := CardEntryOf(t, page.Body)
	p.EnterCard(t, entry.FieldsURL, number, exp...)
	return c.Post(entry.Action, url.Values{"setup": {entry.Setup}})
}

// browser is a client of the PSP's own pages that follows no redirects.
var pspBrowser = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

var passcodeRe = regexp.MustCompile(`テスト用ワンタイムパスワード: <strong>(\d{6})</strong>`)

// Challenge answers the PSP's 3-D Secure challenge at actionURL as a buyer would: with
// the passcode the page shows (pass), or with 認証を中止. It answers where the PSP sends
// the buyer back to, as a path on the app ("/myaccount/creditcards/verify/return?…").
func (p *PSP) Challenge(t *testing.T, actionURL string, pass bool) string {
	t.Helper()
	require.True(t, strings.HasPrefix(actionURL, p.URL+"/"), "the challenge is on the PSP's origin: %s", actionURL)
	res, err := pspBrowser.Get(actionURL)
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, string(page))
	form := url.Values{"action": {"cancel"}}
	if pass {
		m := passcodeRe.FindSubmatch(page)
		require.NotNil(t, m, "the challenge page shows the passcode")
		form = url.Values{"action": {"verify"}, "passcode": {string(m[1])}}
	}
	return p.submit(t, actionURL, form)
}

// HostedCard fills the PSP's hosted card page at pageURL with a test card and answers
// where the PSP sends the buyer back to, as a path on the app.
func (p *PSP) HostedCard(t *testing.T, pageURL, number string) string {
	t.Helper()
	require.True(t, strings.HasPrefix(pageURL, p.URL+"/"), "the hosted page is on the PSP's origin: %s", pageURL)
	res, err := pspBrowser.Get(pageURL)
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, string(page))
	exp := "12/" + strconv.Itoa((time.Now().Year()+3)%100)
	return p.submit(t, pageURL, url.Values{"number": {number}, "exp": {exp}, "cvc": {"123"}, "name": {"TARO YAMADA"}})
}

// submit posts a form of the PSP's own page (same origin) and answers the 303's target
// as a path on the app.
func (p *PSP) submit(t *testing.T, pageURL string, form url.Values) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, pageURL, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", p.URL)
	res, err := pspBrowser.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "the PSP sends the buyer back: %s", body)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	return back.RequestURI()
}

// StripeSetups stands for the Stripe adapter's card setups (gateway/stripe tests them
// against stripe-mock), for tests of what the pages do with PSP=stripe: a SetupIntent
// with its client secret for the fields, a Checkout Session at CheckoutURL for the hosted
// page. Nothing else of the gateway is called.
type StripeSetups struct {
	gateway.Gateway
	CheckoutURL string
}

// Name implements gateway.Gateway.
func (StripeSetups) Name() string { return "stripe" }

// StartCardSetup implements gateway.Gateway.
func (s StripeSetups) StartCardSetup(_ context.Context, r gateway.CardSetupRequest) (gateway.CardSetup, error) {
	if r.Hosted {
		return gateway.CardSetup{ID: "cs_test_1", RedirectURL: s.CheckoutURL}, nil
	}
	return gateway.CardSetup{ID: "seti_test_1", ClientSecret: "seti_test_1_secret_abc"}, nil
}
