package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// A declined submission never became a payment: it does not keep its supplier from being
// deleted, and it is in no list or count.
func TestDeclinedSubmissionHoldsNothing(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "declined-submission@test.example", pay.Corporation)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社削除",
		NameKana: "サクジョ", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001", BankName: "みずほ",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "1111111", HolderName: "ｻｸｼﾞﾖ"})
	require.NoError(t, err)
	accts, err := db.Store.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	card, err := db.Store.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "fake", Ref: "card_declined", Brand: pay.BrandVISA,
		Last4: "1111", ExpMonth: 12, ExpYear: 2030, Fingerprint: "fp_declined"}, time.Now())
	require.NoError(t, err)
	due := time.Now().AddDate(0, 1, 0)
	p, created, err := db.Store.StartPayment(ctx, u.BuyerID, store.NewPayment{SubmitKey: "k", SupplierID: sup.ID, AccountID: accts[0].ID,
		CardID: card.ID, Invoice: pay.CheckedInvoice{Amount: 10000, DueDate: due, TransferDate: due}, Fee: 300}, time.Now(),
		func(*sqlx.Tx, int64) error { return nil }) // no settle job: nothing runs jobs here
	require.NoError(t, err)
	require.True(t, created)
	busy, err := db.Store.SupplierHasPaymentsInProgress(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	assert.True(t, busy, "an unanswered submission may still become a payment")
	_, err = db.Store.SettleSubmission(ctx, u.BuyerID, p.ID, store.AuthOutcome{Status: pay.CardDeclined, ResultCode: "G012"}, time.Now())
	require.NoError(t, err)
	busy, err = db.Store.SupplierHasPaymentsInProgress(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	assert.False(t, busy)
	c, err := db.Store.PaymentCounts(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, pay.PaymentCounts{}, c)
	_, err = db.Store.Payment(ctx, u.BuyerID, p.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.NoError(t, db.Store.DeleteSupplier(ctx, u.BuyerID, sup.ID))
	// The events are append-only.
	sup2, err := db.Store.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社履歴",
		NameKana: "リレキ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	id, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup2.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.InProgress, Amount: 5000})
	require.NoError(t, err)
	_, err = db.Store.DB.Exec(`UPDATE invoice_events SET reason = 'x' WHERE invoice_id = $1`, id)
	require.ErrorContains(t, err, "append-only")
	_, err = db.Store.DB.Exec(`DELETE FROM invoice_events WHERE invoice_id = $1`, id)
	require.ErrorContains(t, err, "append-only")
}
