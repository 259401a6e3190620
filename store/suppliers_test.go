package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

var mizuho = store.AccountFields{
	BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
	AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ",
}

func corpSupplier(name string) pay.SupplierInput {
	return pay.SupplierInput{BusinessForm: pay.Corporation, Name: name, NameKana: "ヤマダショウジ", CorporateNumber: "1180301018771"}
}

func TestSuppliersAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@suppliers.example", pay.Corporation)
	b := newBuyer(t, "b@suppliers.example", pay.Corporation)

	sp, err := db.Store.CreateSupplier(ctx, a.BuyerID, corpSupplier("山田商事株式会社"), &mizuho)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierUnapproved, sp.Status, "new suppliers start unapproved")
	accts, err := db.Store.SupplierAccounts(ctx, a.BuyerID, sp.ID)
	require.NoError(t, err)
	require.Len(t, accts, 1)
	acct := accts[0]

	// Buyer B sees, lists, changes and deletes nothing of A's.
	_, err = db.Store.Supplier(ctx, b.BuyerID, sp.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	list, total, err := db.Store.Suppliers(ctx, store.SupplierFilter{BuyerID: b.BuyerID, Group: pay.SupplierEnable, Size: 10})
	require.NoError(t, err)
	assert.Zero(t, total)
	assert.Empty(t, list)
	bAccts, err := db.Store.SupplierAccounts(ctx, b.BuyerID, sp.ID)
	require.NoError(t, err)
	assert.Empty(t, bAccts)
	_, err = db.Store.SupplierAccount(ctx, b.BuyerID, sp.ID, acct.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	changed := mizuho
	changed.AccountNumber = "7654321"
	_, err = db.Store.UpdateSupplierAccount(ctx, b.BuyerID, sp.ID, acct.ID, changed)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.CreateSupplierAccount(ctx, b.BuyerID, sp.ID, changed)
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, db.Store.DeleteSupplier(ctx, b.BuyerID, sp.ID), store.ErrNotFound)
	_, err = db.Store.CreateInvoice(ctx, b.BuyerID, store.NewInvoice{SupplierID: sp.ID, InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.InProgress, Amount: 1})
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Nothing changed for A.
	got, err := db.Store.SupplierAccount(ctx, a.BuyerID, sp.ID, acct.ID)
	require.NoError(t, err)
	assert.Equal(t, "1234567", got.AccountNumber)
	list, total, err = db.Store.Suppliers(ctx, store.SupplierFilter{BuyerID: a.BuyerID, Group: pay.SupplierEnable, Size: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	require.Len(t, list, 1)
	assert.Equal(t, "山田商事株式会社", list[0].Name)
}

func TestSupplierListGroupsPagesAndCounts(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "list@suppliers.example", pay.SoleProprietor)
	var ids []int64
	for i := range 5 {
		sp, err := db.Store.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "取引先" + string(rune('A'+i)), NameKana: "トリヒキサキ"}, nil)
		require.NoError(t, err)
		ids = append(ids, sp.ID)
	}
	require.NoError(t, db.Store.SetSupplierStatus(ctx, u.BuyerID, ids[0], pay.SupplierRejected))
	require.NoError(t, db.Store.SetSupplierStatus(ctx, u.BuyerID, ids[1], pay.SupplierApproved))

	page, total, err := db.Store.Suppliers(ctx, store.SupplierFilter{BuyerID: u.BuyerID, Group: pay.SupplierEnable, Page: 1, Size: 3})
	require.NoError(t, err)
	assert.Equal(t, 4, total)
	require.Len(t, page, 1, "the second page of 3 holds the fourth")
	assert.Equal(t, ids[1], page[0].ID, "newest first")

	disabled, total, err := db.Store.Suppliers(ctx, store.SupplierFilter{BuyerID: u.BuyerID, Group: pay.SupplierDisable, Size: 3})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Equal(t, ids[0], disabled[0].ID)

	st, err := db.Store.Stats(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 4, st.SuppliersEnableCount)
	assert.Equal(t, 1, st.SuppliersDisableCount)

	require.NoError(t, db.Store.DeleteSupplier(ctx, u.BuyerID, ids[4]))
	st, err = db.Store.Stats(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 3, st.SuppliersEnableCount, "a deleted supplier leaves the lists")
	_, err = db.Store.Supplier(ctx, u.BuyerID, ids[4])
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestSupplierWithPaymentInProgressCannotBeDeleted(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "busy@suppliers.example", pay.Corporation)
	sp, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("支払中株式会社"), &mizuho)
	require.NoError(t, err)
	accts, err := db.Store.SupplierAccounts(ctx, u.BuyerID, sp.ID)
	require.NoError(t, err)
	invID, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sp.ID, AccountID: &accts[0].ID,
		InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.InProgressExaminationCompleted, Amount: 110000, Fee: 3300})
	require.NoError(t, err)

	assert.ErrorIs(t, db.Store.DeleteSupplier(ctx, u.BuyerID, sp.ID), store.ErrSupplierInUse)
	changed := mizuho
	changed.AccountNumber = "7777777"
	_, err = db.Store.UpdateSupplierAccount(ctx, u.BuyerID, sp.ID, accts[0].ID, changed)
	assert.ErrorIs(t, err, store.ErrSupplierInUse, "money in flight keeps its account")
	_, err = db.Store.Supplier(ctx, u.BuyerID, sp.ID)
	require.NoError(t, err, "still there")

	st, err := db.Store.Stats(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Payments.Reserved)

	// Once the transfer is done the supplier can go; its payment still names it.
	_, err = db.Store.DB.ExecContext(ctx, `UPDATE invoices SET examination_status = $1 WHERE id = $2`, pay.TransferCompleted, invID)
	require.NoError(t, err)
	require.NoError(t, db.Store.DeleteSupplier(ctx, u.BuyerID, sp.ID))
	var name string
	require.NoError(t, db.Store.DB.GetContext(ctx, &name, `SELECT s.name FROM invoices i JOIN suppliers s ON s.id = i.supplier_id WHERE i.id = $1`, invID))
	assert.Equal(t, "支払中株式会社", name)
}

func TestAccountChangesAreCheckedAgain(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "recheck@suppliers.example", pay.Corporation)
	sp, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("再確認株式会社"), nil)
	require.NoError(t, err)
	require.NoError(t, db.Store.SetSupplierStatus(ctx, u.BuyerID, sp.ID, pay.SupplierApproved))

	acct, err := db.Store.CreateSupplierAccount(ctx, u.BuyerID, sp.ID, mizuho)
	require.NoError(t, err)
	got, err := db.Store.Supplier(ctx, u.BuyerID, sp.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierUnapproved, got.Status, "a new account is checked again")

	_, err = db.Store.CreateSupplierAccount(ctx, u.BuyerID, sp.ID, mizuho)
	assert.ErrorIs(t, err, store.ErrDuplicateAccount)

	require.NoError(t, db.Store.SetSupplierStatus(ctx, u.BuyerID, sp.ID, pay.SupplierRejected))
	changed := mizuho
	changed.AccountType = pay.AccountCurrent
	updated, err := db.Store.UpdateSupplierAccount(ctx, u.BuyerID, sp.ID, acct.ID, changed)
	require.NoError(t, err)
	assert.Equal(t, pay.AccountCurrent, updated.AccountType)
	got, err = db.Store.Supplier(ctx, u.BuyerID, sp.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierRejected, got.Status, "a rejected supplier stays rejected")
}

func TestCorporationSearch(t *testing.T) {
	ctx := context.Background()
	require.NoError(t, db.Store.SaveCorporations(ctx, []store.Corporation{
		{CorporateNumber: "1180301018771", Name: "トヨタ自動車株式会社", NameKana: "トヨタジドウシャ", Address: "愛知県豊田市トヨタ町１番地"},
		{CorporateNumber: "4010401022860", Name: "株式会社三菱ＵＦＪ銀行", NameKana: "ミツビシユーエフジェイギンコウ"},
		{CorporateNumber: "7000012050002", Name: "100%_商会", NameKana: ""},
	}))
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"トヨタ", []string{"1180301018771"}},
		{"1180", []string{"1180301018771"}},
		{"ミツビシ", []string{"4010401022860"}},
		{"株式会社", []string{"4010401022860", "1180301018771"}},
		{"%", []string{"7000012050002"}},
		{"_", []string{"7000012050002"}},
		{"", nil},
		{"該当なし", nil},
	} {
		got, err := db.Store.Corporations(ctx, tc.q, 10)
		require.NoError(t, err, tc.q)
		var nums []string
		for _, c := range got {
			nums = append(nums, c.CorporateNumber)
		}
		assert.Equal(t, tc.want, nums, tc.q)
	}
}
