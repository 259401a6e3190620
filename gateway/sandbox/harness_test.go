package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/store/storetest"
)

var db *storetest.DB

// logs collects every line the sandboxes of this package log, for the card-data scan.
var logs storetest.Logs

// TestMain gives the package its own database with the sandbox's tables, and after the
// tests scans every sandbox table and every log line for a card number: the run fails
// if one is found.
func TestMain(m *testing.M) {
	ctx := context.Background()
	d, err := storetest.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storetest:", err)
		os.Exit(1)
	}
	db = d
	if err := sandbox.Migrate(ctx, d.Store.DB); err != nil {
		fmt.Fprintln(os.Stderr, err)
		d.Close()
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		found, err := cardNumbersInTables(ctx, d.Store.DB)
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "card-data scan:", err)
			code = 1
		case len(found) > 0:
			fmt.Fprintln(os.Stderr, "card numbers found in the sandbox's tables:", strings.Join(found, "; "))
			code = 1
		}
		if n := cardNumbers(logs.String()); len(n) > 0 {
			fmt.Fprintln(os.Stderr, "card numbers found in the sandbox's logs")
			code = 1
		}
	}
	d.Close()
	os.Exit(code)
}

// appOrigin is the app the sandboxes of these tests serve.
const (
	appOrigin  = "http://app.test"
	returnURL  = appOrigin + "/myaccount/creditcards/verify/return"
	apiKey     = "sk_test_sandbox"
	hookSecret = "whsec_test_sandbox"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is one sandbox PSP behind an httptest server, with its client.
type harness struct {
	srv    *sandbox.Server
	ts     *httptest.Server
	clock  *clock
	client *sandbox.Client
	db     *sqlx.DB
	// browser follows no redirects, so tests see each 303.
	browser *http.Client
}

type option func(*sandbox.Config)

// clientTimeout is the client's wait in tests: the timeout card keeps it waiting longer.
const clientTimeout = 2 * time.Second

func newHarness(t *testing.T, opts ...option) *harness {
	t.Helper()
	h := &harness{clock: &clock{t: time.Now().UTC().Truncate(time.Second)}, db: db.Store.DB}
	var handler http.Handler
	h.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(h.ts.Close)
	cfg := sandbox.Config{
		DB: db.Store.DB, PublicURL: h.ts.URL, AppOrigins: []string{appOrigin}, SecretKey: apiKey,
		WebhookSecret: hookSecret, Clock: h.clock.Now,
		Logger:     slog.New(slog.NewTextHandler(&logs, nil)),
		SlowAnswer: 30 * time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := sandbox.New(cfg)
	require.NoError(t, err)
	h.srv, handler = srv, srv
	h.client = sandbox.NewClient(h.ts.URL, apiKey, hookSecret, &http.Client{Timeout: clientTimeout})
	h.browser = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// card numbers of the test-card table, by what they do.
const (
	visa           = "4111 1111 1111 1111"
	jcb            = "3530 1113 3330 0000"
	master         = "5555 5555 5555 4444"
	challengeVISA  = "4000 0000 0000 3220"
	challengeJCB   = "3566 0020 2036 0505"
	challengeFails = "4000 0084 0000 1629"
	insufficient   = "4000 0000 0000 9995"
	stolen         = "4000 0000 0000 9979"
	expiredCard    = "4000 0000 0000 0069"
	cvcWrong       = "4000 0000 0000 0127"
	overLimit      = "5105 1051 0510 5100"
	processorError = "4000 0000 0000 0119"
	timeoutCard    = "4000 0000 0000 0259"
	amex           = "3782 822463 10005"
	diners         = "3622 720627 1667"
)

// tokenRequest is what the card-entry island sends.
type tokenRequest struct {
	Number   string `json:"number"`
	ExpMonth any    `json:"exp_month"`
	ExpYear  any    `json:"exp_year"`
	CVC      string `json:"cvc"`
	Name     string `json:"name"`
}

// card is a valid request for number: expiry three years ahead, any cvc, a name.
func (h *harness) card(number string) tokenRequest {
	return tokenRequest{Number: number, ExpMonth: 12, ExpYear: h.clock.Now().Year() + 3, CVC: "123", Name: "TARO YAMADA"}
}

// postToken posts to /v1/tokens from origin (none when empty).
func (h *harness) postToken(t *testing.T, origin string, req any) (*http.Response, map[string]any) {
	t.Helper()
	resp, data := h.postBrowser(t, "/v1/tokens", origin, req)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return resp, out
}

// postBrowser posts body as JSON to path as a browser's script would, with origin as its
// Origin (none when empty); it answers the response and its body.
func (h *harness) postBrowser(t *testing.T, path, origin string, body any) (*http.Response, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.ts.URL+path, bytes.NewReader(b))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	resp, err := h.browser.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, data
}

// token tokenises number as the island would, from the app's origin.
func (h *harness) token(t *testing.T, number string) string {
	t.Helper()
	resp, out := h.postToken(t, appOrigin, h.card(number))
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", out)
	return out["token"].(string)
}

func (h *harness) saved(t *testing.T, number string) gateway.Card {
	t.Helper()
	c, err := h.client.SaveCard(t.Context(), h.token(t, number))
	require.NoError(t, err)
	return c
}

var paymentSeq struct {
	sync.Mutex
	n int
}

// paymentID is unique in the package's database.
func paymentID(prefix string) string {
	paymentSeq.Lock()
	defer paymentSeq.Unlock()
	paymentSeq.n++
	return fmt.Sprintf("%s-%d-%s", prefix, paymentSeq.n, time.Now().Format("150405.000"))
}

func (h *harness) authorize(t *testing.T, number string, amount int64) gateway.Transaction {
	t.Helper()
	c := h.saved(t, number)
	tx, err := h.client.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: paymentID("t"), CardRef: c.Ref, Amount: amount, ReturnURL: returnURL})
	require.NoError(t, err)
	return tx
}

// get fetches a page as the buyer's browser.
func (h *harness) get(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := h.browser.Get(rawURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// post submits a form as the buyer's browser on the sandbox's own page (same origin).
func (h *harness) post(t *testing.T, rawURL string, form url.Values) (*http.Response, string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, rawURL, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", h.ts.URL)
	resp, err := h.browser.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

var passcodeRE = regexp.MustCompile(`テスト用ワンタイムパスワード: <strong>(\d{6})</strong>`)

// passcode reads the one-time passcode the challenge page shows.
func passcodeOn(t *testing.T, page string) string {
	t.Helper()
	m := passcodeRE.FindStringSubmatch(page)
	require.NotNil(t, m, "the challenge page shows the passcode")
	return m[1]
}

// events are the webhook events written for a payment, oldest first.
func (h *harness) events(t *testing.T, paymentID string) []string {
	t.Helper()
	var types []string
	require.NoError(t, h.db.SelectContext(t.Context(), &types, `SELECT type FROM sandbox_events WHERE payment_id = $1 ORDER BY seq`, paymentID))
	return types
}
