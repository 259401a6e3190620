package collections_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// requester is a signed-in corporation that may send card-payment requests.
type requester struct {
	env *webtest.Env
	c   *webtest.Client
	u   store.User
}

func newRequester(t *testing.T) requester {
	t.Helper()
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	return requester{env: env, c: c, u: u}
}

func deadline(days int) string { return pay.ISODate(time.Now().AddDate(0, 0, days)) }

func invoiceForm() url.Values {
	return url.Values{"customer_name": {"株式会社お客さま"}, "customer_contact_name": {"経理ご担当"},
		"customer_email": {"keiri@customer.example"}, "amount": {"120,000"}, "invoice_number": {"REQ-0042"},
		"deadline": {deadline(20)}, "message": {"11月分のご請求です。"}}
}

var requestPath = regexp.MustCompile(`^/collections/(request|decided|history)/(\d+)$`)

// The whole journey without JavaScript: by hand, the invoice, a new receiving account,
// the fee on the customer, sent once; the request waits as 購入者未登録 with its mail.
func TestTheRequestJourneyByHand(t *testing.T) {
	r := newRequester(t)
	c := r.c
	page := c.Get("/collections/create")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `data-island="invoice-upload"`)
	assert.Contains(t, page.Body, `href="/collections/add/invoice?new=1"`)

	page = c.Get("/collections/add/invoice?new=1")
	require.Equal(t, http.StatusOK, page.StatusCode)
	// Steps ahead cannot be skipped.
	res := c.Get("/collections/add/confirm")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))

	// Bad input: each message next to its field, nothing kept as done.
	bad := invoiceForm()
	bad.Set("amount", "abc")
	bad.Set("customer_email", "keiri@")
	bad.Set("deadline", "2020-01-01")
	bad.Set("customer_corporate_number", "4180001099993")
	res = c.Post("/collections/add/invoice", bad)
	webtest.AssertFieldError(t, res, "amount", "請求金額は半角数字で")
	webtest.AssertFieldError(t, res, "customer_email", "請求先のメールアドレス")
	webtest.AssertFieldError(t, res, "deadline", "明日以降")
	webtest.AssertFieldError(t, res, "customer_corporate_number", "ご自身の会社")
	assert.Contains(t, res.Body, `value="abc"`, "what was typed stays")

	res = c.Post("/collections/add/invoice", invoiceForm())
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/add/bank", res.Header.Get("Location"))

	page = c.Get("/collections/add/bank")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "新しい口座を登録する")
	res = c.Post("/collections/add/bank", url.Values{})
	webtest.AssertFieldError(t, res, "account", "入金先口座を選んでください")
	res = c.Post("/collections/add/bank", url.Values{"account": {"new"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/bank/new", res.Header.Get("Location"))
	page = c.Get("/collections/add/bank/new?bank_code=0005&branch_code=001")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	account := url.Values{"bank_code": {"0005"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"1234567"}, "holder_name": {"ｶ)ｲﾗｲﾓﾄ"}}
	res = c.Post("/collections/add/bank/new", account)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/add/confirm", res.Header.Get("Location"))

	page = c.Get("/collections/add/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	for _, want := range []string{"株式会社お客さま", "keiri@customer.example", "¥120,000", "REQ-0042", "三菱ＵＦＪ銀行", "1234567",
		"¥3,600", "¥123,600", "支払者（お客さま）が負担", "依頼を送信する", `href="/collections/add/invoice#amount"`} {
		assert.Contains(t, page.Body, want)
	}
	// The requester takes the fee on: the page shows what each side gets.
	key := regexp.MustCompile(`name="submit_key" value="([^"]+)"`).FindStringSubmatch(page.Body)[1]
	res = c.Post("/collections/add/confirm", url.Values{"action": {"fee"}, "fee_bearer": {"requester"}, "submit_key": {key}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page = c.Get("/collections/add/confirm")
	assert.Contains(t, page.Body, "¥116,400", "the transfer less the fee")
	res = c.Post("/collections/add/confirm", url.Values{"action": {"send"}, "fee_bearer": {"requester"}, "submit_key": {key}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/collections/complete?id="), loc)
	// A double click: the same request, no second one.
	res = c.Post("/collections/add/confirm", url.Values{"action": {"send"}, "fee_bearer": {"requester"}, "submit_key": {key}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)

	page = c.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "keiri@customer.example")
	list, total, err := webtest.Store().Requests(context.Background(), store.RequestFilter{RequesterID: r.u.BuyerID, Size: 20})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	got := list[0]
	assert.Equal(t, pay.CollectionNotRegistered, got.Status())
	assert.Equal(t, pay.FeeByRequester, got.FeeBearer)
	assert.Equal(t, int64(116400), got.Transfer())
	// The customer's mail, through the job queue: who asks, how much, the link.
	m := r.env.Mail.WaitFor(t, "keiri@customer.example", 10*time.Second)
	assert.Contains(t, m.Subject, "テスト商事株式会社からカード払いのご依頼が届いています")
	assert.Contains(t, m.Text, "法人番号 4180001099993")
	assert.Contains(t, m.Text, "¥120,000")
	assert.Regexp(t, `/payments/request/[A-Za-z0-9_-]{43}\n`, m.Text)

	// The lists and the request's page.
	page = c.Get("/collections/request")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "株式会社お客さま")
	assert.Contains(t, page.Body, "依頼中（1）")
	detail := "/collections/request/" + strconv.FormatInt(got.ID, 10)
	page = c.Get(detail)
	require.Equal(t, http.StatusOK, page.StatusCode)
	for _, want := range []string{"購入者未登録", "依頼を送信", "ｶ)ｲﾗｲﾓﾄ", "依頼者（自社）が負担", "この依頼をキャンセルする"} {
		assert.Contains(t, page.Body, want)
	}
	// Under another list's URL it goes to its own.
	res = c.Get("/collections/history/" + strconv.FormatInt(got.ID, 10))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, detail, res.Header.Get("Location"))

	// The account is kept: the next request chooses it, and adding it twice is refused.
	c.Get("/collections/add/invoice?new=1")
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/invoice", invoiceForm()).StatusCode)
	page = c.Get("/collections/add/bank")
	assert.Contains(t, page.Body, "1234567")
	res = c.Post("/collections/add/bank/new", account)
	webtest.AssertFieldError(t, res, "account_number", "既に登録されています")
}

func TestCancellingARequestFromItsPage(t *testing.T) {
	r := newRequester(t)
	c := r.c
	c.Get("/collections/add/invoice?new=1")
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/invoice", invoiceForm()).StatusCode)
	acct, err := webtest.Store().CreateBuyerAccount(context.Background(), r.u.BuyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "7654321", HolderName: "ｶ)ｲﾗｲﾓﾄ"})
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/bank", url.Values{"account": {strconv.FormatInt(acct.ID, 10)}}).StatusCode)
	res := c.Post("/collections/add/confirm", url.Values{"action": {"send"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/collections/complete?id=")
	page := c.Get("/collections/request/" + id + "/cancel")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "はい")
	assert.Contains(t, page.Body, "いいえ")

	// Another corporation sees nothing of it.
	other := r.env.Client(t)
	ou := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	other.SignIn(ou.EmailAddress)
	for _, p := range []string{"/collections/request/" + id, "/collections/request/" + id + "/cancel"} {
		assert.Equal(t, http.StatusNotFound, other.Get(p).StatusCode, p)
	}
	// The complete page of a request not theirs is their landing list, and names nothing.
	res = other.Get("/collections/complete?id=" + id)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/history", res.Header.Get("Location"))
	assert.Equal(t, http.StatusNotFound, other.Post("/collections/request/"+id+"/cancel", nil).StatusCode)

	res = c.Post("/collections/request/"+id+"/cancel", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/history/"+id, res.Header.Get("Location"))
	page = c.Get("/collections/history/" + id)
	assert.Contains(t, page.Body, "カード払い依頼をキャンセルしました")
	assert.Contains(t, page.Body, "キャンセル")
	assert.NotContains(t, page.Body, "この依頼をキャンセルする")
	// Twice: back to its page, nothing more.
	res = c.Get("/collections/history/" + id + "/cancel")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = c.Post("/collections/history/"+id+"/cancel", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, c.Get("/collections/history").Body, "依頼履歴（1）")
}

func TestRequestDraftsSaveResumeAndDelete(t *testing.T) {
	r := newRequester(t)
	c := r.c
	c.Get("/collections/add/invoice?new=1")
	form := url.Values{"customer_name": {"株式会社下書き"}, "amount": {"5000"}, "action": {"draft"}}
	res := c.Post("/collections/add/invoice", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/draft", res.Header.Get("Location"))
	page := c.Get("/collections/draft")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "株式会社下書き")
	assert.Contains(t, page.Body, "¥5,000")
	href := regexp.MustCompile(`href="(/collections/draft/(\d+))"`).FindStringSubmatch(page.Body)
	require.NotNil(t, href)
	res = c.Get(href[1])
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))
	page = c.Get("/collections/add/invoice")
	assert.Contains(t, page.Body, `value="株式会社下書き"`)

	// Another corporation cannot open or delete it.
	other := r.env.Client(t)
	ou := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	other.SignIn(ou.EmailAddress)
	assert.Equal(t, http.StatusNotFound, other.Get(href[1]).StatusCode)
	other.Post("/collections/draft/delete", url.Values{"draft": {href[2]}})
	_, n, err := webtest.Store().Drafts(context.Background(), r.u.BuyerID, store.RequestDraft, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	other.Post("/collections/draft/delete", url.Values{"draft": {href[2]}, "confirmed": {"1"}})
	_, n, err = webtest.Store().Drafts(context.Background(), r.u.BuyerID, store.RequestDraft, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "answered or not, another's draft stays")

	res = c.Post("/collections/draft/delete", url.Values{})
	webtest.AssertFieldError(t, res, "draft", "削除する下書きを選んでください")
	// Ticked: asked first (はい / いいえ, SPEC.md §8), naming the draft.
	ask := c.Post("/collections/draft/delete", url.Values{"draft": {href[2]}})
	require.Equal(t, http.StatusOK, ask.StatusCode)
	for _, want := range []string{"下書きを削除しますか？", "株式会社下書き（", ">はい<", `href="/collections/draft">いいえ</a>`,
		`name="draft" value="` + href[2] + `"`, `name="confirmed" value="1"`, `action="/collections/draft/delete"`} {
		assert.Contains(t, ask.Body, want)
	}
	_, n, err = webtest.Store().Drafts(context.Background(), r.u.BuyerID, store.RequestDraft, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "asking deletes nothing")
	res = c.Post("/collections/draft/delete", url.Values{"draft": {href[2]}, "confirmed": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/draft", res.Header.Get("Location"))
	_, n, err = webtest.Store().Drafts(context.Background(), r.u.BuyerID, store.RequestDraft, 0, 0)
	require.NoError(t, err)
	assert.Zero(t, n)
}

// The lists of every state: requests moved along (the customer takes one and pays it,
// screening completes it, the transfer is made; another is cancelled) show in the list
// their status belongs to, with the tab counts.
func TestListsFollowTheRequestsStatus(t *testing.T) {
	r := newRequester(t)
	ctx := context.Background()
	page := r.c.Get("/collections/request")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "お支払いを待っているカード払い依頼はありません")
	acct, err := webtest.Store().CreateBuyerAccount(ctx, r.u.BuyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "7654321", HolderName: "ｶ)ｲﾗｲﾓﾄ"})
	require.NoError(t, err)
	customer := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	cb, err := webtest.Store().Buyer(ctx, customer.BuyerID)
	require.NoError(t, err)
	cc := r.env.Client(t)
	cc.SignIn(customer.EmailAddress)
	res := r.env.PSP.AddCard(t, cc, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := webtest.Store().Cards(ctx, customer.BuyerID)
	require.NoError(t, err)

	send := func(name string) (int64, string) {
		email := strings.ToLower(name) + "@customer.example"
		req, err := r.env.App.Requests.SendRequest(ctx, r.u.BuyerID, invoices.RequestSubmission{SubmitKey: "lists-" + name, UserID: r.u.ID,
			AccountID: acct.ID, Request: pay.RequestInput{CustomerName: "株式会社" + name, CustomerEmail: email, Amount: "10000", Deadline: deadline(20)}})
		require.NoError(t, err)
		m := r.env.Mail.WaitFor(t, email, 10*time.Second)
		key := regexp.MustCompile(`/payments/request/([A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)
		require.NotNil(t, key)
		return req.ID, key[1]
	}
	waiting, _ := send("Waiting")
	decided, decidedKey := send("Decided")
	paid, paidKey := send("Paid")
	cancelled, _ := send("Cancelled")
	customerInvoice := map[string]int64{}
	for _, k := range []string{decidedKey, paidKey} {
		id, err := r.env.App.Requests.LinkRequestKey(ctx, cb, k)
		require.NoError(t, err)
		customerInvoice[k] = id
		res, err := r.env.App.Requests.PayRequest(ctx, customer.BuyerID, id, "pay-"+k[:8], cards[0].ID)
		require.NoError(t, err)
		steps := []pay.PaymentAction{pay.ActCheck, pay.ActComplete}
		if k == paidKey {
			// Captured, then the transfer file's steps: filed, sent, done.
			steps = append(steps, pay.ActFile, pay.ActSend, pay.ActTransfer)
		}
		for _, a := range steps {
			if a == pay.ActFile {
				require.NoError(t, webtest.Store().SetPaymentCard(ctx, nil, customer.BuyerID, id, res.Payment.PaymentRef, pay.CardCaptured, "A001", time.Now()))
			}
			_, err := webtest.Store().Transition(ctx, customer.BuyerID, id, a, "operator:1", "", time.Now(), nil)
			require.NoError(t, err)
		}
	}
	_, err = r.env.App.Requests.CancelRequest(ctx, r.u.BuyerID, cancelled, r.u.ID)
	require.NoError(t, err)

	for _, tc := range []struct {
		path    string
		has     []int64
		hasNot  []int64
		label   string
		heading string
	}{
		{"/collections/request", []int64{waiting}, []int64{decided, paid, cancelled}, "購入者未登録", "依頼中（1）"},
		{"/collections/decided", []int64{decided}, []int64{waiting, paid, cancelled}, "審査完了", "支払確定（1）"},
		{"/collections/history", []int64{paid, cancelled}, []int64{waiting, decided}, "入金完了", "依頼履歴（2）"},
	} {
		page := r.c.Get(tc.path)
		require.Equal(t, http.StatusOK, page.StatusCode, tc.path)
		assert.Contains(t, page.Body, tc.heading, tc.path)
		assert.Contains(t, page.Body, tc.label, tc.path)
		for _, id := range tc.has {
			assert.Contains(t, page.Body, `href="`+tc.path+"/"+strconv.FormatInt(id, 10)+`"`, tc.path)
			detail := r.c.Get(tc.path + "/" + strconv.FormatInt(id, 10))
			assert.Equal(t, http.StatusOK, detail.StatusCode, tc.path)
		}
		for _, id := range tc.hasNot {
			assert.NotContains(t, page.Body, pay.InvoiceNumber(id), tc.path)
		}
	}
	detail := r.c.Get("/collections/history/" + strconv.FormatInt(paid, 10))
	for _, want := range []string{"入金完了", "お客さまがカードで支払い", "審査完了（支払確定）", "お客さまのお支払い日時"} {
		assert.Contains(t, detail.Body, want)
	}
	assert.NotContains(t, detail.Body, "この依頼をキャンセルする", "paid: no cancel")
	res = r.c.Post("/collections/decided/"+strconv.FormatInt(decided, 10)+"/cancel", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "paid and screened: too late to cancel")
	// The customer's supplier page shows the request as a collection.
	sups, _, err := webtest.Store().Suppliers(ctx, store.SupplierFilter{BuyerID: customer.BuyerID, Group: pay.SupplierEnable, Size: 5})
	require.NoError(t, err)
	require.Len(t, sups, 1)
	assert.Equal(t, "テスト商事株式会社", sups[0].Name)
	hist := cc.Get("/suppliers/" + strconv.FormatInt(sups[0].ID, 10) + "/payment-history")
	require.Equal(t, http.StatusOK, hist.StatusCode)
	assert.Contains(t, hist.Body, "/collection-history/")
	// The customer's invoice of a request opened under payment-history goes to its own
	// collection-history path (303); under its own it is shown.
	supplierPath := "/suppliers/" + strconv.FormatInt(sups[0].ID, 10)
	paidInvoice := strconv.FormatInt(customerInvoice[paidKey], 10)
	res = cc.Get(supplierPath + "/payment-history/" + paidInvoice)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, supplierPath+"/collection-history/"+paidInvoice, res.Header.Get("Location"))
	assert.Equal(t, http.StatusOK, cc.Get(supplierPath+"/collection-history/"+paidInvoice).StatusCode)
	assert.Equal(t, http.StatusNotFound, r.c.Get(supplierPath+"/payment-history/"+paidInvoice).StatusCode, "another buyer's supplier")

	// A request's pages opened under another list's path go to its own list's (303), its
	// cancel question too; the complete page opened again shows while the request is open
	// and leads to its page once it moved on.
	lists := []string{"/collections/request", "/collections/decided", "/collections/history"}
	for _, tc := range []struct {
		id  int64
		own string
	}{{waiting, "/collections/request"}, {decided, "/collections/decided"}, {paid, "/collections/history"}, {cancelled, "/collections/history"}} {
		id := strconv.FormatInt(tc.id, 10)
		for _, l := range lists {
			if l == tc.own {
				continue
			}
			for _, tail := range []string{"", "/cancel"} {
				want := tc.own + "/" + id + tail
				if tail == "/cancel" && tc.own != "/collections/request" {
					want = tc.own + "/" + id // too late to cancel: the request's page
				}
				res := r.c.Get(l + "/" + id + tail)
				require.Equal(t, http.StatusSeeOther, res.StatusCode, l+"/"+id+tail)
				assert.Equal(t, want, res.Header.Get("Location"), l+"/"+id+tail)
			}
		}
		res := r.c.Get("/collections/complete?id=" + id)
		if tc.own == "/collections/request" {
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Contains(t, res.Body, `href="/collections/request/`+id+`"`)
			continue
		}
		require.Equal(t, http.StatusSeeOther, res.StatusCode, id)
		assert.Equal(t, tc.own+"/"+id, res.Header.Get("Location"))
	}
	for _, q := range []string{"", "?id=", "?id=x", "?id=99999999"} {
		res := r.c.Get("/collections/complete" + q)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, q)
		assert.Equal(t, "/collections/request", res.Header.Get("Location"), "%s: the landing rule", q)
	}
}

func TestSoleProprietorsAndExcludedCorporationsCannotRequest(t *testing.T) {
	env := webtest.New(t, func(d *web.Deps) { d.CollectionExclusions = map[string]bool{"2010401099991": true} })
	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	excluded := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	for _, u := range []store.User{sole, excluded} {
		c := env.Client(t)
		c.SignIn(u.EmailAddress)
		for _, p := range []string{"/collections/create", "/collections/add/invoice?new=1", "/collections/add/bank",
			"/collections/add/confirm", "/collections/request", "/collections/decided", "/collections/history", "/collections/draft"} {
			assert.Equal(t, http.StatusForbidden, c.Get(p).StatusCode, p)
		}
		assert.Equal(t, http.StatusForbidden, c.Post("/collections/add/invoice", invoiceForm()).StatusCode)
		assert.Equal(t, http.StatusForbidden, c.Post("/collections/add/confirm", url.Values{"action": {"send"}}).StatusCode)
		_, total, err := webtest.Store().Requests(context.Background(), store.RequestFilter{RequesterID: u.BuyerID})
		require.NoError(t, err)
		assert.Zero(t, total, "nothing written")
		page := c.Get("/collections/request")
		assert.Contains(t, page.Body, "カード払い依頼は法人のお客さまがご利用いただける機能です")
	}
}
