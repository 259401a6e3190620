package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

func TestInvoiceMatchCandidatesAreTheBuyersOwn(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@invoice-match.example", pay.Corporation)
	b := newBuyer(t, "b@invoice-match.example", pay.Corporation)

	empty, err := db.Store.InvoiceMatchCandidates(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Empty(t, empty)

	first, err := db.Store.CreateSupplier(ctx, a.BuyerID, corpSupplier("山田商事株式会社"), &mizuho)
	require.NoError(t, err)
	second := mizuho
	second.AccountNumber = "7654321"
	_, err = db.Store.CreateSupplierAccount(ctx, a.BuyerID, first.ID, second)
	require.NoError(t, err)
	sole, err := db.Store.CreateSupplier(ctx, a.BuyerID, pay.SupplierInput{
		BusinessForm: pay.SoleProprietor, Name: "佐藤 光", NameKana: "サトウ ヒカル", BusinessName: "デザイン事務所ひかり",
	}, nil)
	require.NoError(t, err)
	gone, err := db.Store.CreateSupplier(ctx, a.BuyerID, corpSupplier("削除商事株式会社"), &mizuho)
	require.NoError(t, err)
	require.NoError(t, db.Store.DeleteSupplier(ctx, a.BuyerID, gone.ID))
	// Buyer B has a supplier of the same name and account: never A's candidate.
	theirs, err := db.Store.CreateSupplier(ctx, b.BuyerID, corpSupplier("山田商事株式会社"), &mizuho)
	require.NoError(t, err)

	got, err := db.Store.InvoiceMatchCandidates(ctx, a.BuyerID)
	require.NoError(t, err)
	require.Len(t, got, 2, "the deleted supplier and B's are left out")
	assert.Equal(t, first.ID, got[0].ID)
	assert.Equal(t, "1180301018771", got[0].CorporateNumber)
	require.Len(t, got[0].Accounts, 2)
	assert.Equal(t, []string{"1234567", "7654321"}, []string{got[0].Accounts[0].AccountNumber, got[0].Accounts[1].AccountNumber})
	for _, acct := range got[0].Accounts {
		assert.Equal(t, a.BuyerID, acct.BuyerID)
		assert.Equal(t, first.ID, acct.SupplierID)
		assert.Equal(t, "0001", acct.BankCode)
		assert.Equal(t, "ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ", acct.HolderName)
	}
	assert.Equal(t, sole.ID, got[1].ID)
	assert.Equal(t, "デザイン事務所ひかり", got[1].BusinessName)
	assert.Empty(t, got[1].Accounts)

	bs, err := db.Store.InvoiceMatchCandidates(ctx, b.BuyerID)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Equal(t, theirs.ID, bs[0].ID)
	require.Len(t, bs[0].Accounts, 1)
	assert.Equal(t, b.BuyerID, bs[0].Accounts[0].BuyerID)

	var none []store.InvoiceMatchCandidate
	none, err = db.Store.InvoiceMatchCandidates(ctx, 1<<40)
	require.NoError(t, err)
	assert.Empty(t, none, "an unknown buyer has no suppliers")
}
