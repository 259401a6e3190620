package ops_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// mailAbout waits for the mail to address whose subject starts with subject (the
// buyer's other notices may come first).
func mailAbout(t *testing.T, env *webtest.Env, address, subject string) mail.Received {
	t.Helper()
	for {
		m := env.Mail.WaitFor(t, address, 10*time.Second)
		if strings.HasPrefix(m.Subject, subject) {
			return m
		}
	}
}

// sendInquiry sends an inquiry through the form and returns its id (from the store).
func sendInquiry(t *testing.T, c *webtest.Client, form url.Values, email string) int64 {
	t.Helper()
	res := c.Post("/inquiry", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	var id int64
	require.NoError(t, webtest.Store().DB.Get(&id, `SELECT max(id) FROM inquiries WHERE lower(email) = lower($1)`, email))
	return id
}

// The console's inquiries: operators only (a buyer's session is sent to the operators'
// sign-in); 受付 first; any operator answers; the answer is mailed to whoever asked,
// told in the buyer's notifications and shown on the buyer's page; answering and
// closing are audited, and a closed inquiry takes no answer.
func TestOperatorsAnswerInquiries(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	// A seeded payment, of a supplier of its own name (the screening tests look for
	// theirs in the suppliers' list).
	p := paid{u: webtest.NewBuyer(t, pay.Corporation, "")}
	p.c = env.Client(t)
	p.c.SignIn(p.u.EmailAddress)
	sup, err := webtest.Store().CreateSupplier(ctx, p.u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "株式会社問合せ商事", NameKana: "トイアワセショウジ", CorporateNumber: "1180301018771"},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾄｲｱﾜｾｼﾖｳｼﾞ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, p.u.BuyerID, sup.ID)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SeedPayments(ctx, p.u.BuyerID, sup.ID, accts[0].ID, 1))
	seeded, err := webtest.Store().InquiryPayments(ctx, p.u.BuyerID, 1)
	require.NoError(t, err)
	p.id = seeded[0].ID
	buyer := p.c
	id := sendInquiry(t, buyer, url.Values{"category": {"payment"}, "invoice_id": {fmt.Sprint(p.id)}, "body": {"振込はいつですか？"}}, p.u.EmailAddress)
	mailAbout(t, env, p.u.EmailAddress, "【請求書カード払い】お問い合わせを受け付けました")
	public := fmt.Sprintf("public-%s@inquiry.example", strconv.FormatInt(time.Now().UnixNano(), 36)) // no digit run a card scan could read
	publicID := sendInquiry(t, env.Client(t), url.Values{"name": {"佐藤 花子"}, "email_address": {public}, "category": {"other"},
		"body": {"サービスについて教えてください"}}, public)
	env.Mail.WaitFor(t, public, 10*time.Second)

	res := buyer.Get("/ops/inquiries")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a buyer's session opens no console page")
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/ops/signin"))
	assert.Equal(t, http.StatusSeeOther, buyer.Post(fmt.Sprintf("/ops/inquiries/%d", id), url.Values{"answer": {"x"}}).StatusCode)

	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	list := mover.Get("/ops/inquiries")
	require.Equal(t, http.StatusOK, list.StatusCode)
	assert.Contains(t, list.Body, pay.InquiryNumber(id))
	assert.Contains(t, list.Body, pay.InquiryNumber(publicID))
	assert.Contains(t, list.Body, "（ログインなし）")
	assert.Contains(t, mover.Get("/ops/inquiries?status=closed").Body, "条件に合うお問い合わせはありません")
	assert.Equal(t, http.StatusOK, mover.Get("/ops/inquiries?status=%00&page=-3").StatusCode)

	page := mover.Get(fmt.Sprintf("/ops/inquiries/%d", id))
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "振込はいつですか？")
	assert.Contains(t, page.Body, pay.InvoiceNumber(p.id)+"　株式会社問合せ商事　¥10,037")
	assert.NotContains(t, page.Body, fmt.Sprintf(`href="/ops/screening/%d"`, p.id), "the screening page is the screeners'")
	assert.Contains(t, page.Body, fmt.Sprintf("購入者 #%d", p.u.BuyerID))
	screener := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	spage := screener.Get(fmt.Sprintf("/ops/inquiries/%d", id))
	assert.Contains(t, spage.Body, fmt.Sprintf(`href="/ops/screening/%d"`, p.id), "the payment, linked")
	assert.Contains(t, spage.Body, fmt.Sprintf(`href="/ops/buyers/%d"`, p.u.BuyerID), "the buyer, linked")
	assert.Equal(t, http.StatusNotFound, mover.Get("/ops/inquiries/999999999").StatusCode)
	assert.Equal(t, http.StatusNotFound, mover.Get("/ops/inquiries/abc").StatusCode)

	webtest.AssertFieldError(t, mover.Post(fmt.Sprintf("/ops/inquiries/%d", id), url.Values{"answer": {"  "}}), "answer", "回答を入力してください")
	webtest.AssertFieldError(t, mover.Post(fmt.Sprintf("/ops/inquiries/%d", id), url.Values{"answer": {"a\x00b"}}), "answer", "回答に使用できない文字が含まれています")
	res = mover.Post(fmt.Sprintf("/ops/inquiries/%d", id), url.Values{"answer": {"12月10日にお振込みします。\r\nよろしくお願いいたします。"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)

	answer := mailAbout(t, env, p.u.EmailAddress, "【請求書カード払い】お問い合わせへの回答")
	assert.Equal(t, "【請求書カード払い】お問い合わせへの回答（"+pay.InquiryNumber(id)+"）", answer.Subject)
	assert.Contains(t, answer.Text, "12月10日にお振込みします。\nよろしくお願いいたします。")
	assert.Contains(t, answer.Text, fmt.Sprintf("/inquiries/%d", id))
	notices, err := webtest.Store().NotificationPage(ctx, p.u.BuyerID, 0, 20)
	require.NoError(t, err)
	var told *store.Notification
	for i, n := range notices.Items {
		if strings.Contains(n.Title, pay.InquiryNumber(id)) {
			told = &notices.Items[i]
		}
	}
	require.NotNil(t, told, "the bell tells the buyer")
	assert.Equal(t, fmt.Sprintf("/inquiries/%d", id), told.Link)
	mine := buyer.Get(fmt.Sprintf("/inquiries/%d", id))
	assert.Contains(t, mine.Body, "12月10日にお振込みします。")
	assert.Contains(t, mine.Body, "回答済み")

	// The public one: answered to the address typed, no notification, no link.
	require.Equal(t, http.StatusSeeOther, mover.Post(fmt.Sprintf("/ops/inquiries/%d", publicID), url.Values{"answer": {"ご質問ありがとうございます。"}}).StatusCode)
	pub := env.Mail.WaitFor(t, public, 10*time.Second)
	assert.Contains(t, pub.Text, "ご質問ありがとうございます。")
	assert.NotContains(t, pub.Text, "/inquiries/")

	require.Equal(t, http.StatusSeeOther, mover.Post(fmt.Sprintf("/ops/inquiries/%d/close", id), nil).StatusCode)
	closed := mover.Get(fmt.Sprintf("/ops/inquiries/%d", id))
	assert.Contains(t, closed.Body, "対応終了")
	assert.NotContains(t, closed.Body, `name="answer"`, "a closed inquiry has no answer form")
	webtest.AssertFieldError(t, mover.Post(fmt.Sprintf("/ops/inquiries/%d", id), url.Values{"answer": {"追記"}}), "answer", account.MsgInquiryClosed)
	webtest.AssertFieldError(t, mover.Post(fmt.Sprintf("/ops/inquiries/%d/close", id), nil), "answer", account.MsgInquiryAlreadyClosed)
	assert.Contains(t, buyer.Get(fmt.Sprintf("/inquiries/%d", id)).Body, "対応終了")

	audit, _, err := webtest.Store().AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditInquiry, ObjectID: id, Limit: 10})
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, "close_inquiry", audit[0].Action)
	assert.Equal(t, "answer_inquiry", audit[1].Action)
	assert.Contains(t, mover.Get("/ops/audit?object=inquiry").Body, "お問い合わせへの回答")
}
