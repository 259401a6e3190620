package oauth

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"cardpay/store"
)

// A partner application hears of the payments its drafts became by webhooks: a POST of
// a JSON event to its registered https URL, signed so that it can tell the event is
// ours and fresh (the scheme is Stripe's, which partners know):
//
//	Cardpay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the key>
//
// The key is the application's webhook signing key (WebhookKey), shown to the
// administrator who registered it. An answer other than 2xx is retried with backoff by
// the job runner (WebhookJobKind, 8 attempts); each event has an id, so a
// partner that saw it already can ignore the repeat.

// WebhookJobKind is the job that posts one webhook (Webhooks.Deliver).
const WebhookJobKind = "partner_webhook"

// webhookAttempts: an endpoint down for longer than the backoff covers (about 40
// minutes) misses the event; the API still answers the payment's state.
const webhookAttempts = 8

// WebhookJob is the job of one webhook, for the store's calls that queue it in the
// change's transaction; an event is posted once (its id is the job's unique key).
func WebhookJob(h store.PartnerWebhook) store.NewJob {
	return store.NewJob{Kind: WebhookJobKind, UniqueKey: "partner-webhook-" + h.EventID, MaxAttempts: webhookAttempts, Payload: h}
}

// SignatureHeader carries the signature.
const SignatureHeader = "Cardpay-Signature"

// webhookKeyInfo derives each application's signing key from SECRET_KEY.
const webhookKeyInfo = "cardpay partner webhook v1 "

// WebhookKey is clientID's signing key (hex), derived from the server's secret: every
// instance signs alike, and nothing secret is stored per client.
func WebhookKey(secretKey, clientID string) string {
	k, err := hkdf.Key(sha256.New, []byte(secretKey), nil, webhookKeyInfo+clientID, 32)
	if err != nil {
		panic(err) // only for a length sha256 cannot give
	}
	return hex.EncodeToString(k)
}

// Sign is the signature header's value of body at t with key (hex).
func Sign(key string, t time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(key))
	ts := strconv.FormatInt(t.Unix(), 10)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify is what a partner does: the signature is key's over body, made within
// tolerance of now.
func Verify(key, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts, sig string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sig == "" {
		return false
	}
	t := time.Unix(sec, 0)
	if now.Sub(t) > tolerance || t.Sub(now) > tolerance {
		return false
	}
	want := Sign(key, t, body)
	return hmac.Equal([]byte(want), []byte("t="+ts+",v1="+sig))
}

// WebhookEvent is the JSON a partner receives.
type WebhookEvent struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	PaymentID int64     `json:"payment_id"`
	Status    int       `json:"examination_status"`
	At        time.Time `json:"created_at"`
}

// Webhooks posts the partners' webhooks (the job of WebhookJobKind).
type Webhooks struct {
	SecretKey string
	HTTP      *http.Client
	Now       func() time.Time
}

// Deliver posts one webhook; an error (no answer, not 2xx) is retried by the runner.
func (w *Webhooks) Deliver(ctx context.Context, payload json.RawMessage) error {
	var hook store.PartnerWebhook
	if err := json.Unmarshal(payload, &hook); err != nil {
		return fmt.Errorf("oauth: webhook job: %w", err)
	}
	if !strings.HasPrefix(hook.URL, "https://") && !strings.HasPrefix(hook.URL, "http://127.0.0.1:") {
		return nil // only the registered https URL (or a test's loopback) is ever posted to
	}
	body, err := json.Marshal(WebhookEvent{ID: hook.EventID, Type: hook.Type, PaymentID: hook.PaymentID, Status: hook.Status, At: hook.At})
	if err != nil {
		return err
	}
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cardpay-webhooks/1")
	req.Header.Set(SignatureHeader, Sign(WebhookKey(w.SecretKey, hook.ClientID), now, body))
	client := w.HTTP
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: webhook %s to %s: %w", hook.EventID, hook.ClientID, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("oauth: webhook %s to %s: answered %d", hook.EventID, hook.ClientID, res.StatusCode)
	}
	return nil
}
