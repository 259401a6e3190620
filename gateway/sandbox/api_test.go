package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
)

// An authorisation not captured within AuthorizationTTL lapses: on the first read after
// its time, or by the sweep, each time with a payment.lapsed webhook.
func TestLapse(t *testing.T) {
	ttl := 3 * 24 * time.Hour
	h := newHarness(t, func(c *sandbox.Config) { c.AuthorizationTTL = ttl })

	onRead := h.authorize(t, visa, 7000)
	bySweep := h.authorize(t, jcb, 7000)
	captured := h.authorize(t, master, 7000)
	_, err := h.client.Capture(t.Context(), captured.PaymentID, 7000)
	require.NoError(t, err)
	verify := h.saved(t, visa)
	check, err := h.client.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: paymentID("check"), CardRef: verify.Ref, VerifyOnly: true, ReturnURL: returnURL})
	require.NoError(t, err)

	h.clock.Add(ttl - time.Second)
	got, err := h.client.Lookup(t.Context(), onRead.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, got.Status, "not before its time")
	n, err := h.srv.SweepLapsed(t.Context())
	require.NoError(t, err)
	assert.Zero(t, n)

	h.clock.Add(time.Second)
	got, err = h.client.Lookup(t.Context(), onRead.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusLapsed, got.Status, "lapsed when read")
	assert.Equal(t, []string{"payment.authorized", "payment.lapsed"}, h.events(t, onRead.PaymentID))
	_, err = h.client.Capture(t.Context(), onRead.PaymentID, 7000)
	require.ErrorIs(t, err, gateway.ErrInvalidState, "a lapsed authorisation cannot be captured")
	_, err = h.client.Void(t.Context(), onRead.PaymentID)
	require.ErrorIs(t, err, gateway.ErrInvalidState)

	n, err = h.srv.SweepLapsed(t.Context())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 1)
	assert.Equal(t, []string{"payment.authorized", "payment.lapsed"}, h.events(t, bySweep.PaymentID), "lapsed by the sweep")
	got, err = h.client.Lookup(t.Context(), bySweep.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusLapsed, got.Status)
	assert.Equal(t, []string{"payment.authorized", "payment.lapsed"}, h.events(t, onRead.PaymentID), "one lapse event each")

	got, err = h.client.Lookup(t.Context(), captured.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusCaptured, got.Status, "a captured payment does not lapse")
	got, err = h.client.Lookup(t.Context(), check.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, got.Status, "a card check reserves nothing, so nothing lapses")
}

// A passed challenge's authorisation lapses from the time it passed.
func TestLapseAfterChallenge(t *testing.T) {
	h := newHarness(t, func(c *sandbox.Config) { c.AuthorizationTTL = time.Hour })
	tx := h.authorize(t, challengeVISA, 1000)
	h.clock.Add(10 * time.Minute)
	sandboxEnv(h).PassChallenge(t, tx)
	h.clock.Add(55 * time.Minute)
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, got.Status)
	h.clock.Add(5 * time.Minute)
	got, err = h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusLapsed, got.Status)
}

// apiCall makes a raw server-to-server call.
func (h *harness) apiCall(t *testing.T, method, path, key string, headers map[string]string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	r, err := http.NewRequestWithContext(t.Context(), method, h.ts.URL+path, bytes.NewReader(b))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestAPIRefuses(t *testing.T) {
	h := newHarness(t)
	card := h.saved(t, visa)
	ok := map[string]any{"payment_id": paymentID("api"), "card": card.Ref, "amount": 1000, "return_url": returnURL}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		m[k] = v
		return m
	}

	for _, key := range []string{"", "sk_wrong"} {
		status, out := h.apiCall(t, http.MethodPost, "/v1/authorizations", key, nil, ok)
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.Equal(t, "unauthorized", out["error"].(map[string]any)["code"])
	}
	status, _ := h.apiCall(t, http.MethodGet, "/v1/authorizations/x", "sk_wrong", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, status)

	for name, body := range map[string]map[string]any{
		"no payment id":            with("payment_id", ""),
		"zero amount":              with("amount", 0),
		"negative amount":          with("amount", -5),
		"verify only with amount":  with("verify_only", true),
		"return url of other site": with("return_url", "https://evil.test/back"),
		"no return url":            with("return_url", ""),
	} {
		status, out := h.apiCall(t, http.MethodPost, "/v1/authorizations", apiKey, nil, body)
		assert.Equal(t, http.StatusBadRequest, status, name)
		assert.Equal(t, "invalid_request", out["error"].(map[string]any)["code"], name)
	}
	status, _ = h.apiCall(t, http.MethodPost, "/v1/authorizations", apiKey, map[string]string{"Idempotency-Key": "another"}, ok)
	assert.Equal(t, http.StatusBadRequest, status, "the idempotency key is the payment id")

	status, _ = h.apiCall(t, http.MethodPost, "/v1/authorizations", apiKey, map[string]string{"Idempotency-Key": ok["payment_id"].(string)}, ok)
	assert.Equal(t, http.StatusCreated, status)
	status, _ = h.apiCall(t, http.MethodPost, "/v1/authorizations", apiKey, nil, ok)
	assert.Equal(t, http.StatusOK, status, "the same payment id answers the same authorisation")

	_, err := h.client.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: paymentID("nocard"), CardRef: "card_unknown", Amount: 1000, ReturnURL: returnURL})
	require.ErrorIs(t, err, gateway.ErrNotFound)

	_, err = h.client.Capture(t.Context(), ok["payment_id"].(string), 0)
	require.Error(t, err)
	require.NotErrorIs(t, err, gateway.ErrUnavailable)
}

// The client maps each failure to the gateway's errors.
func TestClientErrors(t *testing.T) {
	h := newHarness(t)

	wrongKey := sandbox.NewClient(h.ts.URL, "sk_wrong", hookSecret, nil)
	_, err := wrongKey.Lookup(t.Context(), "p")
	require.Error(t, err)
	assert.NotErrorIs(t, err, gateway.ErrUnavailable)
	assert.NotErrorIs(t, err, gateway.ErrNotFound)
	assert.Contains(t, err.Error(), "401")

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusBadGateway)
	}))
	defer broken.Close()
	_, err = sandbox.NewClient(broken.URL, apiKey, hookSecret, nil).Capture(t.Context(), "p", 1)
	require.ErrorIs(t, err, gateway.ErrUnavailable, "a 5xx")

	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	_, err = sandbox.NewClient(downURL, apiKey, hookSecret, nil).SaveCard(t.Context(), "tok_x")
	require.ErrorIs(t, err, gateway.ErrUnavailable, "no connection")

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	_, err = sandbox.NewClient(slow.URL, apiKey, hookSecret, &http.Client{Timeout: 100 * time.Millisecond}).Lookup(t.Context(), "p")
	require.ErrorIs(t, err, gateway.ErrUnavailable, "the client's timeout")
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = sandbox.NewClient(slow.URL, apiKey, hookSecret, nil).Lookup(ctx, "p")
	require.ErrorIs(t, err, gateway.ErrUnavailable, "the caller's deadline")

	assert.Equal(t, "sandbox", h.client.Name())
	// Payment ids are path-escaped.
	_, err = h.client.Lookup(t.Context(), "a/b?c")
	require.ErrorIs(t, err, gateway.ErrNotFound)
}

// The sandbox migrates under its own version table, beside the app's, and again is a
// no-op.
func TestMigrate(t *testing.T) {
	require.NoError(t, sandbox.Migrate(t.Context(), db.Store.DB))
	var versions []int64
	require.NoError(t, db.Store.DB.SelectContext(t.Context(), &versions, `SELECT version_id FROM `+sandbox.VersionTable+` WHERE version_id > 0 ORDER BY version_id`))
	assert.Equal(t, []int64{1, 2}, versions)
	var app int
	require.NoError(t, db.Store.DB.GetContext(t.Context(), &app, `SELECT count(*) FROM goose_db_version WHERE version_id > 0`))
	assert.GreaterOrEqual(t, app, 5, "the app's own version table is untouched")
}

func TestNewChecksConfig(t *testing.T) {
	base := sandbox.Config{DB: db.Store.DB, PublicURL: "http://localhost:8081", SecretKey: "k", WebhookSecret: "w", AppOrigins: []string{appOrigin}}
	_, err := sandbox.New(base)
	require.NoError(t, err)
	for name, edit := range map[string]func(c *sandbox.Config){
		"no db":          func(c *sandbox.Config) { c.DB = nil },
		"no key":         func(c *sandbox.Config) { c.SecretKey = "" },
		"no hook secret": func(c *sandbox.Config) { c.WebhookSecret = "" },
		"relative url":   func(c *sandbox.Config) { c.PublicURL = "/psp" },
		"bad origin":     func(c *sandbox.Config) { c.AppOrigins = []string{"app.test"} },
	} {
		c := base
		edit(&c)
		_, err := sandbox.New(c)
		assert.Error(t, err, name)
	}
}
