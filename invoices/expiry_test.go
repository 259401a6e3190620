package invoices_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
)

func TestDailyExpiry(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	k := &knobs{now: now}
	s := newService(p, k.edit)
	// Submitted on 24 November for a transfer on 25 December.
	lapsing, err := s.Payments.Submit(ctx, f.buyer, f.submission("exp-lapse"))
	require.NoError(t, err)
	late, err := s.Payments.Submit(ctx, f.buyer, f.submission("exp-late"))
	require.NoError(t, err)
	filed, err := s.Payments.Submit(ctx, f.buyer, f.submission("exp-filed"))
	require.NoError(t, err)
	_, err = db.Store.DB.Exec(`UPDATE invoices SET card_status = 'captured', examination_status = 3 WHERE id = $1`, late.Payment.ID)
	require.NoError(t, err)
	_, _ = p.Capture(ctx, late.Payment.PaymentRef, late.Payment.AuthorizedAmount)
	_, err = db.Store.DB.Exec(`UPDATE invoices SET card_status = 'captured', examination_status = 3, transfer_state = 'filed' WHERE id = $1`, filed.Payment.ID)
	require.NoError(t, err)

	// Five days on nothing lapses yet.
	k.now = now.Add(5 * 24 * time.Hour)
	n, err := s.Payments.ExpireDue(ctx, now.AddDate(0, 0, 5))
	require.NoError(t, err)
	assert.Equal(t, 0, countExpired(t, f.buyer))
	_ = n

	// Six days and an hour on, the uncaptured authorisation would lapse within a day.
	k.now = now.Add(6*24*time.Hour + time.Hour)
	n, err = s.Payments.ExpireDue(ctx, now.AddDate(0, 0, 6))
	require.NoError(t, err)
	pm, err := db.Store.Payment(ctx, f.buyer, lapsing.Payment.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.Expired, pm.ExaminationStatus)
	ev, err := db.Store.PaymentEvents(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, invoices.MsgExpiredAuthorisation, ev[len(ev)-1].Reason)
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusVoided, p.txs[pm.PaymentRef].Status)
	// The same day again changes nothing.
	again, err := s.Payments.ExpireDue(ctx, now.AddDate(0, 0, 6))
	require.NoError(t, err)
	assert.Equal(t, 0, again)
	assert.GreaterOrEqual(t, n, 1)

	// After the transfer date, the captured one expires and is refunded; the one in a
	// file the bank has is left alone.
	k.now = time.Date(2026, 12, 26, 1, 0, 0, 0, pay.Tokyo())
	_, err = s.Payments.ExpireDue(ctx, time.Date(2026, 12, 26, 0, 0, 0, 0, pay.Tokyo()))
	require.NoError(t, err)
	pm, err = db.Store.Payment(ctx, f.buyer, late.Payment.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.Expired, pm.ExaminationStatus)
	ev, err = db.Store.PaymentEvents(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, invoices.MsgExpiredTransferDate, ev[len(ev)-1].Reason)
	payload, _ = json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusRefunded, p.txs[pm.PaymentRef].Status)
	pm, err = db.Store.Payment(ctx, f.buyer, filed.Payment.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationCompleted, pm.ExaminationStatus, "a filed transfer waits for the bank's answer")
	assert.Contains(t, notifications(t, f.buyer), "お支払いが期限切れになりました")
}

func TestExpiryIsScheduledOncePerDay(t *testing.T) {
	ctx := context.Background()
	s := newService(newPSP())
	// Two instances starting on the same day enqueue one job.
	day := time.Date(2030, 3, 1, 12, 0, 0, 0, pay.Tokyo())
	require.NoError(t, s.Payments.ScheduleExpiry(ctx, day))
	require.NoError(t, s.Payments.ScheduleExpiry(ctx, day))
	var jobs int
	require.NoError(t, db.Store.DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE kind = $1 AND unique_key = 'expiry-2030-03-01'`, invoices.ExpiryJobKind))
	assert.Equal(t, 1, jobs)
	var runAt time.Time
	require.NoError(t, db.Store.DB.Get(&runAt, `SELECT run_at FROM jobs WHERE unique_key = 'expiry-2030-03-01'`))
	assert.True(t, runAt.Equal(time.Date(2030, 3, 1, 1, 0, 0, 0, pay.Tokyo())), runAt)
	// Running it schedules the next day.
	payload, _ := json.Marshal(invoices.ExpiryJob{Date: "2030-03-01"})
	require.NoError(t, s.Payments.RunExpiryJob(ctx, payload))
	require.NoError(t, db.Store.DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE unique_key = 'expiry-2030-03-02'`))
	assert.Equal(t, 1, jobs)
	done, err := db.Store.DailyRunDone(ctx, invoices.ExpiryJobKind, day)
	require.NoError(t, err)
	assert.True(t, done)
}

func countExpired(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND examination_status = 8`, buyerID))
	return n
}
