package ops_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/calendar"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// secret is the tests' operators' authenticator secret.
const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

const opPassword = "operator password 2026"

var opSeq atomic.Int64

// newOperator creates an operator with roles.
func newOperator(t *testing.T, env *webtest.Env, roles ...string) store.Operator {
	t.Helper()
	n := opSeq.Add(1)
	created, err := env.App.Account.CreateOperator(context.Background(), account.NewOperatorInput{
		EmailAddress: fmt.Sprintf("op-%d-%d@ops.test.example", n, time.Now().UnixNano()%1e6), Name: fmt.Sprintf("担当 %d", n),
		Password: opPassword, Roles: roles, TOTPSecret: secret})
	require.NoError(t, err)
	return created.Operator
}

func code(t *testing.T) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Now())
	require.NoError(t, err)
	return c
}

// signIn signs o in to the console on a new client.
func signIn(t *testing.T, env *webtest.Env, o store.Operator) *webtest.Client {
	t.Helper()
	c := env.Client(t)
	res := c.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {code(t)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	return c
}

func TestOperatorSignInNeedsPasswordAndAuthenticator(t *testing.T) {
	env := webtest.New(t)
	o := newOperator(t, env, pay.RoleScreening)
	c := env.Client(t)
	page := c.Get("/ops/signin")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "運用コンソールへのログイン")
	assert.Contains(t, page.Body, `autocomplete="one-time-code"`)

	res := c.Post("/ops/signin", url.Values{})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "code", "確認コードを入力してください")
	const wrong = "メールアドレス、パスワードまたは確認コードが正しくありません"
	res = c.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {webtest.WrongCode(code(t))}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "email_address", wrong)
	res = c.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {"wrong password"}, "code": {code(t)}})
	webtest.AssertFieldError(t, res, "email_address", wrong)
	res = c.Post("/ops/signin", url.Values{"email_address": {"nobody@ops.test.example"}, "password": {opPassword}, "code": {code(t)}})
	webtest.AssertFieldError(t, res, "email_address", wrong)
	assert.Empty(t, c.Cookie("cardpay_ops"), "no session for a failed sign-in")

	// The right three sign in, on the console's own cookie.
	good := code(t)
	res = c.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {good}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/ops/screening", res.Header.Get("Location"))
	setCookie := strings.Join(res.Header.Values("Set-Cookie"), "\n")
	assert.Contains(t, setCookie, "cardpay_ops=")
	assert.Contains(t, setCookie, "Path=/ops")
	assert.Contains(t, setCookie, "SameSite=Strict")
	assert.Contains(t, setCookie, "HttpOnly")
	assert.Equal(t, http.StatusOK, c.Get("/ops/screening").StatusCode)
	// The same code cannot sign in again.
	other := env.Client(t)
	res = other.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {good}})
	webtest.AssertFieldError(t, res, "email_address", wrong)
	// The sign-in is in the audit log.
	log, _, err := webtest.Store().AuditLog(context.Background(), store.AuditFilter{OperatorID: o.ID, ObjectType: store.AuditSignIn})
	require.NoError(t, err)
	assert.Len(t, log, 1)

	// Signing out ends the session.
	res = c.Post("/ops/signout", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = c.Get("/ops/screening")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/ops/signin?redirect=%2Fops%2Fscreening", res.Header.Get("Location"))
}

func TestBuyerAndOperatorSessionsNeverOpenEachOthersPages(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	buyer := env.Client(t)
	buyer.SignIn(u.EmailAddress)
	for _, path := range []string{"/ops", "/ops/screening", "/ops/suppliers", "/ops/audit", "/ops/screening/1"} {
		res := buyer.Get(path)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/ops/signin"), path)
	}
	res := buyer.Post("/ops/screening/1/check", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/ops/signin", res.Header.Get("Location"))

	o := newOperator(t, env, pay.RoleScreening)
	op := signIn(t, env, o)
	for _, path := range []string{"/toppage", "/payments/review", "/notifications", "/myaccount"} {
		res := op.Get(path)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"), path)
	}
	// The operator's cookie is never sent outside /ops.
	u2, _ := url.Parse(env.URL + "/payments/review")
	for _, ck := range op.HTTP.Jar.Cookies(u2) {
		assert.NotEqual(t, "cardpay_ops", ck.Name)
	}
}

func TestRolesOpenTheirSectionsOnly(t *testing.T) {
	env := webtest.New(t)
	transfers := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	res := transfers.Get("/ops/screening")
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, res.Body, "「審査」の権限が必要です")
	assert.Equal(t, http.StatusForbidden, transfers.Post("/ops/screening/1/check", nil).StatusCode)
	assert.Equal(t, http.StatusOK, transfers.Get("/ops/audit").StatusCode)
	res = transfers.Get("/ops")
	assert.Equal(t, "/ops/transfers", res.Header.Get("Location"))
	screener := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	assert.Equal(t, http.StatusForbidden, screener.Get("/ops/transfers").StatusCode)
	assert.Equal(t, http.StatusForbidden, screener.Post("/ops/transfers/files", url.Values{"date": {"2026-12-01"}}).StatusCode)
}

// paid is a buyer with a payment submitted through the sandbox PSP (a saved card,
// the authorisation), to an unapproved supplier.
type paid struct {
	u        store.User
	c        *webtest.Client
	supplier int64
	id       int64
}

func newPaid(t *testing.T, env *webtest.Env) paid {
	t.Helper()
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "株式会社山田商事", NameKana: "カブシキガイシャヤマダショウジ", CorporateNumber: "1180301018771"},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	res := env.PSP.AddCard(t, c, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := webtest.Store().Cards(ctx, u.BuyerID)
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	d := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 10)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, 1)
	}
	sub, err := env.App.Payments.Submit(ctx, u.BuyerID, invoices.Submission{SubmitKey: fmt.Sprintf("ops-key-%d", opSeq.Add(1)),
		UserID: u.ID, SupplierID: sup.ID, AccountID: accts[0].ID, CardID: cards[0].ID,
		Invoice: pay.InvoiceInput{Amount: "100000", DueDate: pay.ISODate(d.AddDate(0, 0, 5)), TransferDate: pay.ISODate(d), InvoiceNumber: "INV-77"}})
	require.NoError(t, err)
	require.Equal(t, pay.CardAuthorized, sub.Payment.CardStatus)
	return paid{u: u, c: c, supplier: sup.ID, id: sub.Payment.ID}
}

func TestScreeningFromCheckToCaptureWithTwoOperators(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	first, second := newOperator(t, env, pay.RoleScreening), newOperator(t, env, pay.RoleScreening)
	one, two := signIn(t, env, first), signIn(t, env, second)
	number := pay.InvoiceNumber(p.id)
	path := "/ops/screening/" + strconv.FormatInt(p.id, 10)

	queue := one.Get("/ops/screening")
	require.Equal(t, http.StatusOK, queue.StatusCode)
	assert.Contains(t, queue.Body, number)
	assert.Contains(t, queue.Body, "テスト商事株式会社")
	assert.Contains(t, one.Get("/ops/screening?supplier_status=3").Body, number, "filtered by 未承認")
	assert.NotContains(t, one.Get("/ops/screening?supplier_status=1").Body, number)
	assert.NotContains(t, one.Get("/ops/screening?queue=checked").Body, number)

	page := one.Get(path)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	for _, want := range []string{number + "の審査", "¥100,000", "¥103,000", "株式会社山田商事", "未承認", "入力と読み取りの照合",
		"1234567", "確認済にする", "差し戻す", "キャンセルする"} {
		assert.Contains(t, page.Body, want)
	}
	assert.Equal(t, http.StatusNotFound, one.Get(path+"/preview").StatusCode, "typed by hand: no file to draw")
	res := one.Post(path+"/check", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Contains(t, one.Get("/ops/screening?queue=checked").Body, number)
	page = one.Get(path)
	assert.Contains(t, page.Body, "あなたが書類を確認したため")

	res = one.Post(path+"/complete", nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "complete", invoices.MsgSameOperator)
	res = two.Post(path+"/complete", nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "complete", invoices.MsgSupplierNotReady)

	// The supplier's review, with its refusals.
	sp := "/ops/suppliers/" + strconv.FormatInt(p.supplier, 10)
	assert.Contains(t, two.Get("/ops/suppliers").Body, "株式会社山田商事")
	res = two.Post(sp, url.Values{"status": {"4"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "reason", invoices.MsgReviewReason)
	res = two.Post(sp, url.Values{"status": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.NotContains(t, two.Get("/ops/suppliers").Body, "株式会社山田商事")
	// The buyer's supplier page shows the result.
	assert.Contains(t, p.c.Get("/suppliers/"+strconv.FormatInt(p.supplier, 10)).Body, "承認済")

	res = two.Post(path+"/complete", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	env.Settle(t)
	pm, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, p.id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationCompleted, pm.ExaminationStatus)
	assert.Equal(t, pay.CardCaptured, pm.CardStatus, "captured at the sandbox PSP by the job")
	tx, err := env.PSP.Client.Lookup(context.Background(), pm.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, int64(103000), tx.Captured)

	// The buyer's notifications: newest first, unread marked, read when opened.
	list := p.c.Get("/notifications")
	require.Equal(t, http.StatusOK, list.StatusCode)
	for _, want := range []string{"お支払いの審査が完了しました", "取引先が承認されました", "お支払いの書類を確認しました", "お支払いを受け付けました", "未読"} {
		assert.Contains(t, list.Body, want)
	}
	assert.Less(t, strings.Index(list.Body, "お支払いの審査が完了しました"), strings.Index(list.Body, "お支払いを受け付けました"))
	assert.Contains(t, list.Body, "お知らせ（未読があります）")
	l, err := webtest.Store().NotificationPage(context.Background(), p.u.BuyerID, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 4, l.CountAll)
	for _, n := range l.Items {
		page := p.c.Get("/notifications/" + strconv.FormatInt(n.ID, 10))
		require.Equal(t, http.StatusOK, page.StatusCode)
		assert.Contains(t, page.Body, n.Title)
	}
	list = p.c.Get("/notifications")
	assert.NotContains(t, list.Body, "未読</span>")
	assert.NotContains(t, list.Body, "お知らせ（未読があります）", "the bell's dot is gone")
	// Another buyer cannot open them.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusNotFound, oc.Get("/notifications/"+strconv.FormatInt(l.Items[0].ID, 10)).StatusCode)

	// One mail per notification.
	subjects := map[string]int{}
	for range 4 {
		m := env.Mail.WaitFor(t, p.u.EmailAddress, 10*time.Second)
		subjects[m.Subject]++
	}
	assert.Equal(t, 1, subjects["【請求書カード払い】お支払いの審査が完了しました"], subjects)
	assert.Len(t, subjects, 4)

	// The audit log shows who did what.
	audit := one.Get("/ops/audit?object=payment&object_id=" + strconv.FormatInt(p.id, 10))
	require.Equal(t, http.StatusOK, audit.StatusCode)
	assert.Contains(t, audit.Body, "書類確認")
	assert.Contains(t, audit.Body, "審査完了")
	assert.Contains(t, audit.Body, first.Name)
	assert.Contains(t, audit.Body, second.Name)
	assert.Equal(t, http.StatusUnprocessableEntity, one.Get("/ops/audit?object_id=abc").StatusCode)
}

func TestSendBackAndCancelFromTheConsole(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	op := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	path := "/ops/screening/" + strconv.FormatInt(p.id, 10)
	res := op.Post(path+"/send-back", url.Values{"reason": {"other"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "「その他」を選んだときは")
	res = op.Post(path+"/send-back", url.Values{"reason": {"account"}, "message": {"口座番号の末尾をご確認ください"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	mine := p.c.Get("/payments/review/" + strconv.FormatInt(p.id, 10))
	assert.Contains(t, mine.Body, "振込先口座が請求書と一致しません：口座番号の末尾をご確認ください")
	assert.Contains(t, mine.Body, "内容を修正して再申請する")
	assert.Contains(t, p.c.Get("/payments/review").Body, "要対応")

	res = op.Post(path+"/cancel", url.Values{"cancel_reason": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "cancel_reason", "キャンセルの理由を入力してください")
	res = op.Post(path+"/cancel", url.Values{"cancel_reason": {"購入者からの依頼"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	env.Settle(t)
	pm, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, p.id)
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	assert.Equal(t, pay.CardVoided, pm.CardStatus)
	page := op.Get(path)
	assert.Contains(t, page.Body, "いまできる審査の操作はありません")
	assert.Equal(t, http.StatusNotFound, op.Get("/ops/screening/99999999").StatusCode)
}

func TestADisabledOperatorIsSignedOut(t *testing.T) {
	env := webtest.New(t)
	o := newOperator(t, env, pay.RoleScreening)
	c := signIn(t, env, o)
	require.Equal(t, http.StatusOK, c.Get("/ops/screening").StatusCode)
	_, err := webtest.Store().DB.Exec(`UPDATE operators SET disabled_at = now() WHERE id = $1`, o.ID)
	require.NoError(t, err)
	res := c.Get("/ops/screening")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/ops/signin"))
	// Nor can they sign in again.
	res = env.Client(t).Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {code(t)}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
}
