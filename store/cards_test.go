package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

var cardNow = time.Date(2026, 11, 20, 12, 0, 0, 0, pay.Tokyo())

func testCard(n int) store.NewCard {
	return store.NewCard{
		Gateway: "sandbox", Ref: fmt.Sprintf("card_%d", n), Brand: pay.BrandVISA, Last4: fmt.Sprintf("%04d", n),
		ExpMonth: 12, ExpYear: 2030, HolderName: "TARO YAMADA", Fingerprint: fmt.Sprintf("fp_%d", n),
	}
}

func defaults(t *testing.T, buyerID int64) []int64 {
	t.Helper()
	list, err := db.Store.Cards(context.Background(), buyerID)
	require.NoError(t, err)
	var ids []int64
	for _, c := range list {
		if c.IsDefault {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func TestCardsLimitDuplicatesAndTheDefault(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "limit@cards.example", pay.Corporation)

	var ids []int64
	for i := 1; i <= pay.MaxSavedCards; i++ {
		c, err := db.Store.CreateCard(ctx, u.BuyerID, testCard(i), cardNow)
		require.NoError(t, err)
		assert.Equal(t, i == 1, c.IsDefault, "the first card is the default, later ones are not")
		ids = append(ids, c.ID)
	}
	_, err := db.Store.CreateCard(ctx, u.BuyerID, testCard(6), cardNow)
	assert.ErrorIs(t, err, store.ErrTooManyCards)
	_, err = db.Store.CreateCard(ctx, u.BuyerID, testCard(2), cardNow)
	assert.ErrorIs(t, err, store.ErrDuplicateCard, "duplicates are refused before the limit")
	n, err := db.Store.CardCount(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, pay.MaxSavedCards, n)

	// The same card at another PSP is another card (fingerprints are per PSP) — but
	// the limit still holds.
	other := testCard(1)
	other.Gateway = "stripe"
	_, err = db.Store.CreateCard(ctx, u.BuyerID, other, cardNow)
	assert.ErrorIs(t, err, store.ErrTooManyCards)

	list, err := db.Store.Cards(ctx, u.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 5)
	assert.Equal(t, ids[0], list[0].ID, "the default first")
	assert.Equal(t, ids[4], list[1].ID, "then the newest")

	require.NoError(t, db.Store.SetDefaultCard(ctx, u.BuyerID, ids[2]))
	assert.Equal(t, []int64{ids[2]}, defaults(t, u.BuyerID))

	// Deleting a card that is not the default leaves the default.
	require.NoError(t, db.Store.DeleteCard(ctx, u.BuyerID, ids[4]))
	assert.Equal(t, []int64{ids[2]}, defaults(t, u.BuyerID))
	// Deleting the default makes the newest remaining card the default.
	require.NoError(t, db.Store.DeleteCard(ctx, u.BuyerID, ids[2]))
	assert.Equal(t, []int64{ids[3]}, defaults(t, u.BuyerID))
	assert.ErrorIs(t, db.Store.DeleteCard(ctx, u.BuyerID, ids[2]), store.ErrNotFound, "a deleted card is gone")
	_, err = db.Store.Card(ctx, u.BuyerID, ids[2])
	assert.ErrorIs(t, err, store.ErrNotFound)

	// A deleted card can be saved again, and there is room again.
	again, err := db.Store.CreateCard(ctx, u.BuyerID, testCard(3), cardNow)
	require.NoError(t, err)
	assert.False(t, again.IsDefault)
	got, err := db.Store.CardByFingerprint(ctx, u.BuyerID, "sandbox", "fp_3")
	require.NoError(t, err)
	assert.Equal(t, again.ID, got.ID)

	for _, id := range []int64{ids[0], ids[1], ids[3], again.ID} {
		require.NoError(t, db.Store.DeleteCard(ctx, u.BuyerID, id))
		if n, _ := db.Store.CardCount(ctx, u.BuyerID); n > 0 {
			assert.Len(t, defaults(t, u.BuyerID), 1, "exactly one default while any card is left")
		}
	}
	assert.Empty(t, defaults(t, u.BuyerID))
}

func TestANewCardReplacesAnExpiredDefault(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "expired@cards.example", pay.Corporation)
	old := testCard(1)
	old.ExpMonth, old.ExpYear = 10, 2026
	first, err := db.Store.CreateCard(ctx, u.BuyerID, old, cardNow)
	require.NoError(t, err)
	assert.True(t, first.IsDefault)
	assert.True(t, first.Expired(cardNow))
	second, err := db.Store.CreateCard(ctx, u.BuyerID, testCard(2), cardNow)
	require.NoError(t, err)
	assert.True(t, second.IsDefault, "an expired default gives way to a usable card")
	assert.Equal(t, []int64{second.ID}, defaults(t, u.BuyerID))
}

func TestConcurrentAddsKeepTheLimit(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "race@cards.example", pay.Corporation)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.Store.CreateCard(ctx, u.BuyerID, testCard(100+i), cardNow)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			assert.ErrorIs(t, err, store.ErrTooManyCards)
		}
	}
	assert.Equal(t, pay.MaxSavedCards, ok)
	assert.Len(t, defaults(t, u.BuyerID), 1)
}

func TestCardsAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@cards.example", pay.Corporation)
	b := newBuyer(t, "b@cards.example", pay.Corporation)
	c, err := db.Store.CreateCard(ctx, a.BuyerID, testCard(1), cardNow)
	require.NoError(t, err)
	// B may save the same card for itself: fingerprints are unique per buyer.
	bc, err := db.Store.CreateCard(ctx, b.BuyerID, testCard(1), cardNow)
	require.NoError(t, err)
	assert.True(t, bc.IsDefault)

	_, err = db.Store.Card(ctx, b.BuyerID, c.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, db.Store.DeleteCard(ctx, b.BuyerID, c.ID), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.SetDefaultCard(ctx, b.BuyerID, c.ID), store.ErrNotFound)
	_, _, err = db.Store.StartCardApproval(ctx, b.BuyerID, c.ID, "pay-scope-1", 5000)
	assert.ErrorIs(t, err, store.ErrNotFound)
	list, err := db.Store.Cards(ctx, b.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, bc.ID, list[0].ID)
	assert.Equal(t, []int64{bc.ID}, defaults(t, b.BuyerID), "B's change to A's card left B's default alone")
	assert.Equal(t, []int64{c.ID}, defaults(t, a.BuyerID))

	check, err := db.Store.CreateCardCheck(ctx, a.BuyerID, testCard(2))
	require.NoError(t, err)
	_, err = db.Store.CardCheck(ctx, b.BuyerID, check.PaymentID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.FinishCardCheck(ctx, b.BuyerID, check.PaymentID, store.CardCheckOutcome{Authorized: true}, cardNow)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestCardCheckFinishesOnce(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "check@cards.example", pay.SoleProprietor)
	check, err := db.Store.CreateCardCheck(ctx, u.BuyerID, testCard(7))
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("cardcheck-%d", check.ID), check.PaymentID)
	assert.Equal(t, store.CardCheckPending, check.Status)
	owner, err := db.Store.PaymentOwner(ctx, check.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, u.BuyerID, owner)

	require.NoError(t, db.Store.SetCardCheckAction(ctx, u.BuyerID, check.PaymentID, "https://psp.example/3ds/1"))
	got, err := db.Store.CardCheck(ctx, u.BuyerID, check.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckRequiresAction, got.Status)
	assert.False(t, got.Finished())

	// The return page and the webhook race; one card is saved.
	var wg sync.WaitGroup
	results := make([]store.CardCheck, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			results[i], err = db.Store.FinishCardCheck(ctx, u.BuyerID, check.PaymentID, store.CardCheckOutcome{Authorized: true, ResultCode: "A001"}, cardNow)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	for _, r := range results {
		assert.Equal(t, store.CardCheckAuthorized, r.Status)
		require.NotNil(t, r.CardID)
		assert.Equal(t, *results[0].CardID, *r.CardID)
	}
	n, err := db.Store.CardCount(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	// A later decline (a late webhook) changes nothing.
	after, err := db.Store.FinishCardCheck(ctx, u.BuyerID, check.PaymentID, store.CardCheckOutcome{ResultCode: "G001"}, cardNow)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckAuthorized, after.Status)
	require.NoError(t, db.Store.SetCardCheckAction(ctx, u.BuyerID, check.PaymentID, "https://psp.example/3ds/2"))
	after, err = db.Store.CardCheck(ctx, u.BuyerID, check.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckAuthorized, after.Status, "a finished check is not reopened")

	// The same card verified again is refused as a duplicate, nothing saved.
	dup, err := db.Store.CreateCardCheck(ctx, u.BuyerID, testCard(7))
	require.NoError(t, err)
	dup, err = db.Store.FinishCardCheck(ctx, u.BuyerID, dup.PaymentID, store.CardCheckOutcome{Authorized: true, ResultCode: "A001"}, cardNow)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckRefused, dup.Status)
	assert.Equal(t, store.RefusalDuplicate, dup.Refusal)
	assert.Nil(t, dup.CardID)

	declined, err := db.Store.CreateCardCheck(ctx, u.BuyerID, testCard(8))
	require.NoError(t, err)
	declined, err = db.Store.FinishCardCheck(ctx, u.BuyerID, declined.PaymentID, store.CardCheckOutcome{ResultCode: "G012"}, cardNow)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckDeclined, declined.Status)
	assert.Equal(t, "G012", declined.ResultCode)
	n, err = db.Store.CardCount(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

func TestCardCheckOverTheLimitIsRefused(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "checklimit@cards.example", pay.Corporation)
	for i := 1; i <= pay.MaxSavedCards; i++ {
		_, err := db.Store.CreateCard(ctx, u.BuyerID, testCard(i), cardNow)
		require.NoError(t, err)
	}
	check, err := db.Store.CreateCardCheck(ctx, u.BuyerID, testCard(9))
	require.NoError(t, err)
	check, err = db.Store.FinishCardCheck(ctx, u.BuyerID, check.PaymentID, store.CardCheckOutcome{Authorized: true}, cardNow)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckRefused, check.Status)
	assert.Equal(t, store.RefusalTooMany, check.Refusal)
}

func TestCardApprovalPaymentIDs(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "approve-a@cards.example", pay.Corporation)
	b := newBuyer(t, "approve-b@cards.example", pay.Corporation)
	ca, err := db.Store.CreateCard(ctx, a.BuyerID, testCard(1), cardNow)
	require.NoError(t, err)
	cb, err := db.Store.CreateCard(ctx, b.BuyerID, testCard(1), cardNow)
	require.NoError(t, err)

	ap, created, err := db.Store.StartCardApproval(ctx, a.BuyerID, ca.ID, "payment-42", 12_000)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, store.ApprovalPending, ap.Status)
	again, created, err := db.Store.StartCardApproval(ctx, a.BuyerID, ca.ID, "payment-42", 12_000)
	require.NoError(t, err)
	assert.False(t, created, "the same payment id is the same authorisation")
	assert.Equal(t, ap.ID, again.ID)

	_, _, err = db.Store.StartCardApproval(ctx, b.BuyerID, cb.ID, "payment-42", 12_000)
	assert.ErrorIs(t, err, store.ErrPaymentIDTaken, "another buyer cannot reuse the id")
	_, err = db.Store.CardApproval(ctx, b.BuyerID, "payment-42")
	assert.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, db.Store.SetCardApproval(ctx, a.BuyerID, "payment-42", "authorized", "A001", ""))
	assert.ErrorIs(t, db.Store.SetCardApproval(ctx, b.BuyerID, "payment-42", "declined", "G012", ""), store.ErrNotFound)
	got, err := db.Store.CardApproval(ctx, a.BuyerID, "payment-42")
	require.NoError(t, err)
	assert.Equal(t, "authorized", got.Status)
	owner, err := db.Store.PaymentOwner(ctx, "payment-42")
	require.NoError(t, err)
	assert.Equal(t, a.BuyerID, owner)
	_, err = db.Store.PaymentOwner(ctx, "payment-unknown")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestPSPEventsAreRecordedOnce(t *testing.T) {
	ctx := context.Background()
	e := store.NewPSPEvent{Gateway: "sandbox", EventID: "evt_1", Type: "payment.authorized", PaymentID: "cardcheck-1",
		Body: []byte(`{"id":"evt_1","type":"payment.authorized"}`)}
	first, created, err := db.Store.RecordPSPEvent(ctx, e, nil)
	require.NoError(t, err)
	assert.True(t, created)
	assert.Nil(t, first.ProcessedAt)
	require.NoError(t, db.Store.MarkPSPEventProcessed(ctx, first.ID))

	again, created, err := db.Store.RecordPSPEvent(ctx, e, nil)
	require.NoError(t, err)
	assert.False(t, created, "a redelivery is recognised")
	assert.Equal(t, first.ID, again.ID)
	assert.NotNil(t, again.ProcessedAt)
	assert.JSONEq(t, string(e.Body), string(again.Body))

	other := e
	other.Gateway = "stripe"
	_, created, err = db.Store.RecordPSPEvent(ctx, other, nil)
	require.NoError(t, err)
	assert.True(t, created, "event ids are per PSP")

	got, err := db.Store.PSPEvent(ctx, first.ID)
	require.NoError(t, err)
	assert.Equal(t, "evt_1", got.EventID)
}
