package invoiceread_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/invoiceread"
	"cardpay/pay"
)

// paid is what the buyer paid Yamada's invoice with last time.
var paid = invoiceread.Remembered{
	IssuerName: "株式会社山田商事", RegistrationNumber: "T1180301018771",
	BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
	AccountType: pay.AccountOrdinary, AccountNumber: "1234567", AccountHolder: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ",
}

// yamada is Yamada's invoice read right.
func yamada() invoiceread.Fields {
	return invoiceread.Fields{
		IssuerName: sureField("山田商事株式会社"), RegistrationNumber: sureField("T1180301018771"),
		Total:    sureField(int64(110000)),
		BankName: sureField("みずほ銀行"), BranchName: sureField("東京営業部支店"),
		AccountType: sureField(pay.AccountOrdinary), AccountNumber: sureField("1234567"),
		AccountHolder: sureField("カ）ヤマダシヨウジ"),
	}
}

func TestCorrections(t *testing.T) {
	requireBanks(t)
	for _, tc := range []struct {
		name   string
		read   func(f *invoiceread.Fields)
		used   func(u *invoiceread.Remembered)
		others []string
		want   []string
	}{
		{name: "read right: nothing corrected (legal form, 銀行, 支店 and kana width aside)"},
		{name: "holder missed", read: func(f *invoiceread.Fields) { f.AccountHolder = invoiceread.Field[string]{} },
			want: []string{"account_holder"}},
		{name: "account number and type misread",
			read: func(f *invoiceread.Fields) {
				f.AccountNumber, f.AccountType = sureField("1234561"), sureField(pay.AccountCurrent)
			},
			want: []string{"account_type", "account_number"}},
		{name: "another name of the supplier's is no correction", others: []string{"ヤマダ商店"},
			read: func(f *invoiceread.Fields) { f.IssuerName = sureField("ヤマダ商店") }},
		{name: "a name the supplier does not go by is", read: func(f *invoiceread.Fields) { f.IssuerName = sureField("ヤマダ商店") },
			want: []string{"issuer_name"}},
		{name: "the branch by its number", read: func(f *invoiceread.Fields) {
			f.BranchName, f.BranchCode = invoiceread.Field[string]{}, sureField("001")
		}},
		{name: "another bank (the branch read right all the same)", read: func(f *invoiceread.Fields) { f.BankName = sureField("りそな銀行") },
			want: []string{"bank_name"}},
		{name: "a field left empty is neither remembered nor corrected",
			read: func(f *invoiceread.Fields) { f.RegistrationNumber = invoiceread.Field[string]{} },
			used: func(u *invoiceread.Remembered) { u.RegistrationNumber = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read, used := yamada(), paid
			if tc.read != nil {
				tc.read(&read)
			}
			if tc.used != nil {
				tc.used(&used)
			}
			assert.Equal(t, tc.want, invoiceread.Corrections(read, used, tc.others...))
		})
	}
}

func TestOffer(t *testing.T) {
	requireBanks(t)
	history := &invoiceread.History{SupplierID: 7, Remembered: paid,
		Corrected: []string{"account_number", "account_holder"}}
	missing := invoiceread.Field[string]{}
	for _, tc := range []struct {
		name    string
		read    func(f *invoiceread.Fields)
		history *invoiceread.History
		key     string
		value   string
		source  invoiceread.Source
	}{
		{name: "no history: the reading", key: "account_holder", value: "カ）ヤマダシヨウジ", source: invoiceread.FromReading},
		{name: "agreeing: both", history: history, key: "account_holder", value: "カ）ヤマダシヨウジ", source: invoiceread.FromBoth},
		{name: "a field no history knows: the reading", history: history, key: "total", source: invoiceread.FromReading},
		{name: "holder missed: the history's", history: history, key: "account_holder", value: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", source: invoiceread.FromHistory,
			read: func(f *invoiceread.Fields) { f.AccountHolder = missing }},
		{name: "a field not corrected but missed: the history's too", history: history, key: "bank_name", value: "みずほ", source: invoiceread.FromHistory,
			read: func(f *invoiceread.Fields) { f.BankName = missing }},
		{name: "corrected and misread by one digit: the history's", history: history, key: "account_number", value: "1234567",
			source: invoiceread.FromHistory, read: func(f *invoiceread.Fields) { f.AccountNumber = sureField("1284567") }},
		{name: "corrected, read unsure: the history's", history: history, key: "account_number", value: "1234567",
			source: invoiceread.FromHistory, read: func(f *invoiceread.Fields) { f.AccountNumber = unsureField("7777777") }},
		{name: "corrected but another account printed: the reading (a new account is not hidden)", history: history,
			key: "account_number", value: "7654321", source: invoiceread.FromReading,
			read: func(f *invoiceread.Fields) { f.AccountNumber = sureField("7654321") }},
		{name: "not corrected, misread by one digit: the reading", key: "account_number", value: "1284567", source: invoiceread.FromReading,
			history: &invoiceread.History{SupplierID: 7, Remembered: paid},
			read:    func(f *invoiceread.Fields) { f.AccountNumber = sureField("1284567") }},
		{name: "holder corrected, a kana misread: the history's", history: history, key: "account_holder", value: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ",
			source: invoiceread.FromHistory, read: func(f *invoiceread.Fields) { f.AccountHolder = sureField("ｶ)ﾔﾏﾀﾞｼﾖｳｼﾝ") }},
		{name: "holder corrected, another holder printed: the reading", history: history, key: "account_holder", value: "ｻﾄｳ ﾋｶﾙ",
			source: invoiceread.FromReading, read: func(f *invoiceread.Fields) { f.AccountHolder = sureField("ｻﾄｳ ﾋｶﾙ") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := yamada()
			if tc.read != nil {
				tc.read(&read)
			}
			o := invoiceread.Offer(read, tc.history)
			assert.Equal(t, tc.source, o.Source(tc.key))
			if tc.value == "" {
				return
			}
			var got invoiceread.Field[string]
			switch tc.key {
			case "account_holder":
				got = o.Fields.AccountHolder
			case "account_number":
				got = o.Fields.AccountNumber
			case "bank_name":
				got = o.Fields.BankName
			}
			assert.True(t, got.Found)
			assert.Equal(t, tc.value, got.Value)
			switch tc.source {
			case invoiceread.FromBoth:
				assert.GreaterOrEqual(t, got.Confidence, 0.98, "agreeing is surer than either")
			case invoiceread.FromHistory:
				assert.InDelta(t, 0.9, got.Confidence, 0.001)
			}
		})
	}

	// A missed branch comes back with its code; the sources say so for both keys.
	read := yamada()
	read.BranchName = missing
	o := invoiceread.Offer(read, history)
	assert.Equal(t, "001", o.Fields.BranchCode.Value)
	assert.Equal(t, invoiceread.FromHistory, o.Source("branch_name"))
	assert.Equal(t, invoiceread.FromHistory, o.Source("branch_code"))
	assert.Equal(t, int64(7), o.SupplierID)
	assert.Equal(t, "取引先の履歴", o.Source("branch_name").Label())
}

func TestFindHistory(t *testing.T) {
	hs := []invoiceread.History{
		{SupplierID: 1, CorporateNumber: "9234567890123"},
		{SupplierID: 2, Remembered: invoiceread.Remembered{RegistrationNumber: "T8700150012345"}},
		{SupplierID: 3},
	}
	for _, tc := range []struct {
		name     string
		read     invoiceread.Fields
		supplier int64
		want     int64
	}{
		{"by the registration number", invoiceread.Fields{RegistrationNumber: sureField("T8700150012345")}, 3, 2},
		{"by the corporate number", invoiceread.Fields{RegistrationNumber: sureField("T9234567890123")}, 0, 1},
		{"an unsure number: by the matched supplier", invoiceread.Fields{RegistrationNumber: unsureField("T8700150012345")}, 3, 3},
		{"another number: by the matched supplier", invoiceread.Fields{RegistrationNumber: sureField("T1180301018771")}, 3, 3},
		{"nothing", invoiceread.Fields{RegistrationNumber: sureField("T1180301018771")}, 0, 0},
		{"a supplier without history", invoiceread.Fields{}, 9, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := invoiceread.FindHistory(tc.read, hs, tc.supplier)
			assert.Equal(t, tc.want != 0, ok)
			assert.Equal(t, tc.want, h.SupplierID)
		})
	}
}

// The history's account and holder find the registered account that a misread number
// and a missed holder would not, and the history's registration number finds a sole
// proprietor the suppliers table keeps none for.
func TestSuggestMatchesWithTheHistory(t *testing.T) {
	requireBanks(t)
	read := invoiceread.Fields{
		IssuerName: sureField("ひかりデザイン"), RegistrationNumber: sureField("T8700150012345"),
		BankName: sureField("ゆうちょ銀行"), BranchName: sureField("〇一八"), AccountType: sureField(pay.AccountOrdinary),
		AccountNumber: sureField("1234557"),
	}
	c := invoiceread.Candidates{Suppliers: []invoiceread.Supplier{
		{ID: 2, Names: []string{"デザイン事務所ひかり"}, Accounts: []invoiceread.Account{
			{ID: 21, BankCode: "9900", BranchCode: "018", Type: pay.AccountOrdinary, Number: "1234567", Holder: "ｻﾄｳ ﾋｶﾙ"}}},
	}}
	without, m := invoiceread.Suggest(read, c, nil)
	assert.Zero(t, m.SupplierID, "without history nothing matches")
	assert.Equal(t, invoiceread.FromReading, without.Source("account_number"))

	hs := []invoiceread.History{{SupplierID: 2, Remembered: invoiceread.Remembered{
		IssuerName: "デザイン事務所ひかり", RegistrationNumber: "T8700150012345", BankCode: "9900", BankName: "ゆうちょ",
		BranchCode: "018", BranchName: "〇一八", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", AccountHolder: "ｻﾄｳ ﾋｶﾙ"},
		Corrected: []string{"issuer_name", "account_number", "account_holder"}}}
	o, m := invoiceread.Suggest(read, c, hs)
	require.Equal(t, int64(2), m.SupplierID, m.SupplierReason)
	assert.Equal(t, int64(21), m.AccountID, "the remembered account finds the registered one")
	assert.Equal(t, "1234567", o.Fields.AccountNumber.Value)
	assert.Equal(t, "ｻﾄｳ ﾋｶﾙ", o.Fields.AccountHolder.Value)
	assert.Equal(t, invoiceread.FromHistory, o.Source("account_holder"))
	assert.Equal(t, invoiceread.FromBoth, o.Source("registration_number"))
	assert.Equal(t, invoiceread.FromReading, o.Source("issuer_name"), "a name quite unlike the last is offered as read")
}
