package invoices_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// paidRequest is a request's customer-side payment, paid with the customer's card and
// sent back by screening.
func paidRequest(t *testing.T, p *psp, key string, bearer pay.FeeBearer) (*invoices.Services, party, store.Payment) {
	t.Helper()
	ctx := context.Background()
	s, m := newCollections(p)
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")
	_, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("send-"+key, func(sub *invoices.RequestSubmission) {
		sub.FeeBearer = bearer
	}))
	require.NoError(t, err)
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	_, err = s.Requests.PayRequest(ctx, customer.buyer.ID, id, "pay-"+key, customer.card)
	require.NoError(t, err)
	pm, err := s.Screening.SendBack(ctx, newOperator(t, pay.RoleScreening), id, pay.SendBackOther, "請求書番号が違います")
	require.NoError(t, err)
	require.True(t, pm.ActionRequired)
	return s, customer, pm
}

// A request's customer-side payment that screening sent back is 要対応: listed and counted.
func TestASentBackRequestPaymentIsListedAndCounted(t *testing.T) {
	ctx := context.Background()
	_, customer, pm := paidRequest(t, newPSP(), "listed", pay.FeeByCustomer)
	require.Equal(t, pay.InvoiceRequestBuyer, pm.InvoiceType)

	st, err := db.Store.Stats(ctx, customer.buyer.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.PaymentCounts{ActionRequired: 1}, st.Payments, "counted as 要対応, in no other list")
	assert.Equal(t, 1, st.Payments.Of(pay.BucketReviewAll), "the 審査中 tab counts it")
	list, total, err := db.Store.Payments(ctx, store.PaymentFilter{BuyerID: customer.buyer.ID, Bucket: pay.BucketActionRequired, Size: 20})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	require.Len(t, list, 1)
	assert.Equal(t, pm.ID, list[0].ID)
}

// Correcting a sent-back request keeps the amount the requester asked for, and its fee.
func TestResubmitOfARequestKeepsItsAmountAndFee(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		bearer    pay.FeeBearer
		fee       int64
	}{
		{"the customer bears the fee", "keep-customer", pay.FeeByCustomer, 6000},
		{"the requester bears the fee", "keep-requester", pay.FeeByRequester, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := newPSP()
			s, customer, pm := paidRequest(t, p, tc.key, tc.bearer)
			require.Equal(t, int64(200000), pm.Amount)
			require.Equal(t, tc.fee, pm.Fee)
			require.Equal(t, 200000+tc.fee, pm.AuthorizedAmount)
			auths := p.count()
			require.NotNil(t, pm.DueDate)
			require.NotNil(t, pm.TransferDate)
			fixed := pay.InvoiceInput{Amount: "150000", DueDate: pay.ISODate(*pm.DueDate), TransferDate: pay.ISODate(*pm.TransferDate),
				InvoiceNumber: "REQ-2"}

			// Another amount: refused on the amount, nothing changed, no new authorisation.
			_, err := s.Payments.Resubmit(ctx, customer.buyer.ID, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
			assert.Equal(t, invoices.MsgRequestAmountFixed, refusal(t, err, "amount"))
			after, err := db.Store.Payment(ctx, customer.buyer.ID, pm.ID)
			require.NoError(t, err)
			assert.True(t, after.ActionRequired)
			assert.Equal(t, pm.Amount, after.Amount)
			assert.Equal(t, "REQ-1", after.InvoiceNumber)
			assert.Equal(t, auths, p.count())

			// The same amount: corrected, with the fee it had (no new authorisation).
			fixed.Amount = "200000"
			out, err := s.Payments.Resubmit(ctx, customer.buyer.ID, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
			require.NoError(t, err)
			assert.Empty(t, out.ActionURL)
			assert.False(t, out.Payment.ActionRequired)
			assert.Equal(t, pay.InProgress, out.Payment.ExaminationStatus)
			assert.Equal(t, "REQ-2", out.Payment.InvoiceNumber)
			assert.Equal(t, int64(200000), out.Payment.Amount)
			assert.Equal(t, tc.fee, out.Payment.Fee, "the customer's fee is what it was")
			assert.Equal(t, 200000+tc.fee, out.Payment.AuthorizedAmount)
			assert.Equal(t, pm.PaymentRef, out.Payment.PaymentRef, "the card's authorisation is kept")
			assert.Equal(t, auths, p.count())
		})
	}
}

// completedAndSentBack is a payment whose screening completed (its card captured by the
// capture job when capture), then sent back by screening.
func completedAndSentBack(t *testing.T, s *invoices.Services, f fixture, key string, capture bool) store.Payment {
	t.Helper()
	pm := completed(t, s, f, key, capture)
	first := newOperator(t, pay.RoleScreening)
	pm, err := s.Screening.SendBack(context.Background(), first, pm.ID, pay.SendBackOther, "請求書番号が違います")
	require.NoError(t, err)
	require.True(t, pm.ActionRequired)
	require.Equal(t, pay.InProgressExaminationCompleted, pm.ExaminationStatus)
	return pm
}

// A payment sent back after its card was captured keeps its total: a correction of the
// amount would authorise anew, never capture it and refund the money taken.
func TestResubmitOfACapturedPaymentKeepsItsTotal(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completedAndSentBack(t, s, f, "captured-1", true)
	require.Equal(t, pay.CardCaptured, pm.CardStatus)
	auths := p.count()

	fixed := f.submission("").Invoice
	fixed.Amount, fixed.InvoiceNumber = "120000", "INV-2"
	_, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
	assert.Equal(t, invoices.MsgCapturedAmountFixed, refusal(t, err, "amount"))
	assert.Equal(t, auths, p.count(), "no new authorisation")
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.True(t, after.ActionRequired)
	assert.Equal(t, pm.PaymentRef, after.PaymentRef)
	assert.Equal(t, int64(100000), after.Amount)
	assert.Equal(t, "INV-1", after.InvoiceNumber)
	assert.Equal(t, pay.CardCaptured, after.CardStatus)
	assert.Equal(t, gateway.StatusCaptured, p.txs[pm.PaymentRef].Status)

	// The same total: corrected, the capture kept.
	fixed.Amount = "100000"
	out, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
	require.NoError(t, err)
	assert.False(t, out.Payment.ActionRequired)
	assert.Equal(t, "INV-2", out.Payment.InvoiceNumber)
	assert.Equal(t, pm.PaymentRef, out.Payment.PaymentRef)
	assert.Equal(t, pay.CardCaptured, out.Payment.CardStatus)
	assert.Equal(t, int64(103000), out.Payment.AuthorizedAmount)
	assert.Equal(t, auths, p.count())
}

// Captured while the new amount was being authorised (sent back on 審査完了, the capture
// job still due): the correction is refused when it is applied, and the new
// authorisation is a stray its job voids.
func TestACaptureDuringAResubmitRefusesTheNewAmount(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completedAndSentBack(t, s, f, "race-1", false)
	require.Equal(t, pay.CardAuthorized, pm.CardStatus)
	next := strings.TrimSuffix(pm.PaymentRef, "-1") + "-2"

	// The PSP authorises the new amount while the capture job captures the old one.
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		old := p.txs[pm.PaymentRef]
		old.Status, old.Captured = gateway.StatusCaptured, old.Amount
		p.txs[pm.PaymentRef] = old
		require.NoError(t, db.Store.SetPaymentCard(ctx, nil, f.buyer, pm.ID, pm.PaymentRef, pay.CardCaptured, string(gateway.ResultApproved), now))
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved, Amount: r.Amount}, nil
	}
	fixed := f.submission("").Invoice
	fixed.Amount = "120000"
	_, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
	assert.Equal(t, invoices.MsgCapturedAmountFixed, refusal(t, err, "amount"))
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.True(t, after.ActionRequired)
	assert.Equal(t, pm.PaymentRef, after.PaymentRef, "the captured authorisation stays the payment's")
	assert.Equal(t, int64(100000), after.Amount)
	assert.Equal(t, pay.CardCaptured, after.CardStatus)

	// The stray job voids the new authorisation; the capture is not refunded.
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: next, OnlyIfStray: true})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusVoided, p.txs[next].Status)
	assert.Equal(t, gateway.StatusCaptured, p.txs[pm.PaymentRef].Status)
}

// Captured while the buyer was at the challenge of the new amount: the return refuses it.
func TestACaptureDuringTheChallengeRefusesTheReturn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completedAndSentBack(t, s, f, "race-2", false)
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/c3", Amount: r.Amount}, nil
	}
	fixed := f.submission("").Invoice
	fixed.Amount = "120000"
	out, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
	require.NoError(t, err)
	require.NotEmpty(t, out.ActionURL)
	// The capture job runs (screening completed, sent back after), then the buyer passes.
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
	next := strings.TrimSuffix(pm.PaymentRef, "-1") + "-2"
	_, _ = p.set(next, func(tx *gateway.Transaction) { tx.Status = gateway.StatusAuthorized })
	_, err = s.Payments.ResubmitReturned(ctx, f.buyer, "buyer:1", pm.ID, next)
	assert.Equal(t, invoices.MsgCapturedAmountFixed, refusal(t, err, "amount"))
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.True(t, after.ActionRequired)
	assert.Equal(t, pm.PaymentRef, after.PaymentRef)
	assert.Equal(t, pay.CardCaptured, after.CardStatus)
	assert.Equal(t, int64(100000), after.Amount)
}
