package invoices_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// The money's integrity (issue 23): once a payment is in a transfer file, nobody may
// cancel, send back, correct or expire it; the card's status never goes back; every
// movement has its balanced postings.

// runJobs runs the queued jobs of kind for the service, as the runner would, and says
// how many were payment id's (the package's other tests leave jobs of their own).
func runJobs(t *testing.T, s *invoices.Services, kind string, id int64) int {
	t.Helper()
	n := 0
	for {
		j, err := db.Store.ClaimJob(context.Background(), "money-test", []string{kind}, time.Now().Add(24*time.Hour), time.Hour)
		if err != nil {
			require.ErrorIs(t, err, store.ErrNotFound)
			return n
		}
		var run func(context.Context, json.RawMessage) error
		switch kind {
		case invoices.CaptureJobKind:
			run = s.Screening.RunCaptureJob
		case invoices.CardJobKind:
			run = s.Payments.RunCardJob
		}
		var pj invoices.PaymentJob
		require.NoError(t, json.Unmarshal(j.Payload, &pj))
		err = run(context.Background(), j.Payload)
		if pj.ID == id {
			require.NoError(t, err)
			n++
		}
		require.NoError(t, db.Store.CompleteJob(context.Background(), j.ID, "money-test", time.Now().Add(24*time.Hour)))
	}
}

// completed submits a payment and completes its screening (the supplier approved, two
// operators), capturing its card when asked, as the capture job would.
func completed(t *testing.T, s *invoices.Services, f fixture, key string, capture bool) store.Payment {
	t.Helper()
	ctx := context.Background()
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission(key))
	require.NoError(t, err)
	first, second := newOperator(t, pay.RoleScreening), newOperator(t, pay.RoleScreening)
	require.NoError(t, s.Screening.ReviewSupplier(ctx, first, f.supplier, pay.SupplierApproved, ""))
	_, err = s.Screening.CheckPayment(ctx, first, res.Payment.ID)
	require.NoError(t, err)
	pm, err := s.Screening.CompleteScreening(ctx, second, res.Payment.ID)
	require.NoError(t, err)
	if capture {
		payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
		require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
		pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
		require.NoError(t, err)
	}
	return pm
}

// screened submits and completes a payment and captures its card.
func screened(t *testing.T, s *invoices.Services, f fixture, key string) store.Payment {
	t.Helper()
	p := completed(t, s, f, key, true)
	require.Equal(t, pay.CardCaptured, p.CardStatus)
	return p
}

func balances(t *testing.T, p store.Payment) store.Balances {
	t.Helper()
	b, err := db.Store.PaymentBalances(context.Background(), p.BuyerID, p.ID)
	require.NoError(t, err)
	return b
}

func TestAFiledPaymentCannotBeCancelledSentBackCorrectedOrExpired(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := screened(t, s, f, "money-filed")
	assert.Equal(t, store.Balances{pay.AccountCardReceivable: 103_000, pay.AccountSupplierPayable: -100_000, pay.AccountFeeRevenue: -3_000},
		balances(t, pm), "the capture's postings")
	mover, screener := newOperator(t, pay.RoleTransfers), newOperator(t, pay.RoleScreening)
	remitter := invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳ", BankCode: "0005", BranchCode: "001", AccountType: pay.AccountCurrent, AccountNumber: "7654321"}
	file, err := s.Transfers.MakeTransferFile(ctx, mover, *pm.TransferDate, remitter)
	require.NoError(t, err)
	pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.TransferFiled, pm.TransferState)
	assert.False(t, pay.BuyerCanCancel(pm.State()), "the page offers no cancel")
	assert.Equal(t, store.Balances{pay.AccountCardReceivable: 103_000, pay.AccountTransfersInTransit: -100_000, pay.AccountFeeRevenue: -3_000},
		balances(t, pm), "payable moved to in transit")

	tryAll := func(stage string) {
		_, err := s.Payments.Cancel(ctx, f.buyer, "buyer:1", pm.ID, "")
		assert.Equal(t, invoices.MsgCannotCancel, refusal(t, err, "cancel"), "%s: the buyer's cancel", stage)
		_, err = s.Screening.CancelByOperator(ctx, screener, pm.ID, "不備")
		assert.Equal(t, invoices.MsgCannotCancel, refusal(t, err, "cancel"), "%s: screening's cancel", stage)
		_, err = s.Screening.SendBack(ctx, screener, pm.ID, pay.SendBackAmount, "")
		assert.Equal(t, invoices.MsgScreeningMoved, refusal(t, err, "send_back"), "%s: send back", stage)
		_, err = db.Store.Transition(ctx, f.buyer, pm.ID, pay.ActResubmit, "buyer:1", "", now, nil)
		assert.ErrorIs(t, err, pay.ErrTransition, "%s: a correction", stage)
		// The daily expiry, years after its transfer date, passes it by.
		due, err := db.Store.ExpiringPayments(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, pay.Tokyo()), time.Now().AddDate(1, 0, 0))
		require.NoError(t, err)
		for _, e := range due {
			assert.NotEqual(t, pm.ID, e.ID, "%s: the daily expiry", stage)
		}
		_, err = db.Store.Transition(ctx, f.buyer, pm.ID, pay.ActExpire, "system", "", now, nil)
		assert.ErrorIs(t, err, pay.ErrTransition, "%s: expiring it", stage)
		var jobs int
		require.NoError(t, db.Store.DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE kind = $1 AND (payload->>'id')::bigint = $2`,
			invoices.CardJobKind, pm.ID))
		assert.Zero(t, jobs, "%s: no release job was queued", stage)
		tx, err := p.Lookup(ctx, pm.PaymentRef)
		require.NoError(t, err)
		assert.Zero(t, tx.Refunded, "%s: nothing refunded", stage)
	}
	tryAll("filed")
	require.NoError(t, s.Transfers.MarkTransferFileSent(ctx, mover, file.ID))
	tryAll("sent")
	require.NoError(t, s.Transfers.FailTransfer(ctx, mover, pm.ID, "口座なし"))
	tryAll("failed")
	pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, store.Balances{pay.AccountCardReceivable: 103_000, pay.AccountSupplierPayable: -100_000, pay.AccountFeeRevenue: -3_000},
		balances(t, pm), "a failed transfer is owed again")
	require.NoError(t, s.Transfers.RetryTransfer(ctx, mover, pm.ID, calendar.AddBankDays(time.Now().In(pay.Tokyo()), 2)))
	tryAll("retried")
	// The operators give it up (組戻し): the card is refunded, the books empty.
	_, err = s.Transfers.CancelFailedTransfer(ctx, mover, pm.ID, "口座が解約されていたため")
	require.NoError(t, err)
	assert.Equal(t, 1, runJobs(t, s, invoices.CardJobKind, pm.ID))
	pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	assert.Equal(t, pay.TransferReturned, pm.TransferState)
	assert.Equal(t, pay.CardRefunded, pm.CardStatus)
	assert.Empty(t, balances(t, pm))
	tx, err := p.Lookup(ctx, pm.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, int64(103_000), tx.Refunded)
}

// A capture answered after the payment was cancelled and refunded never turns it back
// into a charge, and posts nothing.
func TestACaptureAnsweredAfterTheRefundChangesNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("money-late-capture"))
	require.NoError(t, err)
	id := res.Payment.ID
	// The capture reaches the PSP; its answer is slow. Meanwhile the buyer cancels and the
	// card job refunds what the PSP captured.
	_, err = p.Capture(ctx, res.Payment.PaymentRef, res.Payment.AuthorizedAmount)
	require.NoError(t, err)
	_, err = s.Payments.Cancel(ctx, f.buyer, "buyer:1", id, "")
	require.NoError(t, err)
	assert.Equal(t, 1, runJobs(t, s, invoices.CardJobKind, id))
	pm, err := db.Store.Submission(ctx, f.buyer, id)
	require.NoError(t, err)
	require.Equal(t, pay.CardRefunded, pm.CardStatus)
	assert.Empty(t, balances(t, pm), "captured and refunded: both posted, nothing left")
	// The capture's answer arrives now.
	err = db.Store.SetPaymentCard(ctx, nil, f.buyer, id, res.Payment.PaymentRef, pay.CardCaptured, "A001", now)
	assert.ErrorIs(t, err, pay.ErrCardTransition)
	pm, err = db.Store.Submission(ctx, f.buyer, id)
	require.NoError(t, err)
	assert.Equal(t, pay.CardRefunded, pm.CardStatus)
	assert.Empty(t, balances(t, pm))
	var postings []string
	require.NoError(t, db.Store.DB.Select(&postings, `SELECT kind FROM ledger_postings WHERE invoice_id = $1 ORDER BY id`, id))
	assert.Equal(t, []string{"capture", "refund"}, postings)
}

// A payment sent back after its screening completed and corrected under the same
// authorisation before its capture job ran is captured when it completes again: each
// completion queues its own capture.
func TestACompletionAfterASendBackIsCaptured(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("money-recomplete"))
	require.NoError(t, err)
	id := res.Payment.ID
	require.NoError(t, db.Store.SetSupplierStatus(ctx, f.buyer, f.supplier, pay.SupplierApproved))
	first, second := newOperator(t, pay.RoleScreening), newOperator(t, pay.RoleScreening)
	complete := func() {
		_, err := s.Screening.CheckPayment(ctx, first, id)
		require.NoError(t, err)
		_, err = s.Screening.CompleteScreening(ctx, second, id)
		require.NoError(t, err)
	}
	complete()
	_, err = s.Screening.SendBack(ctx, first, id, pay.SendBackAmount, "")
	require.NoError(t, err)
	_, err = s.Payments.Resubmit(ctx, f.buyer, "buyer:1", id, invoices.Correction{Invoice: f.submission("").Invoice})
	require.NoError(t, err)
	assert.Equal(t, 1, runJobs(t, s, invoices.CaptureJobKind, id), "the first completion's job finds it back in screening")
	complete()
	assert.Equal(t, 1, runJobs(t, s, invoices.CaptureJobKind, id), "the second completion has its own job")
	pm, err := db.Store.Payment(ctx, f.buyer, id)
	require.NoError(t, err)
	assert.Equal(t, pay.CardCaptured, pm.CardStatus)
	tx, err := p.Lookup(ctx, pm.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusCaptured, tx.Status)
}

// The database refuses a posting that does not balance and any change of the journal.
func TestTheJournalRefusesUnbalancedPostingsAndChanges(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := newService(newPSP())
	pm := screened(t, s, f, "money-journal")
	_, err := db.Store.DB.ExecContext(ctx, `WITH p AS (INSERT INTO ledger_postings (kind, invoice_id, buyer_id) VALUES ('capture', $1, $2) RETURNING id)
		INSERT INTO ledger_entries (posting_id, account, amount) SELECT id, 'bank', 100 FROM p`, pm.ID, pm.BuyerID)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not balance")
	for _, q := range []string{
		`UPDATE ledger_entries SET amount = amount + 1 WHERE invoice_id = %d`,
		`DELETE FROM ledger_entries WHERE invoice_id = %d`,
		`UPDATE ledger_postings SET kind = 'refund' WHERE invoice_id = %d`,
		`DELETE FROM ledger_postings WHERE invoice_id = %d`,
	} {
		_, err := db.Store.DB.ExecContext(ctx, fmt.Sprintf(q, pm.ID))
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), "append-only", q)
	}
	_, err = db.Store.DB.ExecContext(ctx, `TRUNCATE ledger_entries, ledger_postings`)
	require.Error(t, err)
	assert.Len(t, balances(t, pm), 3, "the capture's postings are all still there")
}

// The reconciler looks a submission up and the PSP has not seen it; before it records the
// decline, the authorisation arrives and its webhook settles the submission authorised.
// The recheck the reconciler leaves behind is for a stray authorisation: it must not void
// the money of the live payment that now holds it.
func TestTheReconcilersRecheckLeavesALiveAuthorisation(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	k := &knobs{now: now}
	s := newService(p, k.edit)
	k.crash = func(point string) {
		if point == invoices.CrashAfterStart {
			panic("killed")
		}
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = s.Payments.Submit(ctx, f.buyer, f.submission("recheck-live"))
	}()
	k.crash = nil
	list, err := db.Store.Unsettled(ctx, time.Now().Add(time.Hour), 1000)
	require.NoError(t, err)
	var sub store.Payment
	for _, u := range list {
		if u.BuyerID == f.buyer {
			sub = u
		}
	}
	require.NotZero(t, sub.ID)
	p.looked = func(ref string) {
		_, err := p.Authorize(ctx, gateway.AuthorizeRequest{PaymentID: ref, Amount: sub.AuthorizedAmount})
		require.NoError(t, err)
		require.NoError(t, s.Payments.ApplyEvent(ctx, f.buyer, gateway.Event{Type: gateway.EventAuthorized,
			Transaction: gateway.Transaction{PaymentID: ref, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved}}))
	}
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: sub.ID})
	require.NoError(t, s.Payments.RunSettleJob(ctx, payload))
	pm, err := db.Store.Submission(ctx, f.buyer, sub.ID)
	require.NoError(t, err)
	require.Equal(t, pay.CardAuthorized, pm.CardStatus, "the webhook settled it first")
	require.Equal(t, pay.InProgress, pm.ExaminationStatus)

	assert.Equal(t, 1, runJobs(t, s, invoices.CardJobKind, sub.ID), "the recheck ran")
	pm, err = db.Store.Submission(ctx, f.buyer, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardAuthorized, pm.CardStatus)
	assert.Equal(t, gateway.StatusAuthorized, p.txs[pm.PaymentRef].Status, "the live payment keeps its authorisation")
	t.Logf("after the recheck: payment %s, card %s, PSP %s", pm.ExaminationStatus.Label(), pm.CardStatus, p.txs[pm.PaymentRef].Status)
}

// The capture job captures a payment's authorisation; while the PSP answers, screening's
// send-back is corrected to a new amount, authorised under the payment's next id. The
// capture's answer is about the old authorisation: the payment's card (the new one) stays
// authorised, and the correction's job refunds the old one. Recorded on the payment, the
// capture would have been counted against an authorisation that was never captured.
func TestACaptureAnsweredAfterACorrectionIsNotThePayments(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completedAndSentBack(t, s, f, "capture-corrected", false)
	require.Equal(t, pay.CardAuthorized, pm.CardStatus)
	old := pm.PaymentRef
	fixed := f.submission("").Invoice
	fixed.Amount = "120000"
	p.captures = func(string) {
		_, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
		require.NoError(t, err)
	}
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: old})
	require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
	assert.Equal(t, gateway.StatusCaptured, p.txs[old].Status, "the PSP captured the old authorisation")
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	require.NotEqual(t, old, after.PaymentRef, "corrected to a new authorisation")
	assert.Equal(t, pay.CardAuthorized, after.CardStatus, "the new authorisation is not captured")
	assert.Empty(t, balances(t, after), "nothing posted for a capture of another authorisation")

	// The correction's job gives the old authorisation's money back (the new one's
	// safety net runs too, and leaves it: the payment holds it).
	assert.Equal(t, 2, runJobs(t, s, invoices.CardJobKind, pm.ID))
	assert.Equal(t, gateway.StatusRefunded, p.txs[old].Status)
	assert.Equal(t, gateway.StatusAuthorized, p.txs[after.PaymentRef].Status)
	after, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardAuthorized, after.CardStatus)
	assert.Empty(t, balances(t, after))
	t.Logf("old %s: PSP %s; current %s: PSP %s, card %s, ledger %v", old, p.txs[old].Status,
		after.PaymentRef, p.txs[after.PaymentRef].Status, after.CardStatus, balances(t, after))
}

// The capture job's run reaches the PSP and its answer is lost (a timeout): the job is
// retried. Before the retry, screening sends the payment back and the buyer corrects it
// under the same authorisation (the amount unchanged), so it is back in 審査中 and the
// retry has nothing to capture. The card at the PSP is charged all the same: the retry
// records that capture, or the books would say authorised while the PSP holds the money
// (the money model found this: "PSP captured 1260; ledger receivable 0 (審査中)").
func TestACaptureWhoseAnswerWasLostIsRecordedAfterACorrection(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completed(t, s, f, "capture-lost-answer", false)
	ref := pm.PaymentRef
	_, err := p.Capture(ctx, ref, pm.AuthorizedAmount) // the job's run; its answer never came
	require.NoError(t, err)
	_, err = s.Screening.SendBack(ctx, newOperator(t, pay.RoleScreening), pm.ID, pay.SendBackOther, "請求書番号が違います")
	require.NoError(t, err)
	_, err = s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: f.submission("").Invoice})
	require.NoError(t, err)
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	require.Equal(t, pay.InProgress, after.ExaminationStatus)
	require.Equal(t, ref, after.PaymentRef, "the same authorisation")

	assert.Equal(t, 1, runJobs(t, s, invoices.CaptureJobKind, pm.ID), "the capture job's retry")
	after, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardCaptured, after.CardStatus)
	assert.Equal(t, pay.InProgress, after.ExaminationStatus, "still in screening: only the card's record moved")
	psp := p.txs[ref]
	got := balances(t, after)[pay.AccountCardReceivable]
	assert.Equal(t, psp.Captured-psp.Refunded, got, "the ledger's card receivable is what the PSP holds")
	t.Logf("PSP %s: captured %d, refunded %d; ledger card receivable %d (%s, card %s)", ref, psp.Captured, psp.Refunded,
		got, after.ExaminationStatus.Label(), after.CardStatus)

	// Cancelled now, the card job refunds the capture the books know of: both posted.
	_, err = s.Payments.Cancel(ctx, f.buyer, "buyer:1", pm.ID, "")
	require.NoError(t, err)
	assert.Equal(t, 1, runJobs(t, s, invoices.CardJobKind, pm.ID))
	assert.Equal(t, gateway.StatusRefunded, p.txs[ref].Status)
	after, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardRefunded, after.CardStatus)
	assert.Empty(t, balances(t, after))
	var postings []string
	require.NoError(t, db.Store.DB.Select(&postings, `SELECT kind FROM ledger_postings WHERE invoice_id = $1 ORDER BY id`, pm.ID))
	assert.Equal(t, []string{"capture", "refund"}, postings)
}

// The same lost answer, and the payment is cancelled before the retry: whichever job runs
// first, the capture and its refund are both posted and nothing is left at the PSP.
func TestACaptureWhoseAnswerWasLostIsRefundedAfterACancel(t *testing.T) {
	for _, captureFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("capture job first %v", captureFirst), func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			p := newPSP()
			s := newService(p)
			pm := completed(t, s, f, fmt.Sprintf("capture-lost-cancel-%v", captureFirst), false)
			_, err := p.Capture(ctx, pm.PaymentRef, pm.AuthorizedAmount)
			require.NoError(t, err)
			_, err = s.Payments.Cancel(ctx, f.buyer, "buyer:1", pm.ID, "")
			require.NoError(t, err)
			if captureFirst {
				assert.Equal(t, 1, runJobs(t, s, invoices.CaptureJobKind, pm.ID))
			}
			assert.Equal(t, 1, runJobs(t, s, invoices.CardJobKind, pm.ID))
			if !captureFirst {
				assert.Equal(t, 1, runJobs(t, s, invoices.CaptureJobKind, pm.ID))
			}
			after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
			require.NoError(t, err)
			assert.Equal(t, pay.CardRefunded, after.CardStatus)
			assert.Equal(t, gateway.StatusRefunded, p.txs[pm.PaymentRef].Status)
			assert.Empty(t, balances(t, after))
			var postings []string
			require.NoError(t, db.Store.DB.Select(&postings, `SELECT kind FROM ledger_postings WHERE invoice_id = $1 ORDER BY id`, pm.ID))
			assert.Equal(t, []string{"capture", "refund"}, postings)
		})
	}
}

// A correction's safety net (the stray job of its new authorisation) runs while the
// buyer's request is still under way: it finds the row on the old authorisation, voids
// the new one, and by its second look the request has moved the row to it, so the void is
// recorded. Screening sends the payment back again and the buyer corrects the amount once
// more: the third authorisation is live at the PSP, and the payment must say so. Had the
// move kept the card status of the voided one, the books would say voided while the PSP
// holds the money, and no job would ever release it (the money model found this: "inv-…-3
// still holds money (payment 審査中, card voided, current inv-…-3)").
func TestACorrectionAfterAVoidedAuthorisationHoldsItsNewOne(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	pm := completedAndSentBack(t, s, f, "stray-then-corrected", false)
	first := pm.PaymentRef
	fixed := f.submission("").Invoice
	fixed.Amount = "120000"
	fee := pay.Fee(120000, pm.FeeBasisPoints)
	second := first[:len(first)-1] + "2"
	// The buyer's request reached the PSP; the stray job looks before the row moves.
	_, err := p.Authorize(ctx, gateway.AuthorizeRequest{PaymentID: second, Amount: 120000 + fee})
	require.NoError(t, err)
	p.looked = func(string) {
		_, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
		require.NoError(t, err)
	}
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: second, OnlyIfStray: true})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	after, err := db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	require.Equal(t, second, after.PaymentRef)
	require.Equal(t, gateway.StatusVoided, p.txs[second].Status)
	require.Equal(t, pay.CardVoided, after.CardStatus, "the void is recorded: the books follow the PSP")
	require.Equal(t, pay.InProgress, after.ExaminationStatus)

	_, err = s.Screening.SendBack(ctx, newOperator(t, pay.RoleScreening), pm.ID, pay.SendBackOther, "金額が違います")
	require.NoError(t, err)
	fixed.Amount = "130000"
	_, err = s.Payments.Resubmit(ctx, f.buyer, "buyer:1", pm.ID, invoices.Correction{Invoice: fixed})
	require.NoError(t, err)
	assert.Equal(t, 4, runJobs(t, s, invoices.CardJobKind, pm.ID), "the releases of the first two, both safety nets")
	after, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	third := after.PaymentRef
	require.NotEqual(t, second, third)
	t.Logf("PSP: %s %s, %s %s, %s %s; payment %s, card %s", first, p.txs[first].Status, second, p.txs[second].Status,
		third, p.txs[third].Status, after.ExaminationStatus.Label(), after.CardStatus)
	assert.Equal(t, gateway.StatusVoided, p.txs[first].Status)
	assert.Equal(t, gateway.StatusAuthorized, p.txs[third].Status)
	assert.Equal(t, pay.CardAuthorized, after.CardStatus, "the payment holds its new authorisation")

	// And it is paid like any other: screening completes, the capture job captures it.
	op1, op2 := newOperator(t, pay.RoleScreening), newOperator(t, pay.RoleScreening)
	_, err = s.Screening.CheckPayment(ctx, op1, pm.ID)
	require.NoError(t, err)
	_, err = s.Screening.CompleteScreening(ctx, op2, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, runJobs(t, s, invoices.CaptureJobKind, pm.ID), "the first completion's (of the first authorisation), and this one's")
	after, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardCaptured, after.CardStatus)
	assert.Equal(t, gateway.StatusCaptured, p.txs[third].Status)
	assert.Equal(t, p.txs[third].Captured, balances(t, after)[pay.AccountCardReceivable])
}
