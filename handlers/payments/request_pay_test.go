package payments_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// keyMailer keeps the request mails' links, so a test can open the link as the customer
// would from the mail.
type keyMailer struct {
	// Mailer answers the rest (NotificationMail): nil, since the store tells the app's
	// service of events, never this one.
	invoices.Mailer
	mu    sync.Mutex
	links []string
}

func (m *keyMailer) RequestMailJob(to string, f pay.RequestMailFacts) (store.NewJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.links = append(m.links, f.Link)
	return store.NewJob{Kind: "test_request_mail", Payload: map[string]string{"to": to}}, nil
}

// path is the newest link's path (/payments/request/<key>).
func (m *keyMailer) path(t *testing.T) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	require.NotEmpty(t, m.links)
	u, err := url.Parse(m.links[len(m.links)-1])
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(u.Path, invoices.RequestLinkPath), u.Path)
	return u.Path
}

var corpSeq sync.Mutex
var corpN int64

// corporateNumber is a valid corporate number of its own for each call.
func corporateNumber() string {
	corpSeq.Lock()
	defer corpSeq.Unlock()
	corpN++
	base := fmt.Sprintf("%012d", 810000000000+corpN)
	d, _ := pay.CorporateCheckDigit(base)
	return strconv.Itoa(d) + base
}

// sendRequest makes a corporation that sends a request (amount 50,000, the customer
// bearing the fee) and answers it with the link's path.
func sendRequest(t *testing.T, m *keyMailer, edit ...func(*invoices.RequestSubmission)) (store.Request, string) {
	t.Helper()
	ctx := context.Background()
	requester := webtest.NewBuyer(t, pay.Corporation, corporateNumber())
	acct, err := webtest.Store().CreateBuyerAccount(ctx, requester.BuyerID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: "7777777", HolderName: "ﾃｽﾄｼﾖｳｼﾞ(ｶ"})
	require.NoError(t, err)
	s := invoices.New(invoices.Config{Store: webtest.Store(), BaseURL: "http://localhost", Mailer: m})
	sub := invoices.RequestSubmission{SubmitKey: "send-" + corporateNumber(), UserID: requester.ID, AccountID: acct.ID,
		Request: pay.RequestInput{CustomerName: "株式会社お客さま", CustomerEmail: "keiri@customer.example", Amount: "50000",
			InvoiceNumber: "REQ-7", Deadline: pay.ISODate(pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 20)), Message: "よろしくお願いします"}}
	for _, e := range edit {
		e(&sub)
	}
	r, err := s.Requests.SendRequest(ctx, requester.BuyerID, sub)
	require.NoError(t, err)
	return r, m.path(t)
}

func TestARequestLinkOpensTheCreditCardPageAfterSignIn(t *testing.T) {
	m := &keyMailer{}
	r, link := sendRequest(t, m)
	p := newPayer(t, "4111111111111111")
	customer := p.u

	// Signed out: the link asks for a sign-in, keeping the key across the sign-in page.
	anon := p.env.Client(t)
	res := anon.Get(link)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin?redirect=/payments/waiting", res.Header.Get("Location"))
	page := anon.Get("/signin?redirect=/payments/waiting")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "カード払いのご依頼を受け取るには、ログインしてください")
	anon.SignIn(customer.EmailAddress)
	res = anon.Get("/payments/waiting")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.Regexp(t, `^/payments/waiting/\d+/creditcard$`, loc)
	id, _ := strconv.ParseInt(strings.Split(loc, "/")[3], 10, 64)

	// The creditcard page: who asks, how much, the card.
	page = anon.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	for _, want := range []string{"テスト商事株式会社", "¥50,000", "¥1,500", "¥51,500", "REQ-7", "よろしくお願いします", "カードで支払う", `name="card_id"`} {
		assert.Contains(t, page.Body, want)
	}
	// The requester's receiving account is new to the customer and says so, with the
	// bank details, until the operators approve it.
	notice := between(t, page.Body, `id="account-new-title"`, "</section>")
	assert.Contains(t, notice, "新しい振込先口座です")
	assert.Contains(t, notice, r.AccountNumber)
	assert.Contains(t, notice, r.HolderName)
	// The waiting list and the request's page offer it.
	list := anon.Get("/payments/waiting")
	require.Equal(t, http.StatusOK, list.StatusCode, "the key was used once; the list shows now")
	assert.Contains(t, list.Body, "テスト商事株式会社")
	detail := anon.Get("/payments/waiting/" + strconv.FormatInt(id, 10))
	require.Equal(t, http.StatusOK, detail.StatusCode)
	assert.Contains(t, detail.Body, `href="`+loc+`"`)

	// Without a card chosen: 422 next to the field, nothing charged.
	key := submitKeyOf(t, page.Body)
	res = anon.Post(loc, url.Values{"submit_key": {key}})
	webtest.AssertFieldError(t, res, "card_id", "お支払いに使うカードを選んでください")

	cards, err := webtest.Store().Cards(context.Background(), customer.BuyerID)
	require.NoError(t, err)
	form := url.Values{"submit_key": {key}, "card_id": {strconv.FormatInt(cards[0].ID, 10)}}
	res = anon.Post(loc, form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/payments/review/"+strconv.FormatInt(id, 10), res.Header.Get("Location"))
	// The same form again (a double click): the same payment, no second charge.
	res = anon.Post(loc, form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	pm, err := webtest.Store().Payment(context.Background(), customer.BuyerID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, pm.ExaminationStatus)
	assert.Equal(t, int64(51500), pm.AuthorizedAmount)
	got, err := webtest.Store().Request(context.Background(), r.RequesterID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionInProgress, got.Status())
	// Paid: the creditcard page now shows the payment instead.
	res = anon.Get(loc)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/review/"+strconv.FormatInt(id, 10), res.Header.Get("Location"))
}

func TestARequestLinkSignedInGoesStraightToPaying(t *testing.T) {
	m := &keyMailer{}
	_, link := sendRequest(t, m)
	p := newPayer(t, "")
	res := p.c.Get(link)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/waiting", res.Header.Get("Location"))
	res = p.c.Get("/payments/waiting")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Regexp(t, `^/payments/waiting/\d+/creditcard$`, res.Header.Get("Location"))
	// The creditcard page of a customer without a card: add one and come back.
	page := p.c.Get(res.Header.Get("Location"))
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "登録済みのカードがありません")
	assert.Contains(t, page.Body, "/myaccount/creditcards/new?return="+res.Header.Get("Location"))
}

func TestRequestLinksThatCannotBeOpened(t *testing.T) {
	m := &keyMailer{}
	_, link := sendRequest(t, m)
	first, third := newPayer(t, ""), newPayer(t, "")

	res := first.c.Get(link)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, http.StatusSeeOther, first.c.Get("/payments/waiting").StatusCode)

	// Used by another account: the server's message (status "2").
	third.c.Get(link)
	page := third.c.Get("/payments/waiting")
	require.Equal(t, http.StatusBadRequest, page.StatusCode)
	assert.Contains(t, page.Body, "請求支払の取得に失敗しました")
	assert.Contains(t, page.Body, "既に別のアカウントで受け取られています")
	assert.Contains(t, page.Body, "<dialog open")
	// The key was taken from the session: the next page is the page itself.
	assert.Equal(t, http.StatusOK, third.c.Get("/payments/waiting").StatusCode)

	// Cancelled by the requester: the default text.
	r2, link2 := sendRequest(t, m)
	_, err := webtest.Store().CancelRequest(context.Background(), r2.RequesterID, r2.ID, "buyer:1", time.Now())
	require.NoError(t, err)
	third.c.Get(link2)
	page = third.c.Get("/payments/waiting")
	require.Equal(t, http.StatusBadRequest, page.StatusCode)
	assert.Contains(t, page.Body, invoices.MsgKeyFailed)

	// Not a key at all.
	third.c.Get(invoices.RequestLinkPath + "not-a-key")
	page = third.c.Get("/toppage")
	require.Equal(t, http.StatusBadRequest, page.StatusCode)
	assert.Contains(t, page.Body, invoices.MsgKeyFailed)

	// Another buyer's creditcard page is 404, by GET and by POST.
	res = first.c.Get("/payments/waiting")
	require.Equal(t, http.StatusOK, res.StatusCode)
	id := waitingID(t, first.u.BuyerID)
	assert.Equal(t, http.StatusNotFound, third.c.Get(fmt.Sprintf("/payments/waiting/%d/creditcard", id)).StatusCode)
	assert.Equal(t, http.StatusNotFound, third.c.Post(fmt.Sprintf("/payments/waiting/%d/creditcard", id), url.Values{"card_id": {"1"}}).StatusCode)
	// A payment of one's own is not a request.
	assert.Equal(t, http.StatusNotFound, third.c.Get("/payments/waiting/abc/creditcard").StatusCode)
}

// waitingID is the id of the buyer's one request waiting for the card.
func waitingID(t *testing.T, buyerID int64) int64 {
	t.Helper()
	list, _, err := webtest.Store().Payments(context.Background(), store.PaymentFilter{BuyerID: buyerID, Bucket: pay.BucketWaiting, Size: 5})
	require.NoError(t, err)
	require.Len(t, list, 1)
	return list[0].ID
}

// submitKeyOf reads the page's one-time key.
func submitKeyOf(t *testing.T, body string) string {
	t.Helper()
	const marker = `name="submit_key" value="`
	i := strings.Index(body, marker)
	require.GreaterOrEqual(t, i, 0)
	rest := body[i+len(marker):]
	return rest[:strings.Index(rest, `"`)]
}

func TestPayingARequestWithAChallenge(t *testing.T) {
	m := &keyMailer{}
	r, link := sendRequest(t, m, func(sub *invoices.RequestSubmission) { sub.FeeBearer = pay.FeeByRequester })
	p := newPayer(t, "4000000000003220")
	p.c.Get(link)
	res := p.c.Get("/payments/waiting")
	loc := res.Header.Get("Location")
	page := p.c.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "依頼元が負担します")
	cards, err := webtest.Store().Cards(context.Background(), p.u.BuyerID)
	require.NoError(t, err)
	res = p.c.Post(loc, url.Values{"submit_key": {submitKeyOf(t, page.Body)}, "card_id": {strconv.FormatInt(cards[0].ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	action := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(action, p.env.PSP.URL), action)
	back := p.env.PSP.Challenge(t, action, true)
	res = p.c.Get(back)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Regexp(t, `^/payments/review/\d+$`, res.Header.Get("Location"))
	assert.Contains(t, p.c.Get(res.Header.Get("Location")).Body, "お支払いを受け付けました")
	got, err := webtest.Store().Request(context.Background(), r.RequesterID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionInProgress, got.Status())
	require.NotNil(t, got.PaymentInvoiceID)
	pm, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, *got.PaymentInvoiceID)
	require.NoError(t, err)
	assert.Equal(t, int64(50000), pm.AuthorizedAmount, "the requester bears the fee: the card is charged the amount")
}

// between is the part of body from from up to to.
func between(t *testing.T, body, from, to string) string {
	t.Helper()
	i := strings.Index(body, from)
	require.GreaterOrEqual(t, i, 0, "%q in the page", from)
	rest := body[i:]
	j := strings.Index(rest, to)
	require.GreaterOrEqual(t, j, 0, "%q after %q", to, from)
	return rest[:j]
}
