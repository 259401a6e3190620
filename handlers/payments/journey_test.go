package payments_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// payer is a signed-in buyer with a registered supplier (with one account) and a saved
// card.
type payer struct {
	env      *webtest.Env
	c        *webtest.Client
	u        store.User
	supplier store.Supplier
	account  store.SupplierAccount
}

func newPayer(t *testing.T, cardNumber string) payer {
	t.Helper()
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	ctx := context.Background()
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "株式会社山田商事", NameKana: "カブシキガイシャヤマダショウジ", CorporateNumber: "1180301018771"},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	p := payer{env: env, c: c, u: u, supplier: sup, account: accts[0]}
	if cardNumber != "" {
		p.addCard(t, cardNumber)
	}
	return p
}

// addCard saves a card as the card-entry island does, passing a challenge when asked.
func (p payer) addCard(t *testing.T, number string) {
	t.Helper()
	res := p.env.PSP.AddCard(t, p.c, number)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	if loc := res.Header.Get("Location"); strings.HasPrefix(loc, p.env.PSP.URL) {
		back := p.env.PSP.Challenge(t, loc, true)
		res = p.c.Get(back)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	}
	list, err := webtest.Store().Cards(context.Background(), p.u.BuyerID)
	require.NoError(t, err)
	require.NotEmpty(t, list)
}

// transferDay is a valid transfer date about two weeks ahead, and a due date after it.
func transferDay() (transfer, due string) {
	d := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 10)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, 1)
	}
	return pay.ISODate(d), pay.ISODate(d.AddDate(0, 0, 5))
}

func invoiceForm(amount string) url.Values {
	transfer, due := transferDay()
	return url.Values{"amount": {amount}, "invoice_number": {"INV-0042"}, "due_date": {due},
		"registration_number": {"T1180301018771"}, "memo": {"11月分"}, "transfer_date": {transfer}}
}

var submitKeyRe = regexp.MustCompile(`name="submit_key" value="([0-9a-f]+)"`)

// toConfirm walks the journey to the confirm page with an existing supplier and account.
func (p payer) toConfirm(t *testing.T, amount string) webtest.Response {
	t.Helper()
	res := p.c.Get("/payments/add/invoiceinfo?new=1")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page := p.c.Get("/payments/add/invoiceinfo")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, "株式会社山田商事")
	res = p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/add/account", res.Header.Get("Location"))
	page = p.c.Get("/payments/add/account")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, "1234567")
	res = p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/add/invoice", res.Header.Get("Location"))
	page = p.c.Get("/payments/add/invoice")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, `name="transfer_date"`)
	res = p.c.Post("/payments/add/invoice", invoiceForm(amount))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/add/confirm", res.Header.Get("Location"))
	page = p.c.Get("/payments/add/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	return page
}

func (p payer) submit(t *testing.T, confirm webtest.Response) webtest.Response {
	t.Helper()
	return p.post(t, confirm, false)
}

// submitAcknowledging submits the confirm page with every 確認しました it asks for
// ticked: the entry differs from the invoice as read, knowingly.
func (p payer) submitAcknowledging(t *testing.T, confirm webtest.Response) webtest.Response {
	t.Helper()
	return p.post(t, confirm, true)
}

func (p payer) post(t *testing.T, confirm webtest.Response, acknowledge bool) webtest.Response {
	t.Helper()
	m := submitKeyRe.FindStringSubmatch(confirm.Body)
	require.NotNil(t, m, "the confirm page carries its submit key")
	cards, err := webtest.Store().Cards(context.Background(), p.u.BuyerID)
	require.NoError(t, err)
	form := url.Values{"submit_key": {m[1]}, "card_id": {strconv.FormatInt(cards[0].ID, 10)}, "action": {"submit"}}
	if acknowledge {
		for _, a := range acknowledgeRe.FindAllStringSubmatch(confirm.Body, -1) {
			form.Add("acknowledge", a[1])
		}
	}
	return p.c.Post("/payments/add/confirm", form)
}

func TestPayAnInvoiceWithoutJavaScript(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	confirm := p.toConfirm(t, "110,000")
	assert.Contains(t, confirm.Body, "¥110,000")
	assert.Contains(t, confirm.Body, "¥3,300", "the 3.0 % fee")
	assert.Contains(t, confirm.Body, "¥113,300", "the total charged")
	assert.Contains(t, confirm.Body, "お支払いの予定")
	res := p.submit(t, confirm)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/payments/complete?id="), loc)
	done := p.c.Get(loc)
	require.Equal(t, http.StatusOK, done.StatusCode)
	assert.Contains(t, done.Body, "支払申請を受け付けました")
	id, _ := strconv.ParseInt(strings.TrimPrefix(loc, "/payments/complete?id="), 10, 64)
	assert.Contains(t, done.Body, pay.InvoiceNumber(id))

	review := p.c.Get("/payments/review")
	require.Equal(t, http.StatusOK, review.StatusCode)
	assert.Contains(t, review.Body, pay.InvoiceNumber(id))
	assert.Contains(t, review.Body, "審査中（1）")
	detail := p.c.Get("/payments/review/" + strconv.FormatInt(id, 10))
	require.Equal(t, http.StatusOK, detail.StatusCode)
	for _, want := range []string{"¥113,300", "VISA •••• 1111", "株式会社山田商事", "INV-0042", "支払申請（カードの与信が完了）"} {
		assert.Contains(t, detail.Body, want)
	}
	// The journey is over: its pages start again.
	res = p.c.Get("/payments/add/confirm")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)

	// Another buyer sees none of it.
	other := newPayer(t, "")
	assert.Equal(t, http.StatusNotFound, other.c.Get("/payments/review/"+strconv.FormatInt(id, 10)).StatusCode)
	assert.NotContains(t, other.c.Get("/payments/complete?id="+strconv.FormatInt(id, 10)).Header.Get("Location"), strconv.FormatInt(id, 10))
	assert.NotContains(t, other.c.Get("/payments/review").Body, pay.InvoiceNumber(id))

	// Cancel: はい / いいえ, then the card's authorisation is voided by a job.
	ask := p.c.Get("/payments/review/" + strconv.FormatInt(id, 10) + "/cancel")
	require.Equal(t, http.StatusOK, ask.StatusCode)
	assert.Contains(t, ask.Body, "はい")
	assert.Equal(t, http.StatusNotFound, other.c.Post("/payments/review/"+strconv.FormatInt(id, 10)+"/cancel", nil).StatusCode)
	res = p.c.Post("/payments/review/"+strconv.FormatInt(id, 10)+"/cancel", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	p.env.Settle(t)
	pm, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	assert.Equal(t, pay.CardVoided, pm.CardStatus)
	hist := p.c.Get("/payments/history/" + strconv.FormatInt(id, 10))
	assert.Contains(t, hist.Body, "キャンセル（お客様による）")
}

func TestInvoiceStepRefusesBadInputAndKeepsIt(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	p.c.Get("/payments/add/invoiceinfo?new=1")
	p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	form := invoiceForm("12.5")
	form.Set("transfer_date", "2020-01-01")
	res := p.c.Post("/payments/add/invoice", form)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "<title>エラー：")
	webtest.AssertFieldError(t, res, "amount", "請求金額は半角数字で、円単位で入力してください（例：123456）")
	assert.Contains(t, res.Body, `value="12.5"`, "what was typed stays")
	// Nothing moved on.
	assert.Equal(t, http.StatusSeeOther, p.c.Get("/payments/add/confirm").StatusCode)
	// Another buyer's supplier cannot be chosen.
	other := newPayer(t, "")
	res = p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(other.supplier.ID, 10)}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
}

func TestDeclineKeepsTheAnswersAndShowsTheMessage(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	confirm := p.toConfirm(t, "100050") // charged ¥103,051: the sandbox declines it
	res := p.submit(t, confirm)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, res.Body)
	webtest.AssertFieldError(t, res, "card_id", "カードのご利用可能額が不足しています")
	assert.Contains(t, res.Body, "¥100,050", "the answers are kept")
	_, total, err := webtest.Store().Payments(context.Background(), store.PaymentFilter{BuyerID: p.u.BuyerID, Bucket: pay.BucketReviewAll, Size: 20})
	require.NoError(t, err)
	assert.Equal(t, 0, total)
	// A new key: the next attempt is a new payment id (here with a smaller amount).
	assert.NotEqual(t, submitKeyRe.FindStringSubmatch(confirm.Body)[1], submitKeyRe.FindStringSubmatch(res.Body)[1])
}

func TestChallengeOnSubmit(t *testing.T) {
	p := newPayer(t, "4000000000003220")
	confirm := p.toConfirm(t, "50000")
	res := p.submit(t, confirm)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	action := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(action, p.env.PSP.URL), action)
	back := p.env.PSP.Challenge(t, action, true)
	require.True(t, strings.HasPrefix(back, "/payments/add/confirm/return?payment=inv-"), back)
	res = p.c.Get(back)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.True(t, strings.HasPrefix(res.Header.Get("Location"), "/payments/complete?id="))
	// Coming back twice (the back button) changes nothing.
	again := p.c.Get(back)
	assert.NotEqual(t, http.StatusInternalServerError, again.StatusCode)
}

func TestConcurrentSubmitsOfOneConfirmPage(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	confirm := p.toConfirm(t, "80000")
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = p.submit(t, confirm).StatusCode
		}()
	}
	wg.Wait()
	for i, code := range codes {
		assert.Contains(t, []int{http.StatusSeeOther}, code, "submit %d", i)
	}
	var payments, auths int
	require.NoError(t, webtest.Store().DB.Get(&payments, `SELECT count(*) FROM invoices WHERE buyer_id = $1`, p.u.BuyerID))
	require.NoError(t, webtest.Store().DB.Get(&auths, `SELECT count(*) FROM sandbox_authorizations a JOIN invoices i ON i.payment_ref = a.payment_id
		WHERE i.buyer_id = $1 AND NOT a.verify_only`, p.u.BuyerID))
	assert.Equal(t, 1, payments)
	assert.Equal(t, 1, auths)
	t.Logf("50 concurrent posts of one confirm page: %d payment row, %d authorisation at the sandbox PSP", payments, auths)
}

func TestCorrectASentBackPayment(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	res := p.submit(t, p.toConfirm(t, "110000"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	id, _ := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/payments/complete?id="), 10, 64)
	sid := strconv.FormatInt(id, 10)
	// Not sent back: nothing to correct.
	res = p.c.Get("/payments/edit/" + sid + "/invoiceinfo")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	before, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, id)
	require.NoError(t, err)
	_, err = webtest.Store().Transition(context.Background(), p.u.BuyerID, id, pay.ActSendBack, "operator:1",
		"請求書の金額と入力された金額が異なります。", time.Now(), nil)
	require.NoError(t, err)

	review := p.c.Get("/payments/review")
	assert.Contains(t, review.Body, "要対応")
	detail := p.c.Get("/payments/review/" + sid)
	assert.Contains(t, detail.Body, "請求書の金額と入力された金額が異なります。")
	assert.Contains(t, detail.Body, "/payments/edit/"+sid+"/invoiceinfo")

	form := p.c.Get("/payments/edit/" + sid + "/invoiceinfo")
	require.Equal(t, http.StatusOK, form.StatusCode)
	assert.Contains(t, form.Body, `value="110000"`)
	other := newPayer(t, "")
	assert.Equal(t, http.StatusNotFound, other.c.Get("/payments/edit/"+sid+"/invoiceinfo").StatusCode)

	fields := invoiceForm("120000")
	res = p.c.Post("/payments/edit/"+sid+"/invoiceinfo", fields)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/edit/" + sid + "/confirm")
	require.Equal(t, http.StatusOK, confirm.StatusCode)
	assert.Contains(t, confirm.Body, "¥123,600")
	assert.Contains(t, confirm.Body, "修正前 ¥113,300")
	res = p.c.Post("/payments/edit/"+sid+"/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	p.env.Settle(t)
	after, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, after.ExaminationStatus)
	assert.False(t, after.ActionRequired)
	assert.Equal(t, int64(123600), after.AuthorizedAmount)
	assert.NotEqual(t, before.PaymentRef, after.PaymentRef, "a new authorisation")
	var oldStatus string
	require.NoError(t, webtest.Store().DB.Get(&oldStatus, `SELECT status FROM sandbox_authorizations WHERE payment_id = $1`, before.PaymentRef))
	assert.Equal(t, "voided", oldStatus, "the old authorisation is released")
	ev, err := webtest.Store().PaymentEvents(context.Background(), p.u.BuyerID, id)
	require.NoError(t, err)
	require.Len(t, ev, 3)
	assert.Equal(t, pay.ActResubmit, ev[2].Action)
}

func TestDraftSaveListResumeDelete(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	p.c.Get("/payments/add/invoiceinfo?new=1")
	p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	half := url.Values{"amount": {"77777"}, "action": {"draft"}}
	res := p.c.Post("/payments/add/invoice", half)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/draft", res.Header.Get("Location"))
	list := p.c.Get("/payments/draft")
	require.Equal(t, http.StatusOK, list.StatusCode)
	assert.Contains(t, list.Body, "下書きを保存しました")
	assert.Contains(t, list.Body, "¥77,777")
	assert.Contains(t, list.Body, "株式会社山田商事")
	assert.Contains(t, list.Body, "下書き（1）")
	m := regexp.MustCompile(`href="/payments/draft/(\d+)"`).FindStringSubmatch(list.Body)
	require.NotNil(t, m)
	// Leaving the journey cleared it; the draft resumes it at the invoice step.
	assert.Equal(t, http.StatusSeeOther, p.c.Get("/payments/add/confirm").StatusCode)
	res = p.c.Get("/payments/draft/" + m[1])
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/payments/add/invoice", res.Header.Get("Location"))
	page := p.c.Get("/payments/add/invoice")
	assert.Contains(t, page.Body, `value="77777"`)
	// Another buyer can neither open nor delete it.
	other := newPayer(t, "")
	assert.Equal(t, http.StatusNotFound, other.c.Get("/payments/draft/"+m[1]).StatusCode)
	res = other.c.Post("/payments/draft/delete", url.Values{"draft": {m[1]}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "none of theirs: nothing to ask")
	assert.Equal(t, "/payments/draft", res.Header.Get("Location"))
	res = other.c.Post("/payments/draft/delete", url.Values{"draft": {m[1]}, "confirmed": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, p.c.Get("/payments/draft").Body, "¥77,777")
	// Nothing ticked: a message, nothing deleted.
	res = p.c.Post("/payments/draft/delete", url.Values{})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	// Ticked: asked first (はい / いいえ, SPEC.md §8), naming the draft; nothing deleted yet.
	ask := p.c.Post("/payments/draft/delete", url.Values{"draft": {m[1]}})
	require.Equal(t, http.StatusOK, ask.StatusCode)
	for _, want := range []string{"下書きを削除しますか？", "株式会社山田商事（¥77,777、保存 ", ">はい<", `href="/payments/draft">いいえ</a>`,
		`name="draft" value="` + m[1] + `"`, `name="confirmed" value="1"`, `action="/payments/draft/delete"`} {
		assert.Contains(t, ask.Body, want)
	}
	assert.Contains(t, p.c.Get("/payments/draft").Body, "¥77,777", "いいえ: the draft stays")
	// はい: the question's own form.
	res = p.c.Post("/payments/draft/delete", url.Values{"draft": {m[1]}, "confirmed": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/draft", res.Header.Get("Location"))
	list = p.c.Get("/payments/draft")
	assert.Contains(t, list.Body, "下書きを1件削除しました")
	assert.Contains(t, list.Body, "保存した下書きはありません")
}

func TestSubmittingAResumedDraftDeletesIt(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	confirm := p.toConfirm(t, "66000")
	m := submitKeyRe.FindStringSubmatch(confirm.Body)
	res := p.c.Post("/payments/add/confirm", url.Values{"submit_key": {m[1]}, "action": {"draft"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	d := regexp.MustCompile(`href="/payments/draft/(\d+)"`).FindStringSubmatch(p.c.Get("/payments/draft").Body)
	require.NotNil(t, d)
	res = p.c.Get("/payments/draft/" + d[1])
	require.Equal(t, "/payments/add/confirm", res.Header.Get("Location"), "it resumes where it was saved")
	res = p.submit(t, p.c.Get("/payments/add/confirm"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Contains(t, p.c.Get("/payments/draft").Body, "保存した下書きはありません")
}

func TestAddACardFromTheConfirmPage(t *testing.T) {
	p := newPayer(t, "")
	confirm := p.toConfirm(t, "30000")
	assert.Contains(t, confirm.Body, "登録済みのカードがありません")
	assert.Contains(t, confirm.Body, "/myaccount/creditcards/new?return=/payments/add/confirm")
	page := p.c.Get("/myaccount/creditcards/new?return=/payments/add/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	res := p.env.PSP.AddCard(t, p.c, "5555555555554444")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/payments/add/confirm?card="), loc)
	back := p.c.Get(loc)
	require.Equal(t, http.StatusOK, back.StatusCode, "the journey is still there")
	assert.Contains(t, back.Body, "MASTER •••• 4444")
	assert.Contains(t, back.Body, "¥30,000")
	// A return to another site is not taken.
	p.c.Get("/myaccount/creditcards/new?return=https://evil.example/")
	res = p.env.PSP.AddCard(t, p.c, "3530111333300000")
	assert.Equal(t, "/myaccount/creditcards", res.Header.Get("Location"))
}

func TestPayANewSupplierWithoutLeavingTheJourney(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	p.c.Get("/payments/add/invoiceinfo?new=1")
	res := p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {"new"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/payments/add/supplier", res.Header.Get("Location"))
	page := p.c.Get("/payments/add/supplier")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "取引先の事業形態")
	res = p.c.Post("/payments/add/supplier", url.Values{"step": {"business_form"}, "business_form": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page = p.c.Get("/payments/add/supplier")
	assert.Contains(t, page.Body, "法人を検索")
	res = p.c.Post("/payments/add/supplier", url.Values{"name": {""}, "name_kana": {"ア"}, "corporate_number": {"1234"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	res = p.c.Post("/payments/add/supplier", url.Values{"name": {"株式会社新規"}, "name_kana": {"しんき"}, "corporate_number": {"2180301018770"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/add/account/new", res.Header.Get("Location"))
	// The bank, the branch (links carry the codes), then the details.
	page = p.c.Get("/payments/add/account/new")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "/payments/add/account/new?bank_code=0001")
	page = p.c.Get("/payments/add/account/new?bank_code=0001&branch_code=001")
	assert.Contains(t, page.Body, `name="account_number"`)
	res = p.c.Post("/payments/add/account/new", url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"},
		"account_number": {"12"}, "holder_name": {"ｶ)ｼﾝｷ"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	res = p.c.Post("/payments/add/account/new", url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"},
		"account_number": {"7777777"}, "holder_name": {"カ）シンキ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/payments/add/invoice", res.Header.Get("Location"))
	res = p.c.Post("/payments/add/invoice", invoiceForm("50000"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/add/confirm")
	assert.Contains(t, confirm.Body, "新規登録")
	assert.Contains(t, confirm.Body, "株式会社新規")
	assert.Contains(t, confirm.Body, "ｶ)ｼﾝｷ")
	res = p.submit(t, confirm)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	list, _, err := webtest.Store().Suppliers(context.Background(), store.SupplierFilter{BuyerID: p.u.BuyerID, Group: pay.SupplierEnable, Size: 10})
	require.NoError(t, err)
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	assert.Contains(t, names, "株式会社新規", "the new supplier was registered with the payment")
}

// historyItemRe finds the links to payments of the history (not its export page).
var historyItemRe = regexp.MustCompile(`href="/payments/history/\d+"`)

func TestListsPageAndFilter(t *testing.T) {
	p := newPayer(t, "")
	require.NoError(t, webtest.Store().SeedPayments(context.Background(), p.u.BuyerID, p.supplier.ID, p.account.ID, 100))
	counts, err := webtest.Store().PaymentCounts(context.Background(), p.u.BuyerID)
	require.NoError(t, err)
	n := counts.History // about three in four of the seed, 20 a page, newest first
	require.Greater(t, n, 60)
	first := p.c.Get("/payments/history")
	require.Equal(t, http.StatusOK, first.StatusCode)
	assert.Contains(t, first.Body, "支払履歴（"+strconv.Itoa(n)+"）")
	assert.Equal(t, 20, len(historyItemRe.FindAllString(first.Body, -1)))
	assert.Contains(t, first.Body, `aria-label="ページ送り"`)
	lastPage := (n + 19) / 20
	assert.Contains(t, first.Body, `href="/payments/history?page=`+strconv.Itoa(lastPage)+`"`)
	last := p.c.Get("/payments/history?page=" + strconv.Itoa(lastPage))
	assert.Equal(t, n-20*(lastPage-1), len(historyItemRe.FindAllString(last.Body, -1)))
	beyond := p.c.Get("/payments/history?page=9")
	assert.Equal(t, http.StatusOK, beyond.StatusCode)
	// Filters: another supplier finds none; a bad date is said and ignored.
	filtered := p.c.Get("/payments/history?supplier=999999")
	assert.Contains(t, filtered.Body, "条件に合うお支払いはありません")
	bad := p.c.Get("/payments/history?from=2026-13-45")
	assert.Equal(t, http.StatusUnprocessableEntity, bad.StatusCode)
	webtest.AssertFieldError(t, bad, "from", "日付を正しく入力してください（例：2026-12-25）")
	today := pay.ISODate(time.Now())
	dated := p.c.Get("/payments/history?from=" + today + "&to=" + today)
	assert.Equal(t, http.StatusOK, dated.StatusCode)
	// The review list: the sent-back payment first, marked 要対応.
	list, _, err := webtest.Store().Payments(context.Background(), store.PaymentFilter{BuyerID: p.u.BuyerID, Bucket: pay.BucketReviewAll, Size: 1})
	require.NoError(t, err)
	require.NotEmpty(t, list)
	oldest, _, err := webtest.Store().Payments(context.Background(), store.PaymentFilter{BuyerID: p.u.BuyerID, Bucket: pay.BucketReviewAll,
		Page: counts.Review - 1, Size: 1})
	require.NoError(t, err)
	require.NotEmpty(t, oldest)
	_, err = webtest.Store().Transition(context.Background(), p.u.BuyerID, oldest[0].ID, pay.ActSendBack, "operator:1", "確認してください", time.Now(), nil)
	require.NoError(t, err)
	review := p.c.Get("/payments/review")
	firstRow := review.Body[strings.Index(review.Body, "<tbody>"):]
	firstRow = firstRow[:strings.Index(firstRow, "</tr>")]
	assert.Contains(t, firstRow, pay.InvoiceNumber(oldest[0].ID))
	assert.Contains(t, firstRow, "要対応")
}
