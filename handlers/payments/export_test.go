package payments_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// transferred adds a payment of u to supplier whose transfer completed at (Japan time).
func transferred(t *testing.T, u store.User, supplierID, amount, fee int64, at time.Time, invoiceNo string) int64 {
	t.Helper()
	id, err := webtest.Store().CreateInvoice(context.Background(), u.BuyerID, store.NewInvoice{SupplierID: supplierID,
		InvoiceType: pay.InvoicePayment, ExaminationStatus: pay.TransferCompleted, Amount: amount})
	require.NoError(t, err)
	_, err = webtest.Store().DB.Exec(`UPDATE invoices SET fee = $2, transferred_at = $3, captured_at = $3, submitted_at = $3,
		invoice_number = $4 WHERE id = $1`, id, fee, at, invoiceNo)
	require.NoError(t, err)
	return id
}

// The books' exports, without JavaScript: the form refuses a bad period or account at
// its field; the list and each product's journal hold the buyer's payments paid in the
// period only (not another buyer's, not one paid outside it), read back by each layout;
// the accounts typed are kept for the next export.
func TestBooksExport(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	ctx := context.Background()
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "=株式会社青葉産業",
		NameKana: "アオバサンギョウ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	osup, err := webtest.Store().CreateSupplier(ctx, other.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社他社",
		NameKana: "タシャ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	jst := pay.Tokyo()
	a := transferred(t, u, sup.ID, 110000, 3300, time.Date(2026, 10, 1, 0, 30, 0, 0, jst), "INV-1")  // the first minutes of the period
	b := transferred(t, u, sup.ID, 55000, 1650, time.Date(2026, 10, 31, 23, 50, 0, 0, jst), "INV-2") // its last
	transferred(t, u, sup.ID, 9999, 299, time.Date(2026, 11, 1, 0, 0, 0, 0, jst), "INV-3")           // the next day
	transferred(t, other, osup.ID, 7777, 233, time.Date(2026, 10, 15, 12, 0, 0, 0, jst), "INV-X")    // another buyer's

	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	assert.Contains(t, c.Get("/payments/history").Body, `href="/payments/history/export"`)
	page := c.Get("/payments/history/export")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `value="買掛金"`)

	form := func(format string, changes ...string) url.Values {
		v := url.Values{"from": {"2026-10-01"}, "to": {"2026-10-31"}, "format": {format}, "payable": {"買掛金"}, "fee": {"支払手数料"},
			"card": {"未払金"}, "card_detail": {"法人カード"}}
		for i := 0; i+1 < len(changes); i += 2 {
			v.Set(changes[i], changes[i+1])
		}
		return v
	}
	res := c.Post("/payments/history/export", form("yayoi", "to", "2026-09-30"))
	webtest.AssertFieldError(t, res, "to", "終了日は開始日以降の日付を入力してください")
	res = c.Post("/payments/history/export", form("yayoi", "payable", ""))
	webtest.AssertFieldError(t, res, "payable", "勘定科目名を入力してください")
	res = c.Post("/payments/history/export", form("excel"))
	webtest.AssertFieldError(t, res, "format", "形式を選択してください")

	rows := func(res webtest.Response, sjis bool) [][]string {
		t.Helper()
		require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
		b := []byte(res.Body)
		if sjis {
			var err error
			b, err = japanese.ShiftJIS.NewDecoder().Bytes(b)
			require.NoError(t, err)
		}
		r, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
		require.NoError(t, err)
		return r
	}
	list := rows(c.Post("/payments/history/export", form("list")), false)
	require.Len(t, list, 3, "the header and the two payments of October")
	assert.Equal(t, pay.InvoiceNumber(a), list[1][0])
	assert.Equal(t, pay.InvoiceNumber(b), list[2][0])
	assert.Equal(t, "'=株式会社青葉産業", list[1][2], "a name a spreadsheet would run is text")
	assert.Equal(t, []string{"110000", "3300", "300", "113300"}, list[1][10:14])

	res = c.Post("/payments/history/export", form("yayoi"))
	assert.Contains(t, res.Header.Get("Content-Type"), "Shift_JIS")
	yayoi := rows(res, true)
	require.Len(t, yayoi, 4, "two entries a payment, no header")
	var debit, credit int64
	for _, r := range yayoi {
		require.Len(t, r, pay.YayoiColumns)
		var d, cr int64
		fmt.Sscan(r[8], &d)
		fmt.Sscan(r[14], &cr)
		debit, credit = debit+d, credit+cr
		assert.Equal(t, "法人カード", r[11])
	}
	assert.Equal(t, int64(110000+3300+55000+1650), debit)
	assert.Equal(t, debit, credit)
	assert.Equal(t, "2026/10/01", yayoi[0][3])
	assert.Equal(t, "2026/10/31", yayoi[3][3])

	mf := rows(c.Post("/payments/history/export", form("moneyforward")), true)
	assert.Equal(t, "取引No", mf[0][0])
	assert.Len(t, mf, 5)
	freee := rows(c.Post("/payments/history/export", form("freee", "fee", "支払手数料等")), false)
	assert.Equal(t, "日付", freee[0][0])
	assert.Len(t, freee, 5)
	assert.Equal(t, "支払手数料等", freee[2][3])
	assert.Contains(t, c.Get("/payments/history/export").Body, `value="支払手数料等"`, "kept for the next time")

	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	theirs := rows(oc.Post("/payments/history/export", form("list")), false)
	require.Len(t, theirs, 2)
	assert.True(t, strings.HasPrefix(theirs[1][2], "株式会社他社"))
	assert.Contains(t, oc.Get("/payments/history/export").Body, `value="支払手数料"`, "the other buyer's accounts are its own")
}

// The requests' list is a corporation's (who may send card-payment requests): offered
// and answered for it, refused at the field for a sole proprietor.
func TestBooksExportOfRequests(t *testing.T) {
	env := webtest.New(t)
	corp := webtest.NewBuyer(t, pay.Corporation, "")
	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	form := url.Values{"from": {"2026-10-01"}, "to": {"2026-10-31"}, "format": {"requests"}, "payable": {"買掛金"}, "fee": {"支払手数料"},
		"card": {"未払金"}}

	c := env.Client(t)
	c.SignIn(corp.EmailAddress)
	assert.Contains(t, c.Get("/payments/history/export").Body, "カード払い依頼の入金一覧")
	res := c.Post("/payments/history/export", form)
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.Body, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1, "the header: no request was paid in the period")
	assert.Equal(t, "依頼番号", rows[0][0])

	s := env.Client(t)
	s.SignIn(sole.EmailAddress)
	assert.NotContains(t, s.Get("/payments/history/export").Body, "カード払い依頼の入金一覧")
	webtest.AssertFieldError(t, s.Post("/payments/history/export", form), "format", "形式を選択してください")
}
