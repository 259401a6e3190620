package invoiceread_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cardpay/banks"
	"cardpay/invoiceread"
	"cardpay/pay"
)

func sureField[T any](v T) invoiceread.Field[T] {
	return invoiceread.Field[T]{Value: v, Confidence: 0.9, Found: true}
}

func unsureField[T any](v T) invoiceread.Field[T] {
	return invoiceread.Field[T]{Value: v, Confidence: 0.4, Found: true}
}

func requireBanks(t *testing.T) {
	t.Helper()
	require.True(t, banks.Available(), "the zengin data is missing (%v): run `npm run build` (task build) first", banks.LoadError())
}

var candidates = invoiceread.Candidates{Suppliers: []invoiceread.Supplier{
	{ID: 1, Names: []string{"株式会社サンプル商事", "サンプル"}, CorporateNumber: "9234567890123",
		Accounts: []invoiceread.Account{
			{ID: 11, BankCode: "0005", BranchCode: "135", Type: pay.AccountOrdinary, Number: "1234567", Holder: "ｶ)ｻﾝﾌﾟﾙｼﾖｳｼﾞ"},
			{ID: 12, BankCode: "0001", BranchCode: "001", Type: pay.AccountCurrent, Number: "0012345", Holder: "ｶ)ｻﾝﾌﾟﾙｼﾖｳｼﾞ"},
		}},
	{ID: 2, Names: []string{"デザイン事務所ひかり", "佐藤 光"}, RegistrationNumber: "T8700150012345",
		Accounts: []invoiceread.Account{
			{ID: 21, BankCode: "9900", BranchCode: "018", Type: pay.AccountOrdinary, Number: "1234567", Holder: "ｻﾄｳ ﾋｶﾙ"},
		}},
	{ID: 3, Names: []string{"同名商店"}}, {ID: 4, Names: []string{"同名商店"}},
}}

func TestInvoicereadMatch(t *testing.T) {
	requireBanks(t)
	for _, tc := range []struct {
		name     string
		f        invoiceread.Fields
		supplier int64
		account  int64
		bank     string
		branch   string
		why      string // part of the supplier reason
	}{
		{"registration number", invoiceread.Fields{RegistrationNumber: sureField("T8700150012345")}, 2, 0, "", "", "登録番号"},
		{"registration number is T and the corporate number", invoiceread.Fields{RegistrationNumber: sureField("T9234567890123")}, 1, 0, "", "", "法人番号"},
		{"name with (株) written the other way", invoiceread.Fields{IssuerName: sureField("サンプル商事(株)")}, 1, 0, "", "", "名称"},
		{"name shared by two suppliers matches none", invoiceread.Fields{IssuerName: sureField("同名商店")}, 0, 0, "", "", ""},
		{"unsure name is not matched", invoiceread.Fields{IssuerName: unsureField("株式会社サンプル商事")}, 0, 0, "", "", ""},
		{"bank, branch and account", invoiceread.Fields{
			IssuerName: sureField("株式会社サンプル商事"), BankName: sureField("三菱UFJ銀行"), BranchName: sureField("渋谷"),
			AccountNumber: sureField("1234567")}, 1, 11, "0005", "135", "名称"},
		{"branch written with 支店, bank in full-width", invoiceread.Fields{
			BankName: sureField("みずほ銀行"), BranchName: sureField("東京営業部"), AccountNumber: sureField("0012345")}, 1, 12, "0001", "001", "口座"},
		{"ゆうちょ by branch code, the account names the supplier", invoiceread.Fields{
			BankName: sureField("ゆうちょ銀行"), BranchName: sureField("〇一八"), BranchCode: sureField("018"),
			AccountNumber: sureField("1234567")}, 2, 21, "9900", "018", "口座"},
		{"same number at another branch is not the account", invoiceread.Fields{
			IssuerName: sureField("株式会社サンプル商事"), BankName: sureField("三菱UFJ銀行"), BranchName: sureField("渋谷中央"),
			AccountNumber: sureField("1234567")}, 1, 0, "0005", "345", "名称"},
		{"unknown bank: number and holder", invoiceread.Fields{
			AccountNumber: sureField("1234567"), AccountHolder: sureField("サトウ ヒカル")}, 2, 21, "", "", "口座"},
		{"number and holder, the holder's voiced mark lost", invoiceread.Fields{
			AccountNumber: sureField("1234567"), AccountHolder: sureField("ｶ)ｻﾝﾌﾙｼﾖｳｼ")}, 1, 11, "", "", "口座"},
		{"bank, number and holder, the voiced mark lost", invoiceread.Fields{
			BankName: sureField("三菱UFJ銀行"), AccountNumber: sureField("1234567"), AccountHolder: sureField("ｶ)ｻﾝﾌﾙｼﾖｳｼ")}, 1, 11, "0005", "", "口座"},
		{"信用金庫 as zengin abbreviates it", invoiceread.Fields{BankName: sureField("城南信用金庫")}, 0, 0, "1344", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := invoiceread.Match(tc.f, candidates)
			require.Equal(t, tc.supplier, m.SupplierID, "%+v", m)
			require.Equal(t, tc.account, m.AccountID, "%+v", m)
			require.Equal(t, tc.bank, m.BankCode, "%+v", m)
			require.Equal(t, tc.branch, m.BranchCode, "%+v", m)
			require.Contains(t, m.SupplierReason, tc.why)
			if tc.account != 0 {
				require.NotEmpty(t, m.AccountReason)
			}
			if tc.bank != "" {
				require.NotEmpty(t, m.BankReason)
			}
		})
	}
}

func TestInvoicereadEvidence(t *testing.T) {
	requireBanks(t)
	read := invoiceread.Fields{
		IssuerName: sureField("株式会社サンプル商事"), Total: sureField(int64(125400)),
		Addressee: sureField("株式会社山田商店 経理部"), AddresseeHonorific: "御中",
		BankName: sureField("三菱UFJ銀行"), BranchName: sureField("渋谷"), AccountType: sureField(pay.AccountOrdinary),
		AccountNumber: sureField("1234567"), AccountHolder: sureField("ｶ)ｻﾝﾌﾟﾙｼﾖｳｼﾞ"),
	}
	same := invoiceread.Entered{Amount: 125400, PayeeName: "サンプル商事（株）", BankCode: "0005", BranchCode: "135",
		AccountType: pay.AccountOrdinary, AccountNumber: "1234567", AccountHolder: "カ）サンプルショウジ"}
	buyer := []string{"株式会社山田商店"}
	for _, tc := range []struct {
		name    string
		entered func(*invoiceread.Entered)
		read    func(*invoiceread.Fields)
		buyer   []string
		want    []invoiceread.Warning
	}{
		{"everything agrees", nil, nil, buyer, nil},
		{"amount", func(e *invoiceread.Entered) { e.Amount = 120000 }, nil, buyer,
			[]invoiceread.Warning{{"amount", "入力した金額（¥120,000）が請求書の金額（¥125,400）と一致しません。"}}},
		{"unsure amount is not compared", func(e *invoiceread.Entered) { e.Amount = 120000 },
			func(f *invoiceread.Fields) { f.Total = unsureField(int64(125400)) }, buyer, nil},
		{"payee", func(e *invoiceread.Entered) { e.PayeeName = "株式会社ほか" }, nil, buyer,
			[]invoiceread.Warning{{"payee", "入力した支払先（株式会社ほか）が請求書の発行者（株式会社サンプル商事）と一致しません。"}}},
		{"bank by code", func(e *invoiceread.Entered) { e.BankCode = "0001" }, nil, buyer,
			[]invoiceread.Warning{{"bank", "入力した銀行（みずほ銀行）が請求書の振込先の銀行（三菱UFJ銀行）と一致しません。"}}},
		{"branch by code", func(e *invoiceread.Entered) { e.BranchCode = "345"; e.BranchName = "渋谷中央" }, nil, buyer,
			[]invoiceread.Warning{{"branch", "入力した支店（渋谷中央）が請求書の振込先の支店（渋谷）と一致しません。"}}},
		{"account type", func(e *invoiceread.Entered) { e.AccountType = pay.AccountCurrent }, nil, buyer,
			[]invoiceread.Warning{{"account_type", "入力した預金種目（当座）が請求書の預金種目（普通）と一致しません。"}}},
		{"account number", func(e *invoiceread.Entered) { e.AccountNumber = "7654321" }, nil, buyer,
			[]invoiceread.Warning{{"account_number", "入力した口座番号（7654321）が請求書の口座番号（1234567）と一致しません。"}}},
		{"holder", func(e *invoiceread.Entered) { e.AccountHolder = "ｶ)ﾍﾞﾂｶｲｼﾔ" }, nil, buyer,
			[]invoiceread.Warning{{"account_holder", "入力した口座名義（ｶ)ﾍﾞﾂｶｲｼﾔ）が請求書の口座名義（ｶ)ｻﾝﾌﾟﾙｼﾖｳｼﾞ）と一致しません。"}}},
		{"holder read without the voiced marks OCR dropped", nil,
			func(f *invoiceread.Fields) { f.AccountHolder = sureField("ｶ)ｻﾝﾌﾙｼﾖｳｼ") }, buyer, nil},
		{"addressee is another company", nil, nil, []string{"株式会社別会社"},
			[]invoiceread.Warning{{"addressee", "請求書の宛名（株式会社山田商店 経理部 御中）がお客様の会社名（株式会社別会社）と一致しません。自社宛ての請求書かご確認ください。"}}},
		{"addressee matches the buyer's second name", nil, nil, []string{"別名", "(株)山田商店"}, nil},
		{"ゆうちょ branch by code", func(e *invoiceread.Entered) { e.BankCode = "9900"; e.BranchCode = "019"; e.BranchName = "〇一九" },
			func(f *invoiceread.Fields) {
				f.BankName, f.BranchName, f.BranchCode = sureField("ゆうちょ銀行"), sureField("〇一八"), sureField("018")
			}, buyer,
			[]invoiceread.Warning{{"branch", "入力した支店（〇一九）が請求書の振込先の支店（〇一八）と一致しません。"}}},
		{"nothing read, nothing compared", func(e *invoiceread.Entered) { e.Amount = 1 },
			func(f *invoiceread.Fields) { *f = invoiceread.Fields{} }, buyer, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, f := same, read
			if tc.entered != nil {
				tc.entered(&e)
			}
			if tc.read != nil {
				tc.read(&f)
			}
			require.Equal(t, tc.want, invoiceread.Evidence(e, f, tc.buyer))
		})
	}
}

// End to end on text: what Extract reads from an invoice is matched and compared.
func TestInvoicereadExtractThenMatch(t *testing.T) {
	requireBanks(t)
	f := invoiceread.Extract("株式会社山田商店 御中\n株式会社サンプル商事\n登録番号 T9234567890123\nご請求金額 ¥125,400\n"+
		"三菱UFJ銀行 渋谷支店 普通 1234567 カ）サンプルシヨウジ", nil)
	m := invoiceread.Match(f, candidates)
	require.Equal(t, int64(1), m.SupplierID)
	require.Equal(t, int64(11), m.AccountID)
	ws := invoiceread.Evidence(invoiceread.Entered{Amount: 120000, BankCode: "0005", BranchCode: "135", AccountNumber: "1234567"},
		f, []string{"株式会社山田商店"})
	require.Equal(t, []invoiceread.Warning{{"amount", "入力した金額（¥120,000）が請求書の金額（¥125,400）と一致しません。"}}, ws)
}
