package inquiries_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// inquiriesFrom counts the inquiries answered to address.
func inquiriesFrom(t *testing.T, address string) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM inquiries WHERE lower(email) = lower($1)`, address))
	return n
}

// paymentOf seeds one submitted payment of the buyer and returns its id.
func paymentOf(t *testing.T, u store.User, supplier string) int64 {
	t.Helper()
	ctx := context.Background()
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: supplier,
		NameKana: "トイアワセ", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001", BankName: "みずほ",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ﾄｲｱﾜｾ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SeedPayments(ctx, u.BuyerID, sup.ID, accts[0].ID, 1))
	list, err := webtest.Store().InquiryPayments(ctx, u.BuyerID, 1)
	require.NoError(t, err)
	require.Len(t, list, 1)
	return list[0].ID
}

var numberRe = regexp.MustCompile(`Q-(\d{8})`)

func publicForm(email, body string) url.Values {
	return url.Values{"name": {"佐藤 花子"}, "email_address": {email}, "company": {"佐藤商店"}, "category": {"card"}, "body": {body}}
}

// The public form: no account needed; bad input is shown at its fields and stores
// nothing; a good one leads to the thanks page with the reference number (once) and
// the acknowledgement, which does not repeat what a stranger typed.
func TestPublicInquiry(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	form := c.Get("/inquiry")
	require.Equal(t, http.StatusOK, form.StatusCode)
	for _, id := range []string{`id="name"`, `id="email_address"`, `id="company"`, `id="category"`, `id="body"`} {
		assert.Contains(t, form.Body, id)
	}
	assert.NotContains(t, form.Body, `id="invoice_id"`, "only a signed-in buyer names a payment")
	assert.Contains(t, form.Body, "領収書・インボイス")

	email := fmt.Sprintf("hanako-%s@public.example", strconv.FormatInt(time.Now().UnixNano(), 36)) // no digit run a card scan could read
	res := c.Post("/inquiry", url.Values{"email_address": {email}})
	webtest.AssertFieldError(t, res, "name", "お名前を入力してください")
	webtest.AssertFieldError(t, res, "category", "お問い合わせの種類を選択してください")
	webtest.AssertFieldError(t, res, "body", "お問い合わせ内容を入力してください")
	assert.Contains(t, res.Body, `value="`+email+`"`, "what was typed is kept")
	res = c.Post("/inquiry", publicForm("hanako@", "質問"))
	webtest.AssertFieldError(t, res, "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）")
	res = c.Post("/inquiry", publicForm(email, "制御文字\x1b[2J"))
	webtest.AssertFieldError(t, res, "body", "お問い合わせ内容に使用できない文字が含まれています")
	res = c.Post("/inquiry", publicForm(email, strings.Repeat("長", pay.MaxInquiryBody+1)))
	webtest.AssertFieldError(t, res, "body", "お問い合わせ内容は4000文字以内で入力してください")
	res = c.Post("/inquiry", url.Values{"name": {"佐藤"}, "email_address": {email}, "category": {"refund"}, "body": {"x"}})
	webtest.AssertFieldError(t, res, "category", "お問い合わせの種類を一覧から選択してください")
	res = c.Post("/inquiry", url.Values{"name": {"佐藤"}, "email_address": {email}, "category": {"card"}, "body": {"x"}, "invoice_id": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a signed-out form's payment is ignored, not an error")
	assert.Equal(t, 1, inquiriesFrom(t, email))
	env.Mail.WaitFor(t, email, 10*time.Second)
	c.Get("/inquiry/thanks")
	env.Settle(t)

	res = c.Post("/inquiry", publicForm(email, "カードが使えません。\r\n二行目です。"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/inquiry/thanks", res.Header.Get("Location"))
	thanks := c.Get("/inquiry/thanks")
	require.Equal(t, http.StatusOK, thanks.StatusCode)
	m := numberRe.FindStringSubmatch(thanks.Body)
	require.NotNil(t, m, thanks.Body)
	assert.Contains(t, thanks.Body, "お問い合わせを受け付けました")
	again := c.Get("/inquiry/thanks")
	assert.Equal(t, http.StatusSeeOther, again.StatusCode, "shown once")
	assert.Equal(t, "/inquiry", again.Header.Get("Location"))

	id, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	q, err := webtest.Store().OperatorInquiry(context.Background(), id)
	require.NoError(t, err)
	assert.Nil(t, q.BuyerID)
	assert.Equal(t, "カードが使えません。\n二行目です。", q.Body)
	assert.Equal(t, "佐藤商店", q.Company)
	ack := env.Mail.WaitFor(t, email, 10*time.Second)
	assert.Equal(t, "【請求書カード払い】お問い合わせを受け付けました（"+m[0]+"）", ack.Subject)
	assert.Contains(t, ack.Text, "お問い合わせの種類：カード")
	assert.NotContains(t, ack.Text, "カードが使えません", "a stranger's words are not mailed to the address they typed")
	assert.NotContains(t, ack.Text, "佐藤 花子", "nor the name they typed")
}

// Signed in: the form names the account, offers the buyer's payments by I-number,
// supplier and amount, and refuses another buyer's payment at the field (nothing
// stored); the buyer's inquiries list and page show it, and another buyer's is not found.
func TestSignedInInquiryWithAPayment(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	mine := paymentOf(t, u, "株式会社問合せ商事")
	theirs := paymentOf(t, other, "株式会社よそ")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	form := c.Get("/inquiry")
	require.Equal(t, http.StatusOK, form.StatusCode)
	assert.Contains(t, form.Body, "関連するお支払い")
	assert.Contains(t, form.Body, pay.InvoiceNumber(mine)+"　株式会社問合せ商事　¥")
	assert.NotContains(t, form.Body, pay.InvoiceNumber(theirs))
	assert.NotContains(t, form.Body, `id="email_address"`, "the account's address is used")
	assert.Contains(t, form.Body, u.EmailAddress)

	res := c.Post("/inquiry", url.Values{"category": {"payment"}, "invoice_id": {strconv.FormatInt(theirs, 10)}, "body": {"振込日を教えてください"}})
	webtest.AssertFieldError(t, res, "invoice_id", account.MsgInquiryPayment)
	res = c.Post("/inquiry", url.Values{"category": {"payment"}, "invoice_id": {"abc\x00"}, "body": {"振込日を教えてください"}})
	webtest.AssertFieldError(t, res, "invoice_id", account.MsgInquiryPayment)
	assert.Equal(t, 0, inquiriesFrom(t, u.EmailAddress), "nothing stored")

	res = c.Post("/inquiry", url.Values{"category": {"payment"}, "invoice_id": {strconv.FormatInt(mine, 10)}, "body": {"振込日を教えてください"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	thanks := c.Get("/inquiry/thanks")
	m := numberRe.FindStringSubmatch(thanks.Body)
	require.NotNil(t, m)
	id, _ := strconv.ParseInt(m[1], 10, 64)
	assert.Contains(t, thanks.Body, fmt.Sprintf(`href="/inquiries/%d"`, id))
	ack := env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second)
	assert.Contains(t, ack.Text, "振込日を教えてください", "the account's own words go back to it")
	assert.Contains(t, ack.Text, "山田 太郎 様")

	list := c.Get("/inquiries")
	require.Equal(t, http.StatusOK, list.StatusCode)
	assert.Contains(t, list.Body, m[0])
	assert.Contains(t, list.Body, "受付")
	page := c.Get(fmt.Sprintf("/inquiries/%d", id))
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, pay.InvoiceNumber(mine)+"　株式会社問合せ商事")
	assert.Contains(t, page.Body, "担当者が確認しています")

	o := env.Client(t)
	o.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusNotFound, o.Get(fmt.Sprintf("/inquiries/%d", id)).StatusCode, "another buyer's inquiry")
	assert.NotContains(t, o.Get("/inquiries").Body, m[0])
	assert.Equal(t, http.StatusNotFound, c.Get("/inquiries/abc").StatusCode)
	assert.Equal(t, http.StatusSeeOther, env.Client(t).Get("/inquiries").StatusCode, "signed out: to the sign-in page")
}

// The limit: signed out, 5 an hour per IP and per address typed by default (3 and 1
// here; a request refused for its address still counts for the IP); over either, the answer is 429 at the text with Retry-After and nothing is
// stored. A signed-in user is counted on their own, not with the IP.
func TestInquiryRateLimit(t *testing.T) {
	env := webtest.New(t, func(d *web.Deps) {
		d.Account.Limits = account.Limits{account.ActInquiry + ".ip": {N: 3, Window: time.Hour}, account.ActInquiry + ".target": {N: 1, Window: time.Hour}}
	})
	c := env.Client(t)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36) // no digit run a card scan could read
	first, second, third := fmt.Sprintf("limit-a-%s@public.example", stamp), fmt.Sprintf("limit-b-%s@public.example", stamp), fmt.Sprintf("limit-c-%s@public.example", stamp)
	limited := func(res webtest.Response, why string) {
		t.Helper()
		assert.Equal(t, http.StatusTooManyRequests, res.StatusCode, why)
		assert.NotEmpty(t, res.Header.Get("Retry-After"))
		assert.Contains(t, res.Body, "短時間に操作が繰り返されたため")
		assert.Contains(t, res.Body, `id="body-error"`)
	}
	require.Equal(t, http.StatusSeeOther, c.Post("/inquiry", publicForm(first, "質問です")).StatusCode)
	limited(c.Post("/inquiry", publicForm(first, "質問です")), "the address's allowance")
	require.Equal(t, http.StatusSeeOther, c.Post("/inquiry", publicForm(second, "質問です")).StatusCode)
	limited(c.Post("/inquiry", publicForm(third, "質問です")), "the IP's allowance")
	assert.Equal(t, 1, inquiriesFrom(t, first), "nothing stored over the limit")
	assert.Equal(t, 0, inquiriesFrom(t, third))
	// Bad input is not counted (a person correcting a typo keeps the allowance); it is
	// still refused at its field, not with 429.
	webtest.AssertFieldError(t, c.Post("/inquiry", publicForm(third, "")), "body", "お問い合わせ内容を入力してください")

	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	s := env.Client(t)
	s.SignIn(u.EmailAddress)
	ok := url.Values{"category": {"other"}, "body": {"質問です"}}
	require.Equal(t, http.StatusSeeOther, s.Post("/inquiry", ok).StatusCode, "the user's own allowance, not the full IP's")
	limited(s.Post("/inquiry", ok), "the user's allowance")
	assert.Equal(t, 1, inquiriesFrom(t, u.EmailAddress))
}
