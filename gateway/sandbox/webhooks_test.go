package sandbox_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
)

// receiver is the app's webhook endpoint: it refuses the first refuse deliveries of
// each event, then accepts, and keeps what it was sent.
type receiver struct {
	mu       sync.Mutex
	refuse   int
	seen     map[string]int
	verified []gateway.Event
	times    []time.Time
	ts       *httptest.Server
}

func newReceiver(t *testing.T, refuse int, verify func(http.Header, []byte) (gateway.Event, error)) *receiver {
	rc := &receiver{refuse: refuse, seen: map[string]int{}}
	rc.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := verify(r.Header, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.seen[ev.ID]++
		rc.verified = append(rc.verified, ev)
		if rc.seen[ev.ID] <= rc.refuse {
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.ts.Close)
	return rc
}

func (rc *receiver) deliveries(id string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.seen[id]
}

// retireOtherEvents marks the events earlier tests left undelivered (they had no
// endpoint) as failed, so that this test's deliverer sees only its own.
func retireOtherEvents(t *testing.T, h *harness) {
	t.Helper()
	_, err := h.db.ExecContext(t.Context(), `UPDATE sandbox_events SET status = 'failed', last_error = 'retired by a test' WHERE status = 'pending'`)
	require.NoError(t, err)
}

type eventRow struct {
	ID            string     `db:"id"`
	Status        string     `db:"status"`
	Attempts      int        `db:"attempts"`
	NextAttemptAt time.Time  `db:"next_attempt_at"`
	DeliveredAt   *time.Time `db:"delivered_at"`
	LastError     string     `db:"last_error"`
}

func (h *harness) event(t *testing.T, paymentID, typ string) eventRow {
	t.Helper()
	var e eventRow
	require.NoError(t, h.db.GetContext(t.Context(), &e, `
		SELECT id, status, attempts, next_attempt_at, delivered_at, last_error FROM sandbox_events
		WHERE payment_id = $1 AND type = $2`, paymentID, typ))
	return e
}

// An endpoint that fails twice and then accepts gets the event three times, signed, with
// the same id, at the backoff table's waits; then never again.
func TestWebhookDeliveryWithRetries(t *testing.T) {
	var h *harness
	rc := newReceiver(t, 2, func(hd http.Header, b []byte) (gateway.Event, error) {
		return h.client.VerifyWebhook(hd, b, h.clock.Now())
	})
	h = newHarness(t, func(c *sandbox.Config) { c.WebhookURL = rc.ts.URL })
	retireOtherEvents(t, h)

	tx := h.authorize(t, visa, 4200)
	ev := h.event(t, tx.PaymentID, "payment.authorized")
	assert.Equal(t, "pending", ev.Status)

	deliver := func() int {
		n, err := h.srv.DeliverDue(t.Context())
		require.NoError(t, err)
		return n
	}
	start := h.clock.Now()
	assert.Equal(t, 0, deliver(), "first attempt refused")
	assert.Equal(t, 1, rc.deliveries(ev.ID))
	e := h.event(t, tx.PaymentID, "payment.authorized")
	assert.Equal(t, "pending", e.Status)
	assert.Equal(t, 1, e.Attempts)
	assert.Equal(t, start.Add(sandbox.Backoff[0]), e.NextAttemptAt.UTC())
	assert.Contains(t, e.LastError, "503")

	assert.Equal(t, 0, deliver())
	assert.Equal(t, 1, rc.deliveries(ev.ID), "nothing before the backoff has passed")

	h.clock.Add(sandbox.Backoff[0])
	assert.Equal(t, 0, deliver(), "second attempt refused")
	assert.Equal(t, 2, rc.deliveries(ev.ID))
	e = h.event(t, tx.PaymentID, "payment.authorized")
	assert.Equal(t, h.clock.Now().Add(sandbox.Backoff[1]), e.NextAttemptAt.UTC(), "the second wait is longer")
	assert.Greater(t, sandbox.Backoff[1], sandbox.Backoff[0])

	h.clock.Add(sandbox.Backoff[1] - time.Second)
	assert.Equal(t, 0, deliver())
	assert.Equal(t, 2, rc.deliveries(ev.ID))

	h.clock.Add(time.Second)
	assert.Equal(t, 1, deliver(), "third attempt accepted")
	assert.Equal(t, 3, rc.deliveries(ev.ID))
	e = h.event(t, tx.PaymentID, "payment.authorized")
	assert.Equal(t, "delivered", e.Status)
	assert.Equal(t, 3, e.Attempts)
	assert.Empty(t, e.LastError)
	require.NotNil(t, e.DeliveredAt)

	h.clock.Add(time.Hour)
	assert.Equal(t, 0, deliver(), "a delivered event is not sent again")
	assert.Equal(t, 3, rc.deliveries(ev.ID))

	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Len(t, rc.verified, 3)
	for _, got := range rc.verified {
		assert.Equal(t, ev.ID, got.ID, "one id across redeliveries")
		assert.Equal(t, gateway.EventAuthorized, got.Type)
		assert.Equal(t, tx.PaymentID, got.Transaction.PaymentID)
		assert.Equal(t, gateway.StatusAuthorized, got.Transaction.Status)
		assert.Equal(t, int64(4200), got.Transaction.Amount)
		assert.Equal(t, "1111", got.Transaction.Card.Last4)
	}
}

// An endpoint that never accepts: the event is tried once and then after each wait of
// the backoff table, and is then marked failed with its last error.
func TestWebhookGivesUp(t *testing.T) {
	var h *harness
	rc := newReceiver(t, 1000, func(hd http.Header, b []byte) (gateway.Event, error) {
		return h.client.VerifyWebhook(hd, b, h.clock.Now())
	})
	h = newHarness(t, func(c *sandbox.Config) { c.WebhookURL = rc.ts.URL })
	retireOtherEvents(t, h)
	tx := h.authorize(t, jcb, 1000)
	id := h.event(t, tx.PaymentID, "payment.authorized").ID
	for i := 0; i <= len(sandbox.Backoff); i++ {
		_, err := h.srv.DeliverDue(t.Context())
		require.NoError(t, err)
		if i < len(sandbox.Backoff) {
			h.clock.Add(sandbox.Backoff[i])
		}
	}
	assert.Equal(t, len(sandbox.Backoff)+1, rc.deliveries(id))
	e := h.event(t, tx.PaymentID, "payment.authorized")
	assert.Equal(t, "failed", e.Status)
	assert.Contains(t, e.LastError, "503")
	h.clock.Add(24 * time.Hour)
	_, err := h.srv.DeliverDue(t.Context())
	require.NoError(t, err)
	assert.Equal(t, len(sandbox.Backoff)+1, rc.deliveries(id))
}

// Each change of a payment writes its event.
func TestWebhookEvents(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, visa, 5000)
	_, err := h.client.Capture(t.Context(), tx.PaymentID, 5000)
	require.NoError(t, err)
	_, err = h.client.Refund(t.Context(), tx.PaymentID, 1000)
	require.NoError(t, err)
	_, err = h.client.Refund(t.Context(), tx.PaymentID, 4000)
	require.NoError(t, err)
	assert.Equal(t, []string{"payment.authorized", "payment.captured", "payment.refunded", "payment.refunded"}, h.events(t, tx.PaymentID))

	v := h.authorize(t, master, 5000)
	_, err = h.client.Void(t.Context(), v.PaymentID)
	require.NoError(t, err)
	_, err = h.client.Void(t.Context(), v.PaymentID)
	require.NoError(t, err, "voiding again answers the void")
	assert.Equal(t, []string{"payment.authorized", "payment.voided"}, h.events(t, v.PaymentID))

	// Capturing again with the same amount (a retry after a timeout) answers the capture.
	c := h.authorize(t, visa, 5000)
	_, err = h.client.Capture(t.Context(), c.PaymentID, 3000)
	require.NoError(t, err)
	again, err := h.client.Capture(t.Context(), c.PaymentID, 3000)
	require.NoError(t, err)
	assert.Equal(t, int64(3000), again.Captured)
	_, err = h.client.Capture(t.Context(), c.PaymentID, 2000)
	require.ErrorIs(t, err, gateway.ErrInvalidState)
	assert.Equal(t, []string{"payment.authorized", "payment.captured"}, h.events(t, c.PaymentID))

	d := h.authorize(t, stolen, 5000)
	assert.Equal(t, []string{"payment.declined"}, h.events(t, d.PaymentID))
}

// runningPSP is a sandbox whose Run delivers to a receiver that accepts everything, with
// a tick of an hour: whatever Run does in a test, an event (or a bug) made it do.
func runningPSP(t *testing.T) (*harness, *receiver) {
	var h *harness
	rc := newReceiver(t, 0, func(hd http.Header, b []byte) (gateway.Event, error) {
		return h.client.VerifyWebhook(hd, b, h.clock.Now())
	})
	h = newHarness(t, func(c *sandbox.Config) { c.WebhookURL = rc.ts.URL; c.PollInterval = time.Hour })
	retireOtherEvents(t, h)
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { defer close(done); h.srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return h, rc
}

// Run delivers a new event at once, without waiting for its tick.
func TestRunDelivers(t *testing.T) {
	h, rc := runningPSP(t)

	time.Sleep(50 * time.Millisecond) // Run's first pass, with nothing due
	tx := h.authorize(t, visa, 1000)
	id := h.event(t, tx.PaymentID, "payment.authorized").ID
	require.Eventually(t, func() bool { return rc.deliveries(id) == 1 }, 5*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return h.event(t, tx.PaymentID, "payment.authorized").Status == "delivered" }, 5*time.Second, 20*time.Millisecond)
}

// Verify refuses what is not signed by the secret within the window.
func TestVerify(t *testing.T) {
	body := []byte(`{"id":"evt_a","type":"payment.captured","created":1,"data":{"payment_id":"p1","status":"captured"}}`)
	now := time.Now().Truncate(time.Second)
	ok := http.Header{sandbox.SignatureHeader: {sandbox.Sign("s3cret", body, now)}}
	ev, err := sandbox.Verify("s3cret", ok, body, now.Add(gateway.WebhookTolerance))
	require.NoError(t, err)
	assert.Equal(t, "evt_a", ev.ID)
	assert.Equal(t, gateway.EventCaptured, ev.Type)
	assert.Equal(t, "p1", ev.Transaction.PaymentID)

	// A header with a second v1 (a rotated secret) passes if one matches.
	rotated := http.Header{sandbox.SignatureHeader: {ok.Get(sandbox.SignatureHeader) + ",v1=00ff"}}
	_, err = sandbox.Verify("s3cret", rotated, body, now)
	require.NoError(t, err)

	for name, hd := range map[string]http.Header{
		"no t":      {sandbox.SignatureHeader: {"v1=" + "ab"}},
		"no v1":     {sandbox.SignatureHeader: {"t=123"}},
		"garbage":   {sandbox.SignatureHeader: {"hello"}},
		"other hdr": {"Stripe-Signature": ok.Values(sandbox.SignatureHeader)},
	} {
		_, err := sandbox.Verify("s3cret", hd, body, now)
		assert.ErrorIs(t, err, gateway.ErrBadSignature, name)
	}
	_, err = sandbox.Verify("", ok, body, now)
	assert.ErrorIs(t, err, gateway.ErrBadSignature, "no secret, nothing verifies")
}

// An idle Run rests until its tick: its own sweep's commit is no event, so it does not
// wake it again (it did: an idle server swept some 4,000 times a second). A written event
// wakes it once more, and then it rests again.
func TestIdleRunRests(t *testing.T) {
	h, rc := runningPSP(t)

	time.Sleep(500 * time.Millisecond)
	idle := h.srv.Passes()
	t.Logf("Run's passes in 500 ms idle: %d", idle)
	assert.Equal(t, int64(1), idle, "the first pass, then rest until the tick")

	tx := h.authorize(t, visa, 1000)
	id := h.event(t, tx.PaymentID, "payment.authorized").ID
	require.Eventually(t, func() bool { return rc.deliveries(id) == 1 }, 5*time.Second, 20*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	after := h.srv.Passes()
	t.Logf("Run's passes after one event and 500 ms: %d", after)
	assert.LessOrEqual(t, after, idle+2, "one pass for the event (and one for a wake-up raced with it), then rest")
}
