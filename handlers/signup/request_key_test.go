package signup_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/signup"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// linkMailer keeps a request mail's link instead of mailing it.
type linkMailer struct {
	// Mailer answers the rest (NotificationMail): nil, since the store tells the app's
	// service of events, never this one.
	invoices.Mailer
	link string
}

func (m *linkMailer) RequestMailJob(_ string, f pay.RequestMailFacts) (store.NewJob, error) {
	m.link = f.Link
	return store.NewJob{Kind: "test_request_mail"}, nil
}

// A customer who has no account opens the request's link, signs up, registers and signs
// in: the request's key waited in the session all along, and the first signed-in page is
// the request's creditcard page (SPEC.md §2). The request stays 購入者未登録 until then.
func TestARequestKeyWaitsThroughSignUpAndRegistration(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	requester := webtest.NewBuyer(t, pay.Corporation, "1180301018771")
	acct, err := webtest.Store().CreateBuyerAccount(ctx, requester.BuyerID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: "2468024", HolderName: "ﾃｽﾄｼﾖｳｼﾞ(ｶ"})
	require.NoError(t, err)
	m := &linkMailer{}
	s := invoices.New(invoices.Config{Store: webtest.Store(), BaseURL: "http://localhost", Mailer: m})
	r, err := s.Requests.SendRequest(ctx, requester.BuyerID, invoices.RequestSubmission{SubmitKey: "signup-request", UserID: requester.ID,
		AccountID: acct.ID, Request: pay.RequestInput{CustomerName: "株式会社テスト商事", CustomerEmail: "keiri@test.example",
			Amount: "30000", Deadline: pay.ISODate(time.Now().AddDate(0, 0, 30))}})
	require.NoError(t, err)
	link, err := url.Parse(m.link)
	require.NoError(t, err)

	email := webtest.SignupEmail(t)
	c := env.Client(t)
	res := c.Get(link.Path)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page := c.Get(res.Header.Get("Location"))
	assert.Contains(t, page.Body, "新規登録", "the sign-in page offers to sign up")
	code := webtest.SignUp(t, env, c, email)
	res = c.Post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	chooseBusinessForm(t, c, "1")
	// A number of its own, in the registry and held by no other test's buyer: a held
	// customer could not take the request.
	form := signup.CorporationForm()
	form.Set("corporate_number", "8010401123457")
	require.NoError(t, webtest.Store().SaveCorporations(ctx, []store.Corporation{{CorporateNumber: "8010401123457",
		Name: "株式会社テスト商事", Address: "東京都千代田区千代田１－１"}}))
	res = c.Post("/registration", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Post("/registration/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	got, err := webtest.Store().Request(ctx, requester.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionNotRegistered, got.Status(), "registered, not signed in yet: the key still waits")

	// The result page sends them to sign in; the first signed-in page is the request's.
	assert.Contains(t, c.Get("/registration/result").Body, `href="/signin"`)
	c.Get("/signin")
	res = c.Post("/signin", url.Values{"email_address": {email}, "password": {webtest.SignupPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Get(res.Header.Get("Location"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/payments/waiting/") && strings.HasSuffix(loc, "/creditcard"), loc)
	page = c.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "¥30,900")
	got, err = webtest.Store().Request(ctx, requester.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionWaitingPayment, got.Status())
}
