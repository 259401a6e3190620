package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

func saveHistory(t *testing.T, buyerID, invoiceID int64, h store.SupplierHistory) error {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	require.NoError(t, err)
	if err := db.Store.SaveSupplierHistory(ctx, tx, buyerID, invoiceID, h); err != nil {
		require.NoError(t, tx.Rollback())
		return err
	}
	return tx.Commit()
}

func historyRows(t *testing.T, supplierID int64) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM supplier_histories WHERE supplier_id = $1`, supplierID))
	return n
}

// A supplier's history is the buyer's own: another buyer neither writes it through a
// payment that is not theirs nor reads it; the newest payment's values replace the last;
// deleting the supplier forgets them.
func TestSupplierHistoryIsScopedByBuyerAndForgottenWithTheSupplier(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@histories.example", pay.Corporation)
	b := newBuyer(t, "b@histories.example", pay.Corporation)
	sp, err := db.Store.CreateSupplier(ctx, a.BuyerID, corpSupplier("株式会社山田商事"), &mizuho)
	require.NoError(t, err)
	paid, err := db.Store.CreateInvoice(ctx, a.BuyerID, store.NewInvoice{SupplierID: sp.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.TransferCompleted, Amount: 10000})
	require.NoError(t, err)

	h := store.SupplierHistory{RegistrationNumber: "T1180301018771", CorporateNumber: "1180301018771", IssuerName: "株式会社山田商事",
		BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary,
		AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", Corrected: []string{"account_holder", "account_number"}}
	require.NoError(t, saveHistory(t, a.BuyerID, paid, h))
	assert.ErrorIs(t, saveHistory(t, b.BuyerID, paid, h), store.ErrNotFound, "another buyer's payment teaches nothing")

	list, err := db.Store.SupplierHistories(ctx, a.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	got := list[0]
	assert.Equal(t, a.BuyerID, got.BuyerID)
	assert.Equal(t, sp.ID, got.SupplierID, "keyed by the payment's supplier")
	assert.Equal(t, paid, got.InvoiceID)
	assert.Equal(t, "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", got.HolderName)
	assert.Equal(t, pay.AccountOrdinary, got.AccountType)
	assert.Equal(t, []string{"account_holder", "account_number"}, []string(got.Corrected))
	other, err := db.Store.SupplierHistories(ctx, b.BuyerID)
	require.NoError(t, err)
	assert.Empty(t, other, "another buyer never sees it")

	// The next payment's values replace the last's: one row per supplier.
	next, err := db.Store.CreateInvoice(ctx, a.BuyerID, store.NewInvoice{SupplierID: sp.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.TransferCompleted, Amount: 20000})
	require.NoError(t, err)
	h.AccountNumber, h.Corrected = "7654321", nil
	require.NoError(t, saveHistory(t, a.BuyerID, next, h))
	list, err = db.Store.SupplierHistories(ctx, a.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, next, list[0].InvoiceID)
	assert.Equal(t, "7654321", list[0].AccountNumber)
	assert.Empty(t, list[0].Corrected)

	// Another buyer deleting it changes nothing; the owner deleting it forgets the history.
	assert.ErrorIs(t, db.Store.DeleteSupplier(ctx, b.BuyerID, sp.ID), store.ErrNotFound)
	assert.Equal(t, 1, historyRows(t, sp.ID))
	require.NoError(t, db.Store.DeleteSupplier(ctx, a.BuyerID, sp.ID))
	assert.Zero(t, historyRows(t, sp.ID), "deleting the supplier forgets what it taught")
	list, err = db.Store.SupplierHistories(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Empty(t, list)
}

// Saved as StartPayment's also, the history is written with the submission, keyed by the
// supplier created with it; a submission that rolls back leaves none.
func TestSupplierHistoryIsSavedWithTheSubmission(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "submission@histories.example", pay.Corporation)
	card, err := db.Store.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "fake", Ref: "card_history", Brand: pay.BrandVISA,
		Last4: "1111", ExpMonth: 12, ExpYear: 2030, Fingerprint: "fp_history"}, time.Now())
	require.NoError(t, err)
	due := time.Now().AddDate(0, 1, 0)
	in := corpSupplier("株式会社新規商事")
	n := store.NewPayment{SubmitKey: "history-1", NewSupplier: &in, NewAccount: &mizuho, CardID: card.ID,
		Invoice: pay.CheckedInvoice{Amount: 10000, DueDate: due, TransferDate: due}, Fee: 300}
	remember := func(tx *sqlx.Tx, id int64) error {
		return db.Store.SaveSupplierHistory(ctx, tx, u.BuyerID, id, store.SupplierHistory{IssuerName: in.Name,
			CorporateNumber: in.CorporateNumber, HolderName: mizuho.HolderName, Corrected: []string{"account_holder"}})
	}
	p, created, err := db.Store.StartPayment(ctx, u.BuyerID, n, time.Now(), remember)
	require.NoError(t, err)
	require.True(t, created)
	list, err := db.Store.SupplierHistories(ctx, u.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, p.SupplierID, list[0].SupplierID, "the supplier created with the payment")
	assert.Equal(t, p.ID, list[0].InvoiceID)

	// A submission whose transaction fails after the history was written teaches nothing.
	n.SubmitKey, n.NewSupplier, n.NewAccount = "history-2", nil, nil
	n.SupplierID, n.AccountID = p.SupplierID, *p.AccountID
	boom := errors.New("the settle job could not be queued")
	_, _, err = db.Store.StartPayment(ctx, u.BuyerID, n, time.Now(), func(tx *sqlx.Tx, id int64) error {
		require.NoError(t, remember(tx, id))
		return boom
	})
	require.ErrorIs(t, err, boom)
	list, err = db.Store.SupplierHistories(ctx, u.BuyerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, p.ID, list[0].InvoiceID)

	// Places: a payment that learned some keeps them; one that learned none (a PDF's text
	// layer) leaves the last ones; one that learned others replaces them.
	save := func(places string) {
		tx, err := db.Store.DB.BeginTxx(ctx, nil)
		require.NoError(t, err)
		h := store.SupplierHistory{IssuerName: in.Name, CorporateNumber: in.CorporateNumber}
		if places != "" {
			h.Places = json.RawMessage(places)
		}
		require.NoError(t, db.Store.SaveSupplierHistory(ctx, tx, u.BuyerID, p.ID, h))
		require.NoError(t, tx.Commit())
	}
	placesNow := func() string {
		list, err := db.Store.SupplierHistories(ctx, u.BuyerID)
		require.NoError(t, err)
		require.Len(t, list, 1)
		return string(list[0].Places)
	}
	assert.JSONEq(t, `[]`, placesNow(), "none learned yet")
	first := `[{"field":"due_date","anchors":[{"text":"ご決済予定","at":[5,0,18,1]}]}]`
	save(first)
	assert.JSONEq(t, first, placesNow())
	save("")
	assert.JSONEq(t, first, placesNow(), "kept by a payment that learned none")
	second := `[{"field":"total","anchors":[{"text":"ご請求金額","at":[6,0,12,1]}]}]`
	save(second)
	assert.JSONEq(t, second, placesNow(), "replaced by the last payment's")
}
