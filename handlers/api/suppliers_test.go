package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/banks"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/nta"
	"cardpay/pay"
	"cardpay/store"
)

// signedInAs is a client with tokens of u.
func (e *env) signedInAs(t *testing.T, u store.User) *client {
	t.Helper()
	c := e.client(t)
	c.login(u.EmailAddress)
	return c
}

// counts is how many suppliers (deleted ones too) and accounts the buyer has.
func counts(t *testing.T, buyerID int64) (suppliers, accounts int) {
	t.Helper()
	require.NoError(t, webtest.Store().DB.Get(&suppliers, `SELECT count(*) FROM suppliers WHERE buyer_id = $1`, buyerID))
	require.NoError(t, webtest.Store().DB.Get(&accounts, `SELECT count(*) FROM supplier_accounts WHERE buyer_id = $1`, buyerID))
	return suppliers, accounts
}

func mizuhoAccount() map[string]any {
	return map[string]any{
		"bank_code": "0001", "branch_code": "001", "account_type": 2,
		"account_number": "１２３４５６７", "holder_name": "カ）テストショウテン",
	}
}

func corporationBody() map[string]any {
	return map[string]any{
		"name": " 株式会社　テスト商店 ", "name_kana": "かぶしきがいしゃてすとしょうてん",
		"corporate_number": "7000-0120-50002", "account": mizuhoAccount(),
	}
}

// createSupplier registers a corporation with one account and answers its id and the
// account's.
func createSupplier(t *testing.T, c *client, name string) (supplierID, accountID int64) {
	t.Helper()
	r := c.post("/suppliers/corporation", with(corporationBody(), "name", name))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	accts := r.Body["accounts"].([]any)
	require.Len(t, accts, 1)
	return int64(r.num("id")), int64(accts[0].(map[string]any)["id"].(float64))
}

func TestCreateCorporationSupplierWithAccount(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)

	r := c.post("/suppliers/corporation", corporationBody())
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	id := r.num("id")
	for k, v := range map[string]any{
		"business_form": float64(1), "name": "株式会社　テスト商店", "name_kana": "カブシキガイシャテストショウテン",
		"corporate_number": "7000012050002", "business_name": "", "status": float64(3), "status_label": "未承認",
	} {
		assert.Equal(t, v, r.Body[k], k)
	}
	assert.True(t, strings.HasSuffix(r.str("created_at"), "+09:00"), r.str("created_at"))
	accts := r.Body["accounts"].([]any)
	require.Len(t, accts, 1)
	acct := accts[0].(map[string]any)
	for k, v := range map[string]any{
		"supplier_id": id, "bank_code": "0001", "bank_name": "みずほ銀行", "branch_code": "001", "branch_name": "東京営業部",
		"account_type": float64(2), "account_type_label": "普通", "account_number": "1234567", "holder_name": "ｶ)ﾃｽﾄｼﾖｳﾃﾝ",
	} {
		assert.Equal(t, v, acct[k], k)
	}

	got := c.get(fmt.Sprintf("/suppliers/%d", int64(id)))
	require.Equal(t, http.StatusOK, got.Status, got.String())
	assert.Equal(t, r.Body, got.Body, "GET answers what POST answered")

	list := c.get("/suppliers")
	require.Equal(t, http.StatusOK, list.Status, list.String())
	assert.Equal(t, float64(1), list.num("count_all"))
	require.Len(t, list.Body["suppliers"], 1)
	item := list.Body["suppliers"].([]any)[0].(map[string]any)
	assert.Equal(t, id, item["id"])
	assert.NotContains(t, item, "accounts", "the list leaves the accounts out")

	s, a := counts(t, u.BuyerID)
	assert.Equal(t, 1, s)
	assert.Equal(t, 1, a)
}

func TestCreateSoleProprietorSupplier(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.signedInAs(t, u)

	r := c.post("/suppliers/sole_proprietor", map[string]any{
		"name": "佐藤 花子", "name_kana": "サトウ ハナコ", "business_name": "さとう工房",
		"corporate_number": "not a number: ignored for a sole proprietor", "business_form": 1,
	})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	assert.Equal(t, float64(2), r.num("business_form"), "the path decides the business form")
	assert.Equal(t, "", r.str("corporate_number"))
	assert.Equal(t, "さとう工房", r.str("business_name"))
	assert.Equal(t, []any{}, r.Body["accounts"])

	r = c.post("/suppliers/sole_proprietor", map[string]any{"name": "", "name_kana": ""})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, map[string]string{"name": "氏名を入力してください", "name_kana": "氏名（カナ）を入力してください"}, r.fieldErrors())
	s, a := counts(t, u.BuyerID)
	assert.Equal(t, 1, s)
	assert.Equal(t, 0, a)
}

func TestCreateSupplierRefusesBadInputAndStoresNothing(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	_, ok := banks.ByCode("0002")
	require.False(t, ok, "0002 is no bank")
	_, ok = banks.BranchByCode("0001", "999")
	require.False(t, ok, "みずほ銀行 has no branch 999")

	account := func(kv ...any) map[string]any {
		return with(corporationBody(), "account", with(mizuhoAccount(), kv...))
	}
	cases := []struct {
		name  string
		path  string
		body  any
		field string
		msg   string
	}{
		{"unknown bank", "corporation", account("bank_code", "0002"), "account.bank_code", "金融機関コード0002は見つかりません。金融機関を選び直してください"},
		{"unknown branch", "corporation", account("branch_code", "999"), "account.branch_code", "みずほ銀行に支店コード999の支店は見つかりません。支店を選び直してください"},
		{"a bank code of 5 digits", "corporation", account("bank_code", "00011"), "account.bank_code", "金融機関コードは4桁の数字です。金融機関を選び直してください"},
		{"no branch", "corporation", account("branch_code", ""), "account.branch_code", "支店を選択してください"},
		{"6-digit account number", "corporation", account("account_number", "123456"), "account.account_number", "口座番号は7桁の数字で入力してください"},
		{"8-digit account number", "corporation", account("account_number", "12345678"), "account.account_number", "口座番号は7桁の数字で入力してください"},
		{"no account number", "corporation", account("account_number", " "), "account.account_number", "口座番号を入力してください"},
		{"kanji holder name", "corporation", account("holder_name", "山田太郎"), "account.holder_name", "口座名義に「山」は使えません。カタカナ・英数字で入力してください"},
		{"emoji holder name", "corporation", account("holder_name", "ヤマダ😀"), "account.holder_name", "口座名義に「😀」は使えません。カタカナ・英数字で入力してください"},
		{"holder name too long", "corporation", account("holder_name", strings.Repeat("ガ", 16)), "account.holder_name", "口座名義は半角30文字以内で入力してください（現在32文字）"},
		{"no holder name", "corporation", account("holder_name", ""), "account.holder_name", "口座名義を入力してください"},
		{"account type 0", "corporation", account("account_type", 0), "account.account_type", "口座種別（普通・当座）を選択してください"},
		{"account type 3", "corporation", account("account_type", 3), "account.account_type", "口座種別（普通・当座）を選択してください"},
		{"account type as a string", "corporation", account("account_type", "2"), "account.account_type", "account.account_typeは整数で指定してください"},
		{"account as a string", "corporation", with(corporationBody(), "account", "みずほ"), "account", "accountは正しい形式で指定してください"},
		{"bad check digit", "corporation", with(corporationBody(), "corporate_number", "7000012050003"), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"12-digit corporate number", "corporation", with(corporationBody(), "corporate_number", "000012050002"), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"no corporate number", "corporation", with(corporationBody(), "corporate_number", ""), "corporate_number", "法人番号を入力してください"},
		{"corporate number as a number", "corporation", with(corporationBody(), "corporate_number", 7000012050002), "corporate_number", "corporate_numberは文字列で指定してください"},
		{"name too long", "corporation", with(corporationBody(), "name", strings.Repeat("株", 101)), "name", "法人名は100文字以内で入力してください"},
		{"name as a number", "corporation", with(corporationBody(), "name", 42), "name", "nameは文字列で指定してください"},
		{"no name", "corporation", with(corporationBody(), "name", "  "), "name", "法人名を入力してください"},
		{"name with a control character", "corporation", with(corporationBody(), "name", "テスト\u200b商店"), "name", "法人名に使用できない文字が含まれています"},
		{"latin kana", "corporation", with(corporationBody(), "name_kana", "Test"), "name_kana", "法人名（カナ）は全角カタカナで入力してください"},
		{"kana too long", "corporation", with(corporationBody(), "name_kana", strings.Repeat("ア", 101)), "name_kana", "法人名（カナ）は100文字以内で入力してください"},
		{"trade name too long", "sole_proprietor", map[string]any{"name": "佐藤花子", "name_kana": "サトウハナコ", "business_name": strings.Repeat("屋", 101)}, "business_name", "屋号は100文字以内で入力してください"},
		{"sole proprietor with a bad account", "sole_proprietor", map[string]any{"name": "佐藤花子", "name_kana": "サトウハナコ", "account": with(mizuhoAccount(), "account_number", "12-34")}, "account.account_number", "口座番号は7桁の数字で入力してください"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.post("/suppliers/"+tc.path, tc.body)
			require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
			assert.Equal(t, "validation_error", r.str("status"))
			assert.Equal(t, tc.msg, r.fieldErrors()[tc.field], r.String())
		})
	}

	// Both parts are judged at once: every problem is named in one answer.
	r := c.post("/suppliers/corporation", with(corporationBody(), "name", "", "account", with(mizuhoAccount(), "account_number", "1", "holder_name", "漢字")))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, []string{"name", "account.account_number", "account.holder_name"}, fieldOrder(r))

	for _, body := range []string{`{"name": "株式会社テスト",`, `[]`, `{"name": "a"} x`} {
		r := c.post("/suppliers/corporation", body)
		assert.Equal(t, http.StatusBadRequest, r.Status, r.String())
	}
	s, a := counts(t, u.BuyerID)
	assert.Zero(t, s, "nothing stored")
	assert.Zero(t, a, "nothing stored")
}

func fieldOrder(r result) []string {
	var out []string
	for _, e := range r.Body["errors"].([]any) {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	return out
}

func TestSupplierList(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	first, _ := createSupplier(t, c, "一番目商事")
	second, _ := createSupplier(t, c, "二番目商事")
	rejected, _ := createSupplier(t, c, "否認商事")
	require.NoError(t, webtest.Store().SetSupplierStatus(context.Background(), u.BuyerID, rejected, pay.SupplierRejected))
	require.NoError(t, webtest.Store().SetSupplierStatus(context.Background(), u.BuyerID, first, pay.SupplierApproved))

	ids := func(r result) []int64 {
		var out []int64
		for _, s := range r.Body["suppliers"].([]any) {
			out = append(out, int64(s.(map[string]any)["id"].(float64)))
		}
		return out
	}
	r := c.get("/suppliers")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, []int64{second, first}, ids(r), "newest first")
	assert.Equal(t, float64(2), r.num("count_all"))
	assert.Equal(t, float64(0), r.num("page"))
	assert.Equal(t, float64(20), r.num("size"))
	assert.Equal(t, "承認済", r.Body["suppliers"].([]any)[1].(map[string]any)["status_label"])

	r = c.get("/suppliers?status=enable&page=1&size=1")
	assert.Equal(t, []int64{first}, ids(r))
	assert.Equal(t, float64(2), r.num("count_all"))
	r = c.get("/suppliers?status=disable")
	assert.Equal(t, []int64{rejected}, ids(r))
	assert.Equal(t, "否認", r.Body["suppliers"].([]any)[0].(map[string]any)["status_label"])
	r = c.get("/suppliers?page=0&size=1")
	assert.Equal(t, float64(2), r.num("count_all"), "stats read the count only")
	r = c.get("/suppliers?page=5")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, []any{}, r.Body["suppliers"], "past the end is an empty page")

	for query, field := range map[string]string{
		"status=all": "status", "status=ENABLE": "status", "page=-1": "page", "page=x": "page",
		"size=0": "size", "size=101": "size", "size=1.5": "size", "page=100001": "page",
	} {
		r := c.get("/suppliers?" + query)
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, query)
		assert.True(t, hasJapanese(r.fieldErrors()[field]), "%s: %s", query, r)
	}
	r = c.get("/suppliers?status=all")
	assert.Equal(t, "statusの「all」は指定できません。enable（有効：承認済・確認中・未承認）、disable（否認）、"+
		"または Approved（承認済）、Escalation（確認中）、Unapproved（未承認）、Rejected（否認）をカンマ区切りか繰り返しで指定してください",
		r.fieldErrors()["status"])

	// SPEC.md §7: a status list, repeated or comma-separated, of statuses (by name or
	// code) and groups; count_all counts the list asked for.
	escalated, _ := createSupplier(t, c, "確認中商事")
	require.NoError(t, webtest.Store().SetSupplierStatus(context.Background(), u.BuyerID, escalated, pay.SupplierEscalation))
	for query, want := range map[string][]int64{
		"status=Approved":                      {first},
		"status=Approved&status=Escalation":    {escalated, first},
		"status=Approved,Escalation":           {escalated, first},
		"status=Unapproved":                    {second},
		"status=Rejected&status=Approved":      {rejected, first},
		"status=4,1":                           {rejected, first},
		"status=enable":                        {escalated, second, first},
		"status=enable,Rejected":               {escalated, rejected, second, first},
		"status=Escalation&status=Escalation,": {escalated},
		"status=":                              {escalated, second, first},
	} {
		r := c.get("/suppliers?" + query)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", query, r)
		assert.Equal(t, want, ids(r), query)
		assert.Equal(t, float64(len(want)), r.num("count_all"), query)
	}
	r = c.get("/suppliers?status=Approved,Deleted&page=0&size=1")
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Contains(t, r.fieldErrors()["status"], "「Deleted」は指定できません")
	r = c.get("/suppliers?status=Approved&status=approved")
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Contains(t, r.fieldErrors()["status"], "「approved」")
}

func TestSupplierAccounts(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	webtest.GiveFactor(t, u, env.clock.Now()) // the step-up has its own test
	r := c.post("/suppliers/corporation", with(corporationBody(), "account", nil))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	id := int64(r.num("id"))
	base := fmt.Sprintf("/suppliers/%d/accounts", id)
	require.NoError(t, webtest.Store().SetSupplierStatus(context.Background(), u.BuyerID, id, pay.SupplierApproved))

	r = c.get(base)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, []any{}, r.Body["accounts"])

	r = c.post(base, map[string]any{"bank_code": "0009", "branch_code": "001", "account_type": 1, "account_number": "7654321", "holder_name": "てすと　しょうてん"})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	acctID := int64(r.num("id"))
	assert.Equal(t, "三井住友銀行", r.str("bank_name"))
	assert.Equal(t, "神保町", r.str("branch_name"))
	assert.Equal(t, "当座", r.str("account_type_label"))
	assert.Equal(t, "ﾃｽﾄ ｼﾖｳﾃﾝ", r.str("holder_name"))
	assert.Equal(t, float64(id), r.num("supplier_id"))
	assert.Equal(t, float64(3), c.get(fmt.Sprintf("/suppliers/%d", id)).num("status"), "a new account needs the operators' check again")

	second := c.post(base, mizuhoAccount())
	require.Equal(t, http.StatusCreated, second.Status, second.String())
	r = c.get(base)
	require.Len(t, r.Body["accounts"], 2)
	assert.Equal(t, float64(acctID), r.Body["accounts"].([]any)[0].(map[string]any)["id"], "oldest first")

	// The same account twice is a slip, said on the account number.
	r = c.post(base, mizuhoAccount())
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "同じ口座がこの取引先に既に登録されています。金融機関・支店・口座種別・口座番号をご確認ください", r.fieldErrors()["account_number"])

	// PUT replaces the details.
	r = c.put(fmt.Sprintf("%s/%d", base, acctID), map[string]any{"bank_code": "9900", "branch_code": "018", "account_type": 2, "account_number": "1111111", "holder_name": "ﾃｽﾄ"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "ゆうちょ銀行", r.str("bank_name"))
	assert.Equal(t, "1111111", r.str("account_number"))
	assert.Equal(t, float64(acctID), r.num("id"))
	// Into a copy of the other account: refused.
	r = c.put(fmt.Sprintf("%s/%d", base, acctID), mizuhoAccount())
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.NotEmpty(t, r.fieldErrors()["account_number"])

	// Bad details change nothing.
	before := c.get(base).Raw
	for name, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"unknown bank":    {with(mizuhoAccount(), "bank_code", "0002"), "bank_code"},
		"unknown branch":  {with(mizuhoAccount(), "branch_code", "999"), "branch_code"},
		"6 digits":        {with(mizuhoAccount(), "account_number", "123456"), "account_number"},
		"8 digits":        {with(mizuhoAccount(), "account_number", "12345678"), "account_number"},
		"kanji holder":    {with(mizuhoAccount(), "holder_name", "山田"), "holder_name"},
		"oversize holder": {with(mizuhoAccount(), "holder_name", strings.Repeat("ア", 31)), "holder_name"},
		"oversize bank":   {with(mizuhoAccount(), "bank_code", strings.Repeat("1", 5000)), "bank_code"},
	} {
		for _, send := range []func() result{
			func() result { return c.post(base, tc.body) },
			func() result { return c.put(fmt.Sprintf("%s/%d", base, acctID), tc.body) },
		} {
			r := send()
			require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s: %s", name, r)
			assert.Equal(t, tc.field, fieldOrder(r)[0], "%s: field names are unprefixed here: %s", name, r)
			assert.True(t, hasJapanese(r.fieldErrors()[tc.field]), "%s: %s", name, r)
		}
	}
	assert.Equal(t, before, c.get(base).Raw, "nothing changed")
	r = c.put(fmt.Sprintf("%s/%d", base, acctID), `{"account_type": "普通"}`)
	assert.Equal(t, "account_typeは整数で指定してください", r.fieldErrors()["account_type"])
	r = c.post(base, `{"bank_code": `)
	assert.Equal(t, http.StatusBadRequest, r.Status)

	// Ids that are not an account of this supplier.
	other, otherAcct := createSupplier(t, c, "別の取引先")
	for _, path := range []string{
		fmt.Sprintf("%s/%d", base, otherAcct), // an account of another supplier of the same buyer
		fmt.Sprintf("/suppliers/%d/accounts/%d", other, acctID),
		base + "/999999999", base + "/abc", base + "/0", base + "/-1",
	} {
		for _, body := range []any{mizuhoAccount(), map[string]any{}} {
			r := c.put(path, body)
			assert.Equal(t, http.StatusNotFound, r.Status, "%s: %s", path, r)
		}
	}
	_, a := counts(t, u.BuyerID)
	assert.Equal(t, 3, a)
}

func TestNonNumericSupplierIDsAreNotFound(t *testing.T) {
	env := newEnv(t)
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	for _, id := range []string{"abc", "0", "-1", "1e3", "99999999999999999999", "%20"} {
		assert.Equal(t, http.StatusNotFound, c.get("/suppliers/"+id).Status, id)
		assert.Equal(t, http.StatusNotFound, c.call(http.MethodDelete, "/suppliers/"+id, nil).Status, id)
		assert.Equal(t, http.StatusNotFound, c.get("/suppliers/"+id+"/accounts").Status, id)
		assert.Equal(t, http.StatusNotFound, c.post("/suppliers/"+id+"/accounts", mizuhoAccount()).Status, id)
	}
}

func TestBuyersNeverSeeOrChangeEachOthersSuppliers(t *testing.T) {
	env := newEnv(t)
	a := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	bUser := webtest.NewBuyer(t, pay.Corporation, "")
	b := env.signedInAs(t, bUser)
	bSupplier, bAccount := createSupplier(t, b, "Bの取引先")
	aSupplier, _ := createSupplier(t, a, "Aの取引先")
	snapshot := func() string {
		return b.get(fmt.Sprintf("/suppliers/%d", bSupplier)).Raw + b.get(fmt.Sprintf("/suppliers/%d/accounts", bSupplier)).Raw
	}
	before := snapshot()
	_, bAccountsBefore := counts(t, bUser.BuyerID)

	sp := fmt.Sprintf("/suppliers/%d", bSupplier)
	for _, r := range []result{
		a.get(sp),
		a.get(sp + "/accounts"),
		a.post(sp+"/accounts", mizuhoAccount()),
		a.put(fmt.Sprintf("%s/accounts/%d", sp, bAccount), with(mizuhoAccount(), "account_number", "9999999")),
		a.put(fmt.Sprintf("/suppliers/%d/accounts/%d", aSupplier, bAccount), with(mizuhoAccount(), "account_number", "9999999")),
		a.delete(sp),
	} {
		assert.Equal(t, http.StatusNotFound, r.Status, r.String())
		assert.Equal(t, "not_found", r.str("status"))
	}
	// A broken body to another buyer's supplier is still only a broken body.
	assert.Equal(t, http.StatusBadRequest, a.post(sp+"/accounts", `{`).Status)
	// Even an invalid one is 404: what is not A's is not judged.
	assert.Equal(t, http.StatusNotFound, a.post(sp+"/accounts", map[string]any{}).Status)
	for _, q := range []string{"", "?status=disable"} {
		for _, s := range a.get("/suppliers" + q).Body["suppliers"].([]any) {
			assert.NotEqual(t, float64(bSupplier), s.(map[string]any)["id"])
		}
	}
	assert.Equal(t, float64(1), a.get("/suppliers").num("count_all"))

	assert.Equal(t, before, snapshot(), "B's supplier and accounts are unchanged")
	_, bAccountsAfter := counts(t, bUser.BuyerID)
	assert.Equal(t, bAccountsBefore, bAccountsAfter)
}

func TestDeleteSupplier(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	webtest.GiveFactor(t, u, env.clock.Now())
	busy, busyAccount := createSupplier(t, c, "支払い中の取引先")
	idle, _ := createSupplier(t, c, "支払いのない取引先")
	_, err := webtest.Store().CreateInvoice(context.Background(), u.BuyerID, store.NewInvoice{
		SupplierID: busy, AccountID: &busyAccount, InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.InProgress, Amount: 10000,
	})
	require.NoError(t, err)

	r := c.delete(fmt.Sprintf("/suppliers/%d", busy))
	require.Equal(t, http.StatusConflict, r.Status, r.String())
	assert.Equal(t, "supplier_in_use", r.str("status"))
	assert.True(t, strings.HasPrefix(r.str("message"), "支払いが進行中のため、この取引先は削除できません"), r.str("message"))
	assert.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/suppliers/%d", busy)).Status, "still there")

	r = c.put(fmt.Sprintf("/suppliers/%d/accounts/%d", busy, busyAccount), with(mizuhoAccount(), "account_number", "7777777"))
	require.Equal(t, http.StatusConflict, r.Status, r.String())
	assert.Equal(t, "supplier_in_use", r.str("status"))
	assert.Equal(t, "1234567", c.get(fmt.Sprintf("/suppliers/%d", busy)).Body["accounts"].([]any)[0].(map[string]any)["account_number"])

	r = c.delete(fmt.Sprintf("/suppliers/%d", idle))
	require.Equal(t, http.StatusNoContent, r.Status, r.String())
	assert.Empty(t, r.Raw)
	assert.Equal(t, http.StatusNotFound, c.get(fmt.Sprintf("/suppliers/%d", idle)).Status)
	assert.Equal(t, http.StatusNotFound, c.delete(fmt.Sprintf("/suppliers/%d", idle)).Status, "deleting twice")
	assert.Equal(t, float64(1), c.get("/suppliers").num("count_all"))
}

func TestSupplierCallsNeedASignIn(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	owner := env.signedInAs(t, u)
	id, acct := createSupplier(t, owner, "取引先")
	anon := env.client(t)
	for _, call := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/suppliers/corporation", corporationBody()},
		{http.MethodPost, "/suppliers/sole_proprietor", map[string]any{"name": "佐藤花子", "name_kana": "サトウハナコ"}},
		{http.MethodGet, "/suppliers", nil},
		{http.MethodGet, fmt.Sprintf("/suppliers/%d", id), nil},
		{http.MethodDelete, fmt.Sprintf("/suppliers/%d", id), nil},
		{http.MethodGet, fmt.Sprintf("/suppliers/%d/accounts", id), nil},
		{http.MethodPost, fmt.Sprintf("/suppliers/%d/accounts", id), mizuhoAccount()},
		{http.MethodPut, fmt.Sprintf("/suppliers/%d/accounts/%d", id, acct), mizuhoAccount()},
		{http.MethodGet, "/corporations?q=テスト", nil},
		{http.MethodGet, "/banks2?q=みずほ", nil},
		{http.MethodGet, "/banks/closed_day", nil},
		{http.MethodPost, "/accounts/holder_kana", map[string]any{"holder_name": "ヤマダ"}},
	} {
		r := anon.call(call.method, call.path, call.body)
		assert.Equal(t, http.StatusUnauthorized, r.Status, "%s %s: %s", call.method, call.path, r)
		assert.Equal(t, "unauthorized", r.str("status"))
	}
	s, a := counts(t, u.BuyerID)
	assert.Equal(t, 1, s)
	assert.Equal(t, 1, a)
}

// corporateNumber makes a valid corporate number from a 12-digit base.
func corporateNumber(t *testing.T, base string) string {
	t.Helper()
	d, ok := pay.CorporateCheckDigit(base)
	require.True(t, ok)
	return fmt.Sprint(d) + base
}

func TestCorporations(t *testing.T) {
	env := newEnv(t)
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	n1, n2 := corporateNumber(t, "401091234501"), corporateNumber(t, "401091234502")
	require.NoError(t, webtest.Store().SaveCorporations(context.Background(), []store.Corporation{
		{CorporateNumber: n1, Name: "株式会社コーポ検索テスト一", NameKana: "コーポケンサクテストイチ", Address: "東京都千代田区丸の内1-1"},
		{CorporateNumber: n2, Name: "コーポ検索テスト二合同会社", NameKana: "コーポケンサクテストニ", Address: "大阪府大阪市北区梅田1-1"},
	}))

	r := c.get("/corporations?q=" + urlq("コーポ検索テスト"))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	require.Len(t, r.Body["corporations"], 2)
	first := r.Body["corporations"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"corporate_number": n2, "name": "コーポ検索テスト二合同会社", "name_kana": "コーポケンサクテストニ", "address": "大阪府大阪市北区梅田1-1"}, first, "a name that starts with the query first")

	r = c.get("/corporations?q=" + urlq("コーポ検索テスト") + "&limit=1")
	assert.Len(t, r.Body["corporations"], 1)
	// A number, whole or its start, typed with hyphens or full-width digits.
	r = c.get("/corporations?q=" + urlq(toFullWidth(n1[:4])+"-"+n1[4:]))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	require.Len(t, r.Body["corporations"], 1)
	assert.Equal(t, n1, r.Body["corporations"].([]any)[0].(map[string]any)["corporate_number"])
	r = c.get("/corporations?q=" + n1[:8])
	assert.NotEmpty(t, r.Body["corporations"])
	r = c.get("/corporations?q=" + urlq("該当なしの法人名"))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, []any{}, r.Body["corporations"])

	bad := n1[:12] + fmt.Sprint((int(n1[12]-'0')+1)%10)
	for q, msg := range map[string]string{
		"":                       "法人名または法人番号を入力してください",
		"%20%E3%80%80":           "法人名または法人番号を入力してください",
		bad:                      "法人番号が正しくありません。13桁の数字をご確認ください",
		n1 + "1":                 "法人番号は13桁の数字です。桁数をご確認ください",
		strings.Repeat("a", 101): "法人名または法人番号は100文字以内で入力してください（現在101文字）",
		"%FF%FE":                 "法人名または法人番号に読み取れない文字が含まれています。入力し直してください",
		"a%00b":                  "法人名または法人番号に使用できない文字が含まれています",
		"x&limit=0":              "",
		"x&limit=101":            "",
	} {
		r := c.get("/corporations?q=" + q)
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%q: %s", q, r)
		if msg != "" {
			assert.Equal(t, msg, r.fieldErrors()["q"], q)
		} else {
			assert.NotEmpty(t, r.fieldErrors()["limit"], q)
		}
	}
	assert.Equal(t, http.StatusOK, c.get("/corporations?q="+strings.Repeat("a", 100)).Status)
}

func TestCorporationsUseTheConfiguredSearch(t *testing.T) {
	type call struct {
		q     string
		limit int
	}
	var calls []string
	fail := false
	// The registry (the NTA's Web-API) answers 30 corporations, whatever is asked.
	answer := make([]nta.Corporation, 30)
	for i := range answer {
		answer[i] = nta.Corporation{CorporateNumber: corporateNumber(t, fmt.Sprintf("40109876%04d", i)), Name: "国税庁の答え"}
	}
	env := newEnv(t, func(d *web.Deps) {
		d.Corporations = &account.Corporations{Store: d.Store, Logger: d.Logger, Registry: account.RegistryFunc(
			func(_ context.Context, q string) ([]nta.Corporation, error) {
				calls = append(calls, q)
				if fail {
					return nil, errors.New("NTA API timed out")
				}
				return answer, nil
			})}
	})
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	r := c.get("/corporations?q=" + urlq("７０００ー０１２０ー５０００２") + "&limit=5")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, []string{"7000012050002"}, calls, "the search gets the tidied number")
	r = c.get("/corporations?q=" + urlq("国税庁の答え") + "&limit=5")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Len(t, r.Body["corporations"], 5, "never more than limit")
	assert.Equal(t, "国税庁の答え", r.Body["corporations"].([]any)[0].(map[string]any)["name"], "the registry's answers are kept and found")

	// A failing registry is logged, and the corporations already known answer.
	fail = true
	r = c.get("/corporations?q=" + urlq("国税庁の答え"))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Len(t, r.Body["corporations"], 20)
	assert.NotContains(t, r.Raw, "NTA", "no internals leak")
	assert.Contains(t, env.Logs(), "NTA API timed out")
}
