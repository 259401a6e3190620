package suppliers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

func supplierCount(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM suppliers WHERE buyer_id = $1 AND deleted_at IS NULL`, buyerID))
	return n
}

func bankAccountCount(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM supplier_accounts WHERE buyer_id = $1`, buyerID))
	return n
}

var testBankAccount = store.AccountFields{BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
	AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ"}

func newSupplier(t *testing.T, buyerID int64, name string) (store.Supplier, store.SupplierAccount) {
	t.Helper()
	ctx := context.Background()
	acct := testBankAccount
	s, err := webtest.Store().CreateSupplier(ctx, buyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: name, NameKana: "ヤマダショウジ", CorporateNumber: "2010401099991"}, &acct)
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, buyerID, s.ID)
	require.NoError(t, err)
	return s, accts[0]
}

func TestSupplierListEmptyStateAndGroups(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Get("/suppliers")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/suppliers?status=enable", res.Header.Get("Location"))

	res = c.Get("/suppliers?status=enable")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "登録済みの取引先はまだありません")
	assert.Contains(t, res.Body, `href="/suppliers/add/company"`)
	assert.Contains(t, res.Body, "有効（0件）")

	ctx := context.Background()
	rejected, _ := newSupplier(t, u.BuyerID, "否認商事株式会社")
	require.NoError(t, webtest.Store().SetSupplierStatus(ctx, u.BuyerID, rejected.ID, pay.SupplierRejected))
	newSupplier(t, u.BuyerID, "有効商事株式会社")
	res = c.Get("/suppliers?status=enable")
	assert.Contains(t, res.Body, "有効商事株式会社")
	assert.NotContains(t, res.Body, "否認商事株式会社")
	assert.Contains(t, res.Body, "有効（1件）")
	assert.Contains(t, res.Body, "否認（1件）")
	assert.Contains(t, res.Body, "未承認")
	res = c.Get("/suppliers?status=disable")
	assert.Contains(t, res.Body, "否認商事株式会社")
	assert.NotContains(t, res.Body, "有効商事株式会社")
}

func TestSupplierListPages(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	for i := range 45 {
		_, err := webtest.Store().CreateSupplier(context.Background(), u.BuyerID, pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "取引先" + strconv.Itoa(i+1), NameKana: "トリヒキサキ"}, nil)
		require.NoError(t, err)
	}
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Get("/suppliers?status=enable")
	assert.Contains(t, res.Body, "取引先45")
	assert.NotContains(t, res.Body, ">取引先25<", "20 per page")
	assert.Contains(t, res.Body, `aria-current="page"><span class="visually-hidden">ページ</span>1`)
	assert.Contains(t, res.Body, `href="/suppliers?page=3&amp;status=enable"`)

	res = c.Get("/suppliers?status=enable&page=3")
	assert.Contains(t, res.Body, ">取引先5<")
	assert.Contains(t, res.Body, ">取引先1<")
	assert.NotContains(t, res.Body, ">取引先6<")

	res = c.Get("/suppliers?status=enable&page=9")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "beyond the last page goes to the last page")
	assert.Equal(t, "/suppliers?page=3&status=enable", res.Header.Get("Location"))
	res = c.Get("/suppliers?status=enable&page=abc")
	assert.Equal(t, http.StatusOK, res.StatusCode, "a bad page number is the first page")
}

// TestAddCorporationSupplierWithoutJavaScript walks the wizard as a browser without
// JavaScript does: links to choose, forms to answer, one question per screen.
func TestAddCorporationSupplierWithoutJavaScript(t *testing.T) {
	env := webtest.New(t)
	require.NoError(t, webtest.Store().SaveCorporations(context.Background(), []store.Corporation{
		{CorporateNumber: "2010401099991", Name: "山田商事株式会社", NameKana: "ヤマダショウジ", Address: "東京都港区芝公園４丁目２－８"}}))
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Get("/suppliers/add/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "取引先の事業形態")
	webtest.AssertFieldError(t, c.Post("/suppliers/add/company", url.Values{"step": {"business_form"}}), "business_form", "取引先の事業形態を選択してください")

	res = c.Post("/suppliers/add/company", url.Values{"step": {"business_form"}, "business_form": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = c.Get("/suppliers/add/company")
	assert.Contains(t, res.Body, "取引先情報の入力（法人）")

	// Search by name, then by number with a wrong check digit.
	res = c.Get("/suppliers/add/company?corp_q=" + url.QueryEscape("山田"))
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "法人が1件見つかりました")
	assert.Contains(t, res.Body, `href="/suppliers/add/company?corporate_number=2010401099991"`)
	webtest.AssertFieldError(t, c.Get("/suppliers/add/company?corp_q=3010401099991"), "corp_q", "法人番号が正しくありません。13桁の数字をご確認ください")

	res = c.Get("/suppliers/add/company?corporate_number=2010401099991")
	assert.Contains(t, res.Body, `value="山田商事株式会社"`, "choosing a result fills the form")
	assert.Contains(t, res.Body, `value="ヤマダショウジ"`)

	// Bad answers are refused and kept.
	res = c.Post("/suppliers/add/company", url.Values{"corporate_number": {"2010401099992"}, "name": {strings.Repeat("株", 101)}, "name_kana": {"山田"}})
	webtest.AssertFieldError(t, res, "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください")
	webtest.AssertFieldError(t, res, "name", "法人名は100文字以内で入力してください")
	webtest.AssertFieldError(t, res, "name_kana", "法人名（カナ）は全角カタカナで入力してください")

	res = c.Post("/suppliers/add/company", url.Values{"corporate_number": {"２０１０４０１０９９９９１"}, "name": {"山田商事株式会社"}, "name_kana": {"やまだしょうじ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/suppliers/add/bank", res.Header.Get("Location"))

	// Bank: the 8 major banks first, or a search.
	res = c.Get("/suppliers/add/bank")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "主な金融機関")
	for _, b := range pay.MajorBanks {
		assert.Contains(t, res.Body, `href="/suppliers/add/bank?bank_code=`+b.Code+`"`)
	}
	res = c.Get("/suppliers/add/bank?bank_q=" + url.QueryEscape("しずおか"))
	assert.Contains(t, res.Body, "静岡銀行")
	res = c.Get("/suppliers/add/bank?bank_q=" + url.QueryEscape("存在しない銀行名"))
	assert.Contains(t, res.Body, "に当てはまる金融機関はありません")
	webtest.AssertFieldError(t, c.Get("/suppliers/add/bank?bank_code=9999"), "bank_q", "金融機関コード9999は見つかりません。金融機関を選び直してください")

	// Branch.
	res = c.Get("/suppliers/add/bank?bank_code=0001")
	assert.Contains(t, res.Body, "みずほ銀行の支店を検索")
	res = c.Get("/suppliers/add/bank?bank_code=0001&step=branch&branch_q=" + url.QueryEscape("とうきょう"))
	assert.Contains(t, res.Body, "東京営業部")
	assert.Contains(t, res.Body, `href="/suppliers/add/bank?bank_code=0001&amp;branch_code=001"`)

	// Details, with every kind of bad input first.
	res = c.Get("/suppliers/add/bank?bank_code=0001&branch_code=001")
	assert.Contains(t, res.Body, "口座種別")
	base := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"1234567"}, "holder_name": {"ヤマダショウジ（カ"}}
	for _, tc := range []struct{ field, value, msg string }{
		{"account_number", "123456", "口座番号は7桁の数字で入力してください"},
		{"account_number", "12345678", "口座番号は7桁の数字で入力してください"},
		{"holder_name", "山田商事", "口座名義に「山」は使えません。カタカナ・英数字で入力してください"},
		{"account_type", "3", "口座種別（普通・当座）を選択してください"},
	} {
		form := url.Values{}
		for k, v := range base {
			form[k] = v
		}
		form.Set(tc.field, tc.value)
		webtest.AssertFieldError(t, c.Post("/suppliers/add/bank", form), tc.field, tc.msg)
	}
	form := url.Values{}
	for k, v := range base {
		form[k] = v
	}
	form.Set("branch_code", "998")
	webtest.AssertFieldError(t, c.Post("/suppliers/add/bank", form), "branch_q", "みずほ銀行に支店コード998の支店は見つかりません。支店を選び直してください")
	assert.Zero(t, supplierCount(t, u.BuyerID), "nothing stored while the wizard runs")

	res = c.Post("/suppliers/add/bank", base)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/suppliers/add/confirm", res.Header.Get("Location"))

	// Check answers, with 変更 links back to each step.
	res = c.Get("/suppliers/add/confirm")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"山田商事株式会社", "ヤマダショウジ", "2010401099991", "みずほ銀行（0001）", "東京営業部（001）", "普通", "1234567", "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ",
		`href="/suppliers/add/company?step=business_form"`, `href="/suppliers/add/bank?step=bank"`, `href="/suppliers/add/company#name"`} {
		assert.Contains(t, res.Body, want)
	}
	res = c.Post("/suppliers/add/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	assert.Regexp(t, `^/suppliers/\d+$`, loc)

	list, total, err := webtest.Store().Suppliers(context.Background(), store.SupplierFilter{BuyerID: u.BuyerID, Group: pay.SupplierEnable, Size: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	assert.Equal(t, pay.SupplierUnapproved, list[0].Status)
	assert.Equal(t, "2010401099991", list[0].CorporateNumber)
	accts, err := webtest.Store().SupplierAccounts(context.Background(), u.BuyerID, list[0].ID)
	require.NoError(t, err)
	require.Len(t, accts, 1)
	assert.Equal(t, "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ", accts[0].HolderName)

	res = c.Get(loc)
	assert.Contains(t, res.Body, "取引先を登録しました")
	assert.Contains(t, res.Body, "東京営業部")

	// The wizard forgot its answers.
	res = c.Get("/suppliers/add/confirm")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/suppliers/add/company", res.Header.Get("Location"))
}

func TestAddSoleProprietorSupplier(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	c.Post("/suppliers/add/company", url.Values{"step": {"business_form"}, "business_form": {"2"}})
	res := c.Get("/suppliers/add/company")
	assert.Contains(t, res.Body, "氏名（カナ）")
	assert.NotContains(t, res.Body, "法人番号")
	res = c.Post("/suppliers/add/company", url.Values{"name": {"鈴木　一郎"}, "name_kana": {"ｽｽﾞｷ ｲﾁﾛｳ"}, "business_name": {"鈴木デザイン"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Post("/suppliers/add/bank", url.Values{"bank_code": {"9900"}, "branch_code": {"018"}, "account_type": {"2"}, "account_number": {"７６５４３２１"}, "holder_name": {"すずき　いちろう"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Get("/suppliers/add/confirm")
	assert.Contains(t, res.Body, "ｽｽﾞｷ ｲﾁﾛｳ")
	assert.Contains(t, res.Body, "鈴木デザイン")
	res = c.Post("/suppliers/add/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, 1, supplierCount(t, u.BuyerID))
	assert.Equal(t, 1, bankAccountCount(t, u.BuyerID))
}

func TestLeavingTheWizardClearsItsAnswers(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	c.Post("/suppliers/add/company", url.Values{"step": {"business_form"}, "business_form": {"2"}})
	res := c.Post("/suppliers/add/company", url.Values{"name": {"鈴木　一郎"}, "name_kana": {"スズキ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, http.StatusOK, c.Get("/suppliers/add/bank").StatusCode, "inside the workflow the answers stay")
	c.Get("/notifications")
	res = c.Get("/suppliers/add/bank")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "after leaving, the wizard starts again")
	assert.Equal(t, "/suppliers/add/company", res.Header.Get("Location"))
}

func TestSupplierPagesAreScopedByBuyer(t *testing.T) {
	env := webtest.New(t)
	owner := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	s, acct := newSupplier(t, owner.BuyerID, "他社の取引先株式会社")
	invID, err := webtest.Store().CreateInvoice(context.Background(), owner.BuyerID, store.NewInvoice{SupplierID: s.ID, InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.TransferCompleted, Amount: 1000})
	require.NoError(t, err)
	c := env.Client(t)
	c.SignIn(other.EmailAddress)
	id := strconv.FormatInt(s.ID, 10)
	aid := strconv.FormatInt(acct.ID, 10)
	for _, p := range []string{"/suppliers/" + id, "/suppliers/" + id + "/delete", "/suppliers/" + id + "/accounts/new",
		"/suppliers/" + id + "/accounts/" + aid + "/edit", "/suppliers/" + id + "/payment-history",
		"/suppliers/" + id + "/payment-history/" + strconv.FormatInt(invID, 10), "/suppliers/abc", "/suppliers/-1"} {
		assert.Equal(t, http.StatusNotFound, c.Get(p).StatusCode, p)
	}
	res := c.Get("/suppliers?status=enable")
	assert.NotContains(t, res.Body, "他社の取引先株式会社")
	form := url.Values{"bank_code": {"0005"}, "branch_code": {"001"}, "account_type": {"1"}, "account_number": {"7777777"}, "holder_name": {"ﾄﾞﾛﾎﾞｳ"}}
	assert.Equal(t, http.StatusNotFound, c.Post("/suppliers/"+id+"/accounts/"+aid+"/edit", form).StatusCode)
	assert.Equal(t, http.StatusNotFound, c.Post("/suppliers/"+id+"/accounts/new", form).StatusCode)
	assert.Equal(t, http.StatusNotFound, c.Post("/suppliers/"+id+"/delete", nil).StatusCode)

	got, err := webtest.Store().SupplierAccount(context.Background(), owner.BuyerID, s.ID, acct.ID)
	require.NoError(t, err, "still there")
	assert.Equal(t, "1234567", got.AccountNumber, "unchanged")
	assert.Equal(t, 1, bankAccountCount(t, owner.BuyerID))
	assert.Equal(t, 1, supplierCount(t, owner.BuyerID))
}

func TestDeleteSupplier(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	s, acct := newSupplier(t, u.BuyerID, "削除商事株式会社")
	id := strconv.FormatInt(s.ID, 10)

	invID, err := webtest.Store().CreateInvoice(context.Background(), u.BuyerID, store.NewInvoice{SupplierID: s.ID, AccountID: &acct.ID,
		InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.InProgress, Amount: 55000})
	require.NoError(t, err)
	res := c.Get("/suppliers/" + id + "/delete")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "この取引先への支払いが進行中のため削除できません")
	assert.NotContains(t, res.Body, ">はい<")
	res = c.Post("/suppliers/"+id+"/delete", nil)
	assert.Equal(t, http.StatusConflict, res.StatusCode)
	assert.Contains(t, res.Body, "この取引先への支払いが進行中のため削除できません")
	assert.Equal(t, 1, supplierCount(t, u.BuyerID))

	_, err = webtest.Store().DB.Exec(`UPDATE invoices SET examination_status = $1 WHERE id = $2`, pay.Cancel, invID)
	require.NoError(t, err)
	res = c.Get("/suppliers/" + id + "/delete")
	assert.Contains(t, res.Body, "取引先を削除しますか？")
	assert.Contains(t, res.Body, "はい")
	assert.Contains(t, res.Body, "いいえ")
	res = c.Post("/suppliers/"+id+"/delete", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Zero(t, supplierCount(t, u.BuyerID))
	res = c.Get("/suppliers?status=enable")
	assert.Contains(t, res.Body, "取引先を削除しました")
	assert.Equal(t, http.StatusNotFound, c.Get("/suppliers/"+id).StatusCode)
}

func TestAddAndEditAccounts(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	webtest.GiveFactor(t, u, time.Now()) // the step-up has its own test
	s, acct := newSupplier(t, u.BuyerID, "口座商事株式会社")
	require.NoError(t, webtest.Store().SetSupplierStatus(context.Background(), u.BuyerID, s.ID, pay.SupplierApproved))
	id := strconv.FormatInt(s.ID, 10)
	aid := strconv.FormatInt(acct.ID, 10)

	res := c.Get("/suppliers/" + id)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "承認済")
	assert.Contains(t, res.Body, `href="/suppliers/`+id+`/accounts/`+aid+`/edit"`)

	dup := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"1234567"}, "holder_name": {"ﾔﾏﾀﾞ"}}
	webtest.AssertFieldError(t, c.Post("/suppliers/"+id+"/accounts/new", dup), "account_number", "この口座は既にこの取引先に登録されています")
	assert.Equal(t, 1, bankAccountCount(t, u.BuyerID))

	res = c.Get("/suppliers/" + id + "/accounts/" + aid + "/edit")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `value="1234567"`, "the form starts from the account")
	assert.Contains(t, res.Body, "みずほ銀行（0001）")

	edit := url.Values{"bank_code": {"0005"}, "branch_code": {"001"}, "account_type": {"1"}, "account_number": {"0007777"}, "holder_name": {"ｶ)ﾔﾏﾀﾞ"}}
	res = c.Post("/suppliers/"+id+"/accounts/"+aid+"/edit", edit)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	got, err := webtest.Store().SupplierAccount(context.Background(), u.BuyerID, s.ID, acct.ID)
	require.NoError(t, err)
	assert.Equal(t, "三菱ＵＦＪ銀行", got.BankName)
	assert.Equal(t, pay.AccountCurrent, got.AccountType)
	sup, err := webtest.Store().Supplier(context.Background(), u.BuyerID, s.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierUnapproved, sup.Status, "a changed account is checked again")

	_, err = webtest.Store().CreateInvoice(context.Background(), u.BuyerID, store.NewInvoice{SupplierID: s.ID, AccountID: &acct.ID,
		InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.InProgressExaminationChecked, Amount: 1000})
	require.NoError(t, err)
	edit.Set("account_number", "0008888")
	webtest.AssertFieldError(t, c.Post("/suppliers/"+id+"/accounts/"+aid+"/edit", edit), "account_number",
		"この口座への支払いが進行中のため変更できません。支払いが完了してから変更するか、新しい口座を追加してください")

	res = c.Post("/suppliers/"+id+"/accounts/new", url.Values{"bank_code": {"0009"}, "branch_code": {"015"}, "account_type": {"2"}, "account_number": {"1111111"}, "holder_name": {"ヤマダ　ショウジ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, 2, bankAccountCount(t, u.BuyerID))
}

func TestSupplierHistory(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	s, acct := newSupplier(t, u.BuyerID, "履歴商事株式会社")
	id := strconv.FormatInt(s.ID, 10)

	res := c.Get("/suppliers/" + id + "/payment-history")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "この取引先への支払いはまだありません")

	ctx := context.Background()
	payID, err := webtest.Store().CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: s.ID, AccountID: &acct.ID, InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.TransferCompleted, Amount: 1234567, Fee: 37037})
	require.NoError(t, err)
	reqID, err := webtest.Store().CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: s.ID, InvoiceType: pay.InvoiceRequestBuyer, ExaminationStatus: pay.WaitingForPayment, Amount: 5000})
	require.NoError(t, err)

	res = c.Get("/suppliers/" + id + "/payment-history")
	assert.Contains(t, res.Body, pay.InvoiceNumber(payID))
	assert.Contains(t, res.Body, "¥1,234,567")
	assert.Contains(t, res.Body, `href="/suppliers/`+id+`/payment-history/`+strconv.FormatInt(payID, 10)+`"`)
	assert.Contains(t, res.Body, `href="/suppliers/`+id+`/collection-history/`+strconv.FormatInt(reqID, 10)+`"`)

	res = c.Get("/suppliers/" + id + "/payment-history/" + strconv.FormatInt(payID, 10))
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"振込完了", "¥1,234,567", "¥37,037", "¥1,271,604", "みずほ銀行"} {
		assert.Contains(t, res.Body, want)
	}
	res = c.Get("/suppliers/" + id + "/collection-history/" + strconv.FormatInt(reqID, 10))
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "支払待ち")
	// A payment under collection-history (and a request under payment-history) is taken
	// to its own path with 303.
	res = c.Get("/suppliers/" + id + "/collection-history/" + strconv.FormatInt(payID, 10))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a payment is not a request")
	assert.Equal(t, "/suppliers/"+id+"/payment-history/"+strconv.FormatInt(payID, 10), res.Header.Get("Location"))
	res = c.Get("/suppliers/" + id + "/payment-history/" + strconv.FormatInt(reqID, 10))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a request is not a payment")
	assert.Equal(t, "/suppliers/"+id+"/collection-history/"+strconv.FormatInt(reqID, 10), res.Header.Get("Location"))
	assert.Equal(t, http.StatusNotFound, c.Get("/suppliers/"+id+"/payment-history/999999999").StatusCode)
}
