package collections_test

import (
	"context"
	"encoding/json"
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

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/invoicefiles"
	"cardpay/invoices"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
)

// upload posts the create page's plain form (no JavaScript) with one file.
func upload(t *testing.T, c *webtest.Client, name string, content []byte) webtest.Response {
	t.Helper()
	return c.PostFile("/collections/create", pay.InvoiceFileField, name, content)
}

func fileIDs(t *testing.T, buyerID int64) []int64 {
	t.Helper()
	var ids []int64
	require.NoError(t, webtest.Store().DB.Select(&ids, `SELECT id FROM invoice_files WHERE buyer_id = $1 ORDER BY id`, buyerID))
	return ids
}

// hintOf is the hint under a field as the page shows it.
func hintOf(body, field string) string {
	m := regexp.MustCompile(`id="` + field + `-hint"[^>]*>([^<]*)<`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

func receivingAccount(t *testing.T, buyerID int64) store.BuyerAccount {
	t.Helper()
	a, err := webtest.Store().CreateBuyerAccount(context.Background(), buyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "7654321", HolderName: "ｶ)ｲﾗｲﾓﾄ"})
	require.NoError(t, err)
	return a
}

func mailsTo(r requester, address string) int {
	n := 0
	for _, m := range r.env.Mail.Messages() {
		if strings.Contains(strings.ToLower(m.To), address) {
			n++
		}
	}
	return n
}

// The journey from an uploaded invoice, without JavaScript: a refused file stores
// nothing; the file is the requester's and is read (読み取り中 until then, with a link to
// reload); the reading fills the empty fields once, each marked until changed; the
// request is sent once with its file, whatever the double click, and mailed once.
func TestTheRequestJourneyFromAnUploadedInvoice(t *testing.T) {
	r := newRequester(t)
	c := r.c
	ctx := context.Background()

	res := upload(t, c, "memo.txt", []byte("%PDF-1.4 hello"))
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "<title>エラー：")
	_, want := pay.CheckInvoiceFile("memo.txt", []byte("%PDF-1.4 hello"))
	webtest.AssertFieldError(t, res, pay.InvoiceFileField, want)
	assert.Empty(t, fileIDs(t, r.u.BuyerID), "a refused file is not stored")

	pdf, err := invoicegen.RenderPDF(invoicegen.New(3).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	res = upload(t, c, "請求書11月.pdf", pdf)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))
	ids := fileIDs(t, r.u.BuyerID)
	require.Len(t, ids, 1)
	fileID := ids[0]
	// The OCR job ends (whatever it read), then the test says what it read.
	r.env.Settle(t)
	require.NoError(t, webtest.Store().SetInvoiceFileOCR(ctx, r.u.BuyerID, fileID, store.InvoiceFileOCR{Status: store.OCRRunning}))

	page := c.Get("/collections/add/invoice")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "請求書11月.pdf")
	assert.Regexp(t, `href="/api/v1/invoices/files/signed_download/[^"]+" download>請求書11月.pdf<`, page.Body)
	assert.Contains(t, page.Body, "読み取り中")
	assert.Contains(t, page.Body, `<a href="/collections/add/invoice">画面を更新</a>`)
	assert.NotContains(t, page.Body, "http-equiv", "the page never reloads itself")
	assert.NotContains(t, page.Body, "請求書から読み取りました")

	invoiceDate := pay.ISODate(time.Now().AddDate(0, 0, -2))
	due := deadline(25)
	fields, err := json.Marshal(map[string]any{
		"addressee":    map[string]any{"value": "株式会社読取商店", "found": true},
		"total":        map[string]any{"value": 88000, "found": true},
		"invoice_date": map[string]any{"value": invoiceDate, "found": true},
		"due_date":     map[string]any{"value": due, "found": true},
		"issuer_name":  map[string]any{"value": "発行元", "found": true},
	})
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetInvoiceFileOCR(ctx, r.u.BuyerID, fileID, store.InvoiceFileOCR{Status: store.OCRDone, Fields: fields}))
	page = c.Get("/collections/add/invoice")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.NotContains(t, page.Body, "読み取り中")
	for _, v := range []string{`value="株式会社読取商店"`, `value="88000"`, `value="` + invoiceDate + `"`, `value="` + due + `"`} {
		assert.Contains(t, page.Body, v)
	}
	for _, f := range []string{"customer_name", "amount", "invoice_date", "deadline"} {
		assert.Contains(t, hintOf(page.Body, f), "請求書から読み取りました", f)
	}
	assert.NotContains(t, hintOf(page.Body, "customer_email"), "請求書から読み取りました")

	// The amount is changed, the rest kept: only the amount loses its mark.
	form := url.Values{"customer_name": {"株式会社読取商店"}, "customer_email": {"pay@yomitori.example"}, "amount": {"90,000"},
		"invoice_date": {invoiceDate}, "deadline": {due}}
	res = c.Post("/collections/add/invoice", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/add/bank", res.Header.Get("Location"))
	page = c.Get("/collections/add/invoice")
	assert.NotContains(t, hintOf(page.Body, "amount"), "請求書から読み取りました")
	assert.Contains(t, hintOf(page.Body, "customer_name"), "請求書から読み取りました")
	assert.Contains(t, page.Body, `value="90000"`, "the reading is not applied again")

	acct := receivingAccount(t, r.u.BuyerID)
	res = c.Post("/collections/add/invoice", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = c.Post("/collections/add/bank", url.Values{"account": {strconv.FormatInt(acct.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/add/confirm", res.Header.Get("Location"))
	page = c.Get("/collections/add/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	for _, want := range []string{"株式会社読取商店", "¥90,000", "¥2,700", "¥92,700", "請求書11月.pdf", "7654321", `href="/collections/add/bank"`} {
		assert.Contains(t, page.Body, want)
	}
	assert.Regexp(t, `value="customer"\s+checked`, page.Body, "the customer bears the fee by default")
	key := regexp.MustCompile(`name="submit_key" value="([^"]+)"`).FindStringSubmatch(page.Body)[1]
	send := url.Values{"action": {"send"}, "fee_bearer": {"customer"}, "submit_key": {key}}
	res = c.Post("/collections/add/confirm", send)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	complete := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(complete, "/collections/complete?id="), complete)
	// The second click of a double click: the same request's 完了, nothing sent again.
	res = c.Post("/collections/add/confirm", send)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, complete, res.Header.Get("Location"))
	// Another page's key is not that request.
	res = c.Post("/collections/add/confirm", url.Values{"action": {"send"}, "submit_key": {"other"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))

	list, total, err := webtest.Store().Requests(ctx, store.RequestFilter{RequesterID: r.u.BuyerID, Size: 20})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	got := list[0]
	assert.Equal(t, pay.CollectionNotRegistered, got.Status())
	assert.Equal(t, pay.FeeByCustomer, got.FeeBearer)
	assert.Equal(t, int64(92700), got.CustomerCharge())
	assert.Equal(t, int64(90000), got.Transfer())
	require.NotNil(t, got.FileID)
	assert.Equal(t, fileID, *got.FileID)
	r.env.Mail.WaitFor(t, "pay@yomitori.example", 10*time.Second)
	r.env.Settle(t)
	assert.Equal(t, 1, mailsTo(r, "pay@yomitori.example"), "one mail to the customer")

	page = c.Get(complete)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "pay@yomitori.example")
	assert.Contains(t, page.Body, `href="/collections/request/`+strconv.FormatInt(got.ID, 10)+`"`)
	detail := c.Get("/collections/request/" + strconv.FormatInt(got.ID, 10))
	require.Equal(t, http.StatusOK, detail.StatusCode)
	assert.Regexp(t, `href="/api/v1/invoices/files/signed_download/[^"]+" download>`, detail.Body)
	assert.Contains(t, detail.Body, "請求書11月.pdfをダウンロード")
	assert.Contains(t, detail.Body, "支払者（お客さま）が負担")
	// The journey ended: its pages start again.
	res = c.Get("/collections/add/confirm")
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))
}

// The island's destination: the requester's own file starts the journey with it;
// another buyer's file, or none, is 404.
func TestAnUploadedFileStartsTheJourneyForItsOwnerOnly(t *testing.T) {
	r := newRequester(t)
	pdf, err := invoicegen.RenderPDF(invoicegen.New(5).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err)
	f, problem, err := r.env.App.InvoiceFiles.Save(context.Background(), r.u.BuyerID, invoicefiles.Upload{Name: "own.pdf", Bytes: pdf})
	require.NoError(t, err)
	require.Empty(t, problem)
	path := fmt.Sprintf("/collections/create/files/%d", f.ID)

	other := r.env.Client(t)
	ou := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	other.SignIn(ou.EmailAddress)
	assert.Equal(t, http.StatusNotFound, other.Get(path).StatusCode)
	assert.Equal(t, http.StatusNotFound, r.c.Get(fmt.Sprintf("/collections/create/files/%d", 1<<40)).StatusCode)
	assert.Equal(t, http.StatusNotFound, r.c.Get("/collections/create/files/abc").StatusCode)

	res := r.c.Get(path)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))
	page := r.c.Get("/collections/add/invoice")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "own.pdf")
	// Leaving the journey for another page clears it (SPEC.md §2).
	r.c.Get("/collections/request")
	page = r.c.Get("/collections/add/invoice")
	assert.NotContains(t, page.Body, "own.pdf")
}

// A draft resumes at the step where it was saved, with its answers; sending the resumed
// journey deletes the draft.
func TestRequestDraftsResumeAtTheirStep(t *testing.T) {
	r := newRequester(t)
	c := r.c
	ctx := context.Background()
	acct := receivingAccount(t, r.u.BuyerID)
	c.Get("/collections/add/invoice?new=1")
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/invoice", invoiceForm()).StatusCode)

	// Saved on the account step, with the account chosen.
	res := c.Post("/collections/add/bank", url.Values{"account": {strconv.FormatInt(acct.ID, 10)}, "action": {"draft"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/draft", res.Header.Get("Location"))
	drafts, n, err := webtest.Store().Drafts(ctx, r.u.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	draft := "/collections/draft/" + strconv.FormatInt(drafts[0].ID, 10)
	page := c.Get("/collections/draft")
	assert.Contains(t, page.Body, "株式会社お客さま")
	assert.Contains(t, page.Body, "¥120,000")
	assert.Contains(t, page.Body, "下書き（1）")
	res = c.Get(draft)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/bank", res.Header.Get("Location"))
	page = c.Get("/collections/add/bank")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Regexp(t, `value="`+strconv.FormatInt(acct.ID, 10)+`"\s+checked`, page.Body)

	// On to the check, the requester takes the fee, saved again: the same draft.
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/bank", url.Values{"account": {strconv.FormatInt(acct.ID, 10)}}).StatusCode)
	res = c.Post("/collections/add/confirm", url.Values{"fee_bearer": {"requester"}, "action": {"draft"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	_, n, err = webtest.Store().Drafts(ctx, r.u.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the resumed draft is saved over")
	res = c.Get(draft)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/add/confirm", res.Header.Get("Location"))
	page = c.Get("/collections/add/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Regexp(t, `value="requester"\s+checked`, page.Body)
	assert.Contains(t, page.Body, "¥116,400")

	res = c.Post("/collections/add/confirm", url.Values{"action": {"send"}, "fee_bearer": {"requester"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	_, n, err = webtest.Store().Drafts(ctx, r.u.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	assert.Zero(t, n, "a sent draft is gone")
	assert.Equal(t, http.StatusNotFound, c.Get(draft).StatusCode)
	page = c.Get("/collections/draft")
	assert.Contains(t, page.Body, "保存した下書きはありません")

	// A draft whose deadline has passed resumes at the invoice step, which says why.
	c.Get("/collections/add/invoice?new=1")
	old := invoiceForm()
	old.Set("deadline", "2020-01-01")
	old.Set("action", "draft")
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/invoice", old).StatusCode)
	drafts, _, err = webtest.Store().Drafts(ctx, r.u.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	res = c.Get("/collections/draft/" + strconv.FormatInt(drafts[0].ID, 10))
	assert.Equal(t, "/collections/add/invoice", res.Header.Get("Location"))
	old.Del("action")
	res = c.Post("/collections/add/invoice", old)
	webtest.AssertFieldError(t, res, "deadline", "明日以降")
}

// Each status has its page in its list: 支払待ち once the customer took the link, 審査中
// once paid, 期限切れ after the deadline; open ones can be cancelled, paid ones not.
func TestEveryStatusHasItsPage(t *testing.T) {
	r := newRequester(t)
	ctx := context.Background()
	acct := receivingAccount(t, r.u.BuyerID)
	customer := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	cb, err := webtest.Store().Buyer(ctx, customer.BuyerID)
	require.NoError(t, err)
	cc := r.env.Client(t)
	cc.SignIn(customer.EmailAddress)
	res := r.env.PSP.AddCard(t, cc, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := webtest.Store().Cards(ctx, customer.BuyerID)
	require.NoError(t, err)

	send := func(name string, days int) (string, string) {
		email := strings.ToLower(name) + "@customer.example"
		req, err := r.env.App.Requests.SendRequest(ctx, r.u.BuyerID, invoices.RequestSubmission{SubmitKey: "states-" + name, UserID: r.u.ID,
			AccountID: acct.ID, Request: pay.RequestInput{CustomerName: "株式会社" + name, CustomerEmail: email, Amount: "10000", Deadline: deadline(days)}})
		require.NoError(t, err)
		m := r.env.Mail.WaitFor(t, email, 10*time.Second)
		key := regexp.MustCompile(`/payments/request/([A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)
		require.NotNil(t, key)
		return strconv.FormatInt(req.ID, 10), key[1]
	}
	waiting, waitingKey := send("Waiting", 20)
	paid, paidKey := send("Paid", 20)
	expired, _ := send("Expired", 2)
	_, err = r.env.App.Requests.LinkRequestKey(ctx, cb, waitingKey)
	require.NoError(t, err)
	pid, err := r.env.App.Requests.LinkRequestKey(ctx, cb, paidKey)
	require.NoError(t, err)
	_, err = r.env.App.Requests.PayRequest(ctx, customer.BuyerID, pid, "pay-states", cards[0].ID)
	require.NoError(t, err)
	_, err = webtest.Store().ExpireRequests(ctx, time.Now().AddDate(0, 0, 5), time.Now())
	require.NoError(t, err)

	for _, tc := range []struct {
		path, label string
		cancel      bool
		more        []string
	}{
		{"/collections/request/" + waiting, "支払待ち", true, []string{"お客さまが依頼を受け取り", "お客さまのカードでのお支払いを待っています"}},
		{"/collections/request/" + paid, "審査中", false, []string{"お客さまがカードで支払い", "お客さまのお支払いを審査しています"}},
		{"/collections/history/" + expired, "期限切れ", false, []string{"依頼を送信"}},
	} {
		page := r.c.Get(tc.path)
		require.Equal(t, http.StatusOK, page.StatusCode, tc.path)
		assert.Contains(t, page.Body, `status-badge--neutral">`+tc.label+`<`, tc.path)
		for _, want := range tc.more {
			assert.Contains(t, page.Body, want, tc.path)
		}
		if tc.cancel {
			assert.Contains(t, page.Body, "この依頼をキャンセルする", tc.path)
		} else {
			assert.NotContains(t, page.Body, "この依頼をキャンセルする", tc.path)
			// Its cancel question is not asked: back to its page.
			res := r.c.Get(tc.path + "/cancel")
			assert.Equal(t, http.StatusSeeOther, res.StatusCode, tc.path)
			assert.Equal(t, tc.path, res.Header.Get("Location"))
		}
	}
	page := r.c.Get("/collections/request")
	assert.Contains(t, page.Body, "依頼中（2）")
	assert.Contains(t, page.Body, "依頼履歴（1）")

	// Paid: the cancel is refused on its page, with the reason and no はい.
	res = r.c.Post("/collections/request/"+paid+"/cancel", nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "status", "キャンセルできません")
	assert.NotContains(t, res.Body, ">はい<")
	assert.Contains(t, res.Body, `href="/collections/request/`+paid+`"`)
	p, err := webtest.Store().Request(ctx, r.u.BuyerID, mustID(t, paid))
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionInProgress, p.Status())

	// Taken but unpaid: cancelled, and its cancel question under another list's URL goes
	// to its own.
	res = r.c.Get("/collections/decided/" + waiting + "/cancel")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/collections/request/"+waiting+"/cancel", res.Header.Get("Location"))
	res = r.c.Post("/collections/request/"+waiting+"/cancel", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/collections/history/"+waiting, res.Header.Get("Location"))
	w, err := webtest.Store().Request(ctx, r.u.BuyerID, mustID(t, waiting))
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionCancel, w.Status())
	page = r.c.Get("/collections/history/" + waiting)
	assert.Contains(t, page.Body, `status-badge--neutral">キャンセル<`)
}

// The lists show 20 a page, newest first, with the pages linked; empty lists say so and
// lead to 作成.
func TestListsArePagedNewestFirst(t *testing.T) {
	r := newRequester(t)
	ctx := context.Background()
	for _, p := range []string{"/collections/request", "/collections/decided", "/collections/history", "/collections/draft"} {
		page := r.c.Get(p)
		require.Equal(t, http.StatusOK, page.StatusCode, p)
		assert.Contains(t, page.Body, `href="/collections/create"`, p)
		assert.Contains(t, page.Body, "empty-state", p)
	}
	acct := receivingAccount(t, r.u.BuyerID)
	var ids []int64
	for i := range 21 {
		req, err := r.env.App.Requests.SendRequest(ctx, r.u.BuyerID, invoices.RequestSubmission{SubmitKey: "paged-" + strconv.Itoa(i), UserID: r.u.ID,
			AccountID: acct.ID, Request: pay.RequestInput{CustomerName: fmt.Sprintf("株式会社顧客%02d", i), CustomerEmail: fmt.Sprintf("c%02d@customer.example", i),
				Amount: "10000", Deadline: deadline(20)}})
		require.NoError(t, err)
		ids = append(ids, req.ID)
	}
	rows := regexp.MustCompile(`<a href="/collections/request/(\d+)">`)
	page := r.c.Get("/collections/request")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "依頼中（21）")
	first := rows.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, first, 20)
	assert.Equal(t, strconv.FormatInt(ids[20], 10), first[0][1], "newest first")
	assert.Contains(t, page.Body, `href="/collections/request?page=2"`)
	page = r.c.Get("/collections/request?page=2")
	require.Equal(t, http.StatusOK, page.StatusCode)
	second := rows.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, second, 1)
	assert.Equal(t, strconv.FormatInt(ids[0], 10), second[0][1])
	assert.Contains(t, page.Body, "株式会社顧客00")
	assert.Contains(t, page.Body, "¥10,000")
	assert.Contains(t, page.Body, "購入者未登録")
	assert.Contains(t, page.Body, pay.JapaneseDate(time.Now().AddDate(0, 0, 20)))
	r.env.Settle(t)
}

// Sole proprietors may not use any of the requester's pages (SPEC.md §6), and nothing
// is written for them.
func TestSoleProprietorsGetNoCollectionPage(t *testing.T) {
	env := webtest.New(t)
	owner := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	acct := receivingAccount(t, owner.BuyerID)
	req, err := env.App.Requests.SendRequest(context.Background(), owner.BuyerID, invoices.RequestSubmission{SubmitKey: "sole", UserID: owner.ID,
		AccountID: acct.ID, Request: pay.RequestInput{CustomerName: "株式会社顧客", CustomerEmail: "c@customer.example", Amount: "10000", Deadline: deadline(20)}})
	require.NoError(t, err)
	id := strconv.FormatInt(req.ID, 10)

	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(sole.EmailAddress)
	for _, p := range []string{"/collections/create", "/collections/create/files/1", "/collections/add/invoice", "/collections/add/bank",
		"/collections/add/bank/new", "/collections/add/confirm", "/collections/complete?id=" + id, "/collections/draft", "/collections/draft/1",
		"/collections/request", "/collections/request/" + id, "/collections/request/" + id + "/cancel",
		"/collections/decided", "/collections/decided/" + id, "/collections/history", "/collections/history/" + id} {
		res := c.Get(p)
		assert.Equal(t, http.StatusForbidden, res.StatusCode, p)
		assert.Contains(t, res.Body, "カード払い依頼はご利用いただけません", p)
	}
	for _, p := range []string{"/collections/create", "/collections/add/invoice", "/collections/add/bank", "/collections/add/bank/new",
		"/collections/add/confirm", "/collections/draft/delete", "/collections/request/" + id + "/cancel"} {
		assert.Equal(t, http.StatusForbidden, c.Post(p, invoiceForm()).StatusCode, p)
	}
	got, err := webtest.Store().Request(context.Background(), owner.BuyerID, req.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionNotRegistered, got.Status(), "not cancelled")
	accts, err := webtest.Store().BuyerAccounts(context.Background(), sole.BuyerID)
	require.NoError(t, err)
	assert.Empty(t, accts)
	env.Settle(t)
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// An answer that was right on its step can go stale before 依頼を送信する (the deadline
// is tomorrow, and midnight passes): the check says so, linked to the answer's section
// with its 変更 link, and nothing is sent.
func TestTheConfirmPageRechecksEarlierAnswers(t *testing.T) {
	now := time.Now().In(pay.Tokyo())
	clk := webtest.NewClock(time.Date(now.Year(), now.Month(), now.Day(), 23, 50, 0, 0, pay.Tokyo()))
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	acct := receivingAccount(t, u.BuyerID)
	form := invoiceForm()
	form.Set("deadline", pay.ISODate(clk.Now().In(pay.Tokyo()).AddDate(0, 0, 1)))
	c.Get("/collections/add/invoice?new=1")
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/invoice", form).StatusCode)
	require.Equal(t, http.StatusSeeOther, c.Post("/collections/add/bank", url.Values{"account": {strconv.FormatInt(acct.ID, 10)}}).StatusCode)
	require.Equal(t, http.StatusOK, c.Get("/collections/add/confirm").StatusCode)

	clk.Add(20 * time.Minute)
	page := c.Get("/collections/add/confirm")
	require.Equal(t, http.StatusUnprocessableEntity, page.StatusCode)
	assert.Contains(t, page.Body, `<a href="#request-section">お支払い期限は明日以降`)
	assert.Contains(t, page.Body, `id="request-section"`)
	assert.Contains(t, page.Body, `href="/collections/add/invoice#deadline"`)
	res := c.Post("/collections/add/confirm", url.Values{"action": {"send"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	_, total, err := webtest.Store().Requests(context.Background(), store.RequestFilter{RequesterID: u.BuyerID})
	require.NoError(t, err)
	assert.Zero(t, total, "nothing sent")
}
