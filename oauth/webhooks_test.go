package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

const secretKey = "test-secret-key-for-the-webhooks-0123456789"

func TestSignAndVerify(t *testing.T) {
	key := oauth.WebhookKey(secretKey, "app-one")
	assert.NotEqual(t, key, oauth.WebhookKey(secretKey, "app-two"), "each application its own key")
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"event-1"}`)
	sig := oauth.Sign(key, now, body)
	for _, tc := range []struct {
		name   string
		key    string
		header string
		body   []byte
		at     time.Time
		want   bool
	}{
		{"as signed", key, sig, body, now, true},
		{"a minute late", key, sig, body, now.Add(time.Minute), true},
		{"ten minutes late: a replay", key, sig, body, now.Add(10 * time.Minute), false},
		{"another body", key, sig, []byte(`{"id":"event-2"}`), now, false},
		{"another key", oauth.WebhookKey(secretKey, "app-two"), sig, body, now, false},
		{"no signature", key, "t=1800000000", body, now, false},
		{"garbage", key, "v1=zz,t=x", body, now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, oauth.Verify(tc.key, tc.header, tc.body, tc.at, 5*time.Minute))
		})
	}
}

// A payment that a partner's draft became: finishing the draft attributes it and queues
// payment.submitted; a later event queues its own; each job posts the event signed with
// the application's key, and a failing endpoint makes the job fail (the runner retries).
func TestPartnerWebhooks(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []oauth.WebhookEvent
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !oauth.Verify(oauth.WebhookKey(secretKey, "app-hooks-test"), r.Header.Get(oauth.SignatureHeader), body, time.Now(), time.Minute) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if fail {
			fail = false
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		var e oauth.WebhookEvent
		require.NoError(t, json.Unmarshal(body, &e))
		got = append(got, e)
	}))
	defer srv.Close()

	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "フック商事株式会社",
		EmailAddress: "hooks@oauth.example", PasswordHash: "x", LastName: "山田", FirstName: "太郎"})
	require.NoError(t, err)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社取引",
		NameKana: "トリヒキ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	require.NoError(t, db.Store.CreateOAuthClient(ctx, store.OAuthClient{ID: "app-hooks-test", Name: "フック会計",
		RedirectURIs: []string{"https://app.example.jp/cb"}, Scopes: []string{"payments:draft"}, WebhookURL: srv.URL}))
	draft, err := db.Store.SaveDraft(ctx, u.BuyerID, store.PaymentDraft, 0, []byte(`{"invoice":{"amount":"5000"}}`), store.DraftSummary{}, time.Now())
	require.NoError(t, err)
	require.NoError(t, db.Store.MarkDraftPartner(ctx, u.BuyerID, store.PaymentDraft, draft, "app-hooks-test"))
	payment, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.InProgress, Amount: 5000})
	require.NoError(t, err)
	plain, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.InProgress, Amount: 6000})
	require.NoError(t, err)

	require.NoError(t, db.Store.FinishDraft(ctx, u.BuyerID, store.PaymentDraft, draft, payment, int(pay.InProgress), time.Now(), oauth.WebhookJob))
	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, db.Store.EnqueuePartnerWebhook(ctx, tx, u.BuyerID, payment, "event-screened", "payment.screened", 3, time.Now(), oauth.WebhookJob))
	require.NoError(t, db.Store.EnqueuePartnerWebhook(ctx, tx, u.BuyerID, plain, "event-plain", "payment.screened", 3, time.Now(), oauth.WebhookJob))
	require.NoError(t, tx.Commit())

	var payloads []json.RawMessage
	require.NoError(t, db.Store.DB.Select(&payloads, `SELECT payload FROM jobs WHERE kind = $1 ORDER BY id`, oauth.WebhookJobKind))
	require.Len(t, payloads, 2, "submitted and screened; a payment made without a partner tells none")
	hooks := &oauth.Webhooks{SecretKey: secretKey}
	assert.Error(t, hooks.Deliver(ctx, payloads[0]), "503: the job fails and is retried")
	for _, p := range payloads {
		require.NoError(t, hooks.Deliver(ctx, p))
	}
	require.Len(t, got, 2)
	assert.Equal(t, "payment.submitted", got[0].Type)
	assert.Equal(t, payment, got[0].PaymentID)
	assert.Equal(t, "payment.screened", got[1].Type)
	assert.Equal(t, "event-screened", got[1].ID)
	var left int
	require.NoError(t, db.Store.DB.Get(&left, `SELECT count(*) FROM drafts WHERE id = $1`, draft))
	assert.Zero(t, left, "the draft is gone")
	fmt.Printf("webhooks: %d events delivered, signed, one retried\n", len(got))
}
