package pay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestSupplierInputValidate(t *testing.T) {
	long := strings.Repeat("あ", 101)
	for _, tc := range []struct {
		name string
		in   pay.SupplierInput
		want map[string]string // field → message; nil means valid
	}{
		{"corporation", pay.SupplierInput{BusinessForm: pay.Corporation, Name: " 山田商事株式会社 ", NameKana: "やまだしょうじ", CorporateNumber: "１１８０３０１０１８７７１"}, nil},
		{"sole proprietor without trade name", pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "山田　太郎", NameKana: "ﾔﾏﾀﾞ ﾀﾛｳ"}, nil},
		{"no business form", pay.SupplierInput{Name: "x"}, map[string]string{"business_form": "取引先の事業形態を選択してください"}},
		{"empty corporation", pay.SupplierInput{BusinessForm: pay.Corporation}, map[string]string{
			"corporate_number": "法人番号を入力してください", "name": "法人名を入力してください", "name_kana": "法人名（カナ）を入力してください"}},
		{"bad check digit", pay.SupplierInput{BusinessForm: pay.Corporation, Name: "a", NameKana: "ア", CorporateNumber: "2180301018771"}, map[string]string{
			"corporate_number": "法人番号が正しくありません。13桁の数字をご確認ください"}},
		{"kanji in kana", pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "山田", NameKana: "山田"}, map[string]string{
			"name_kana": "氏名（カナ）は全角カタカナで入力してください"}},
		{"oversize", pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: long, NameKana: "ア", BusinessName: long}, map[string]string{
			"name": "氏名は100文字以内で入力してください", "business_name": "屋号は100文字以内で入力してください"}},
		{"invisible characters", pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "山\u200b田", NameKana: "ア"}, map[string]string{
			"name": "氏名に使用できない文字が含まれています"}},
		{"invalid UTF-8", pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "\xff", NameKana: "ア"}, map[string]string{
			"name": "氏名に読み取れない文字が含まれています。入力し直してください"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Normalise()
			errs := in.Validate()
			got := map[string]string{}
			for _, e := range errs {
				got[e.Field] = e.Message
			}
			if tc.want == nil {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSupplierInputNormaliseDropsTheOtherFormsField(t *testing.T) {
	in := pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "山田", NameKana: "やまだ", CorporateNumber: "1180301018771", BusinessName: " 山田 商店 "}
	in.Normalise()
	assert.Equal(t, pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "山田", NameKana: "ヤマダ", BusinessName: "山田 商店"}, in)
	assert.Equal(t, []pay.LabeledValue{
		{Field: "business_form", Label: "取引先の事業形態", Value: "個人事業主"},
		{Field: "name", Label: "氏名", Value: "山田"},
		{Field: "name_kana", Label: "氏名（カナ）", Value: "ヤマダ"},
		{Field: "business_name", Label: "屋号", Value: "山田 商店"},
	}, in.Fields())

	corp := pay.SupplierInput{BusinessForm: pay.Corporation, Name: "山田商事", NameKana: "ヤマダショウジ", CorporateNumber: "1180-3010-18771", BusinessName: "x"}
	corp.Normalise()
	assert.Equal(t, "1180301018771", corp.CorporateNumber)
	assert.Empty(t, corp.BusinessName)
}

// directory is a two-bank stand-in for package banks, which has its own tests against
// the real zengin data.
type directory map[string]map[string]string

func (d directory) BankName(code string) (string, bool) {
	_, ok := d[code]
	return map[string]string{"0001": "みずほ銀行", "0005": "三菱ＵＦＪ銀行"}[code], ok
}

func (d directory) BranchName(bank, branch string) (string, bool) {
	n, ok := d[bank][branch]
	return n, ok
}

func TestAccountInputCheck(t *testing.T) {
	dir := directory{"0001": {"001": "東京営業部"}, "0005": {"001": "本店"}}
	valid := pay.AccountInput{BankCode: "0001", BranchCode: "001", AccountType: pay.AccountOrdinary, AccountNumber: "１２３４５６７", HolderName: "カ）ヤマダショウジ"}
	got, errs := valid.Check(dir)
	assert.Empty(t, errs)
	assert.Equal(t, pay.CheckedAccount{
		AccountInput: pay.AccountInput{BankCode: "0001", BranchCode: "001", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"},
		BankName:     "みずほ銀行", BranchName: "東京営業部",
	}, got)
	assert.Equal(t, "みずほ銀行（0001）", got.Fields()[0].Value)

	for _, tc := range []struct {
		name   string
		change func(*pay.AccountInput)
		field  string
		msg    string
	}{
		{"no bank", func(a *pay.AccountInput) { a.BankCode = "" }, "bank_code", "金融機関を選択してください"},
		{"unknown bank", func(a *pay.AccountInput) { a.BankCode = "9999" }, "bank_code", "金融機関コード9999は見つかりません。金融機関を選び直してください"},
		{"short bank code", func(a *pay.AccountInput) { a.BankCode = "01" }, "bank_code", "金融機関コードは4桁の数字です。金融機関を選び直してください"},
		{"unknown branch", func(a *pay.AccountInput) { a.BranchCode = "999" }, "branch_code", "みずほ銀行に支店コード999の支店は見つかりません。支店を選び直してください"},
		{"branch of another bank", func(a *pay.AccountInput) { a.BankCode = "9999" }, "branch_code", "金融機関を選んでから支店を選択してください"},
		{"no type", func(a *pay.AccountInput) { a.AccountType = pay.AccountDefault }, "account_type", "口座種別（普通・当座）を選択してください"},
		{"6 digits", func(a *pay.AccountInput) { a.AccountNumber = "123456" }, "account_number", "口座番号は7桁の数字で入力してください"},
		{"8 digits", func(a *pay.AccountInput) { a.AccountNumber = "12345678" }, "account_number", "口座番号は7桁の数字で入力してください"},
		{"kanji holder", func(a *pay.AccountInput) { a.HolderName = "山田商事" }, "holder_name", "口座名義に「山」は使えません。カタカナ・英数字で入力してください"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := valid
			tc.change(&in)
			_, errs := in.Check(dir)
			assert.Equal(t, tc.msg, errs.For(tc.field))
		})
	}
}

func TestAccountTypeFromForm(t *testing.T) {
	for v, want := range map[string]pay.AccountType{"2": pay.AccountOrdinary, "1": pay.AccountCurrent, "0": pay.AccountDefault, "4": pay.AccountDefault, "": pay.AccountDefault, "x": pay.AccountDefault} {
		assert.Equal(t, want, pay.AccountTypeFromForm(v), v)
	}
}
