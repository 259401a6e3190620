package invoicefiles_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/pay"
	"cardpay/store"
)

func newBuyer(t *testing.T, email string) int64 {
	t.Helper()
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: email, PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return u.BuyerID
}

// readFile records a file whose reading found fields.
func readFile(t *testing.T, buyerID int64, key string, fields invoiceread.Fields) store.InvoiceFile {
	t.Helper()
	ctx := context.Background()
	f, err := db.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
		StorageKey: key, OriginalName: "invoice.pdf", Size: 1000, MediaType: pay.FileTypePDF,
		SHA256: strings.Repeat("cd", 32), Pages: 1,
	}, invoicefiles.QueueOCR(ctx, db.Store))
	require.NoError(t, err)
	b, err := json.Marshal(fields)
	require.NoError(t, err)
	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, buyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRDone, Fields: b}))
	f, err = db.Store.InvoiceFile(ctx, buyerID, f.ID)
	require.NoError(t, err)
	return f
}

// remember records a paid payment to the buyer's supplier and what it taught, as a
// submission does.
func remember(t *testing.T, buyerID, supplierID int64, h store.SupplierHistory) {
	t.Helper()
	ctx := context.Background()
	paid, err := db.Store.CreateInvoice(ctx, buyerID, store.NewInvoice{SupplierID: supplierID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.TransferCompleted, Amount: 10000})
	require.NoError(t, err)
	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, db.Store.SaveSupplierHistory(ctx, tx, buyerID, paid, h))
	require.NoError(t, tx.Commit())
}

func sure[T any](v T) invoiceread.Field[T] {
	return invoiceread.Field[T]{Value: v, Confidence: 0.95, Found: true}
}

// A file's match offers the supplier's history: the holder the reading missed and the
// account number it misread (corrected last time) come from the buyer's last payment and
// find the registered account. Another buyer's reading of the same invoice learns
// nothing from it, and the supplier's deletion forgets it.
func TestFileMatchOffersTheSuppliersHistory(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t, "a@match-history.example")
	acct := store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
		AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"}
	sup, err := db.Store.CreateSupplier(ctx, buyer, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社山田商事",
		NameKana: "ヤマダショウジ", CorporateNumber: "1180301018771"}, &acct)
	require.NoError(t, err)
	remember(t, buyer, sup.ID, store.SupplierHistory{
		RegistrationNumber: "T1180301018771", CorporateNumber: "1180301018771", IssuerName: sup.Name,
		BankCode: acct.BankCode, BankName: acct.BankName, BranchCode: acct.BranchCode, BranchName: acct.BranchName,
		AccountType: acct.AccountType, AccountNumber: acct.AccountNumber, HolderName: acct.HolderName,
		Corrected: []string{"account_number", "account_holder"},
	})

	reading := invoiceread.Fields{IssuerName: sure("株式会社山田商事"), RegistrationNumber: sure("T1180301018771"),
		BankName: sure("みずほ銀行"), BranchName: sure("東京営業部"), AccountType: sure(pay.AccountOrdinary),
		AccountNumber: sure("1234561")}
	svc := &invoicefiles.Service{Store: db.Store}
	m, ok, err := svc.FileMatch(ctx, buyer, readFile(t, buyer, "invoices/history-a", reading))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, sup.ID, m.SupplierID)
	require.NotNil(t, m.Account, "the remembered account number finds the registered account")
	assert.Equal(t, "1234567", m.Account.AccountNumber)
	assert.Equal(t, "1234561", m.Read.AccountNumber.Value, "the reading itself is kept as read")
	assert.Equal(t, "1234567", m.Offered.Fields.AccountNumber.Value)
	assert.Equal(t, invoiceread.FromHistory, m.Offered.Source("account_number"))
	assert.Equal(t, "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", m.Offered.Fields.AccountHolder.Value)
	assert.Equal(t, invoiceread.FromHistory, m.Offered.Source("account_holder"))
	assert.Equal(t, invoiceread.FromBoth, m.Offered.Source("registration_number"))

	// Another buyer, with a supplier of the same corporate number, is offered the reading.
	other := newBuyer(t, "b@match-history.example")
	_, err = db.Store.CreateSupplier(ctx, other, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社山田商事",
		NameKana: "ヤマダショウジ", CorporateNumber: "1180301018771"}, &acct)
	require.NoError(t, err)
	om, ok, err := svc.FileMatch(ctx, other, readFile(t, other, "invoices/history-b", reading))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "1234561", om.Offered.Fields.AccountNumber.Value, "another buyer's history is never used")
	assert.Equal(t, invoiceread.FromReading, om.Offered.Source("account_number"))
	assert.False(t, om.Offered.Fields.AccountHolder.Found)
	assert.Nil(t, om.Account)

	// Deleted, the supplier's history is forgotten.
	require.NoError(t, db.Store.DeleteSupplier(ctx, buyer, sup.ID))
	m, ok, err = svc.FileMatch(ctx, buyer, readFile(t, buyer, "invoices/history-c", reading))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Zero(t, m.Offered.SupplierID)
	assert.False(t, m.Offered.Fields.AccountHolder.Found)
}
