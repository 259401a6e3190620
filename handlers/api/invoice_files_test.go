package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/banks"
	"cardpay/handlers/api"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/invoiceread"
	"cardpay/pay"
	"cardpay/store"
)

// A small valid PDF (one page, a text layer) and PNG, made here so that no binary sits in
// the repository.
func minimalPDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
		"<< /Length 0 >>\nstream\n\nendstream",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func smallPNG(t *testing.T) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, 20, 10))))
	return b.Bytes()
}

// pngHeader claims width×height pixels: a decompression bomb as far as the header says.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 'I', 'H', 'D', 'R'})
	for _, v := range []uint32{w, h} {
		b.Write([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	b.Write([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0})
	return b.Bytes()
}

// multipartBody is a form with one file part named field.
func multipartBody(t *testing.T, field, name string, content []byte) (*bytes.Buffer, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if name != "" || content != nil {
		p, err := w.CreateFormFile(field, name)
		require.NoError(t, err)
		_, err = p.Write(content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return &b, w.FormDataContentType()
}

// upload posts a file through the API in the client's mode (tokens or cookie).
func (c *client) upload(name string, content []byte) result {
	c.t.Helper()
	body, ct := multipartBody(c.t, "invoice_file", name, content)
	return c.send(http.MethodPost, "/invoices/files/upload", body, ct)
}

// send is call with a body that is not JSON.
func (c *client) send(method, path string, body *bytes.Buffer, contentType string) result {
	c.t.Helper()
	req, err := http.NewRequest(method, c.browser.Base+api.Prefix+path, body)
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", contentType)
	if c.tokens.AccessToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.tokens.IDToken)
		req.Header.Set("X-Access-Token", c.tokens.AccessToken)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	res := c.browser.Do(req)
	r := result{Status: res.StatusCode, Header: res.Header, Raw: res.Body}
	if res.Body != "" {
		require.NoError(c.t, json.Unmarshal([]byte(res.Body), &r.Body), "%s %s → %d %q", method, path, res.StatusCode, res.Body)
	}
	checkDocumented(c.t, method, path, r)
	return r
}

func countFiles(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &n, `SELECT count(*) FROM invoice_files WHERE buyer_id = $1`, buyerID))
	return n
}

func TestInvoiceFileUploadAndRead(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)

	doc := minimalPDF()
	r := c.upload("2026年1月 請求書.pdf", doc)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	sum := sha256.Sum256(doc)
	assert.Equal(t, "2026年1月 請求書.pdf", r.str("name"))
	assert.Equal(t, "application/pdf", r.str("media_type"))
	assert.EqualValues(t, len(doc), r.num("size"))
	assert.Equal(t, hex.EncodeToString(sum[:]), r.str("sha256"))
	assert.EqualValues(t, 1, r.num("pages"))
	ocr := r.Body["ocr"].(map[string]any)
	assert.Contains(t, []any{"pending", "running", "done", "failed", "unavailable"}, ocr["status"])
	assert.NotContains(t, r.Body, "match", "a file just uploaded is not read, so not matched")
	id := int64(r.num("id"))

	got := c.get(fmt.Sprintf("/invoices/files/%d", id))
	require.Equal(t, http.StatusOK, got.Status, got.String())
	assert.Equal(t, r.str("sha256"), got.str("sha256"))

	// The stored key is the server's, never the sender's name.
	f, err := webtest.Store().InvoiceFile(context.Background(), u.BuyerID, id)
	require.NoError(t, err)
	assert.NotContains(t, f.StorageKey, "請求書")

	// Cookie mode too (the island's way), an image this time.
	cc := e.client(t)
	cc.cookieSignIn(u)
	cc.headers["X-Requested-With"] = "fetch"
	r = cc.upload("scan.PNG", smallPNG(t))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	assert.Equal(t, "image/png", r.str("media_type"))
	// Without the header the cookie is not enough (handlers/api/authn.go).
	delete(cc.headers, "X-Requested-With")
	assert.Equal(t, http.StatusUnauthorized, cc.upload("scan.png", smallPNG(t)).Status)
	assert.Equal(t, 2, countFiles(t, u.BuyerID))
}

func TestInvoiceFileRefusalsStoreNothing(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)
	pdf := minimalPDF()
	withJS := bytes.Replace(pdf, []byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>"), 1)
	cases := []struct {
		name    string
		file    string
		content []byte
	}{
		{"empty", "invoice.pdf", []byte{}},
		{"wrong magic", "invoice.pdf", []byte("GIF89a not an invoice")},
		{"renamed PNG", "invoice.pdf", smallPNG(t)},
		{"unknown extension", "invoice.txt", pdf},
		{"over 10 MB", "invoice.pdf", append(append([]byte{}, pdf...), make([]byte, pay.MaxInvoiceFileBytes+1-len(pdf))...)},
		{"PDF with JavaScript", "invoice.pdf", withJS},
		{"encrypted PDF", "invoice.pdf", bytes.Replace(pdf, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt << /Filter /Standard >>"), 1)},
		{"pixel bomb", "photo.png", pngHeader(50000, 50000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, want := pay.CheckInvoiceFile(tc.file, tc.content)
			if tc.name == "over 10 MB" {
				want = web.MsgInvoiceFileTooLarge
			}
			require.NotEmpty(t, want)
			r := c.upload(tc.file, tc.content)
			assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
			assert.Equal(t, want, r.fieldErrors()["invoice_file"])
			assert.Equal(t, want, r.str("message"))
		})
	}
	r := c.upload("", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, web.MsgInvoiceFileMissing, r.fieldErrors()["invoice_file"])
	assert.Equal(t, 0, countFiles(t, u.BuyerID), "no refusal stores anything")
}

func TestInvoiceFileIsolationAndSignedDownload(t *testing.T) {
	e := newEnv(t)
	owner := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, owner)
	oc := e.signedInAs(t, other)
	doc := minimalPDF()
	r := c.upload("請求書 1月.pdf", doc)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	id := int64(r.num("id"))

	// Another buyer sees nothing: the file and its download URL are 404.
	assert.Equal(t, http.StatusNotFound, oc.get(fmt.Sprintf("/invoices/files/%d", id)).Status)
	assert.Equal(t, http.StatusNotFound, oc.get(fmt.Sprintf("/invoices/files/%d/download/url", id)).Status)
	assert.Equal(t, http.StatusNotFound, c.get("/invoices/files/999999999").Status)
	assert.Equal(t, http.StatusNotFound, c.get("/invoices/files/abc").Status)
	assert.Equal(t, http.StatusUnauthorized, e.client(t).get(fmt.Sprintf("/invoices/files/%d", id)).Status)

	d := c.get(fmt.Sprintf("/invoices/files/%d/download/url", id))
	require.Equal(t, http.StatusOK, d.Status, d.String())
	link := d.str("download_url")
	require.True(t, strings.HasPrefix(link, "http://localhost"+api.Prefix+"/invoices/files/signed_download/"), link)
	exp, err := time.Parse(time.RFC3339, d.str("expires_at"))
	require.NoError(t, err)
	assert.WithinDuration(t, e.clock.Now().Add(5*time.Minute), exp, time.Second)
	path := strings.TrimPrefix(link, "http://localhost")

	// Anyone holding the URL gets the file as a download, within its time.
	anon := e.client(t)
	res := anon.browser.Get(path)
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	assert.Equal(t, string(doc), res.Body)
	assert.Equal(t, "application/pdf", res.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	assert.Equal(t, "private, no-store", res.Header.Get("Cache-Control"))
	cd := res.Header.Get("Content-Disposition")
	assert.True(t, strings.HasPrefix(cd, "attachment;"), cd)
	assert.Contains(t, cd, "filename*=UTF-8''"+url.PathEscape("請求書 1月.pdf"))

	// Altered: a character of the token changed is 403, JSON. (Not the last one: its low
	// bits are base64 padding, so some changes of it decode to the same bytes.)
	token := path[strings.LastIndex(path, "/")+1:]
	for _, i := range []int{0, len(token) / 2, len(token) - 2} {
		b := []byte(token)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		res := anon.browser.Get(api.Prefix + "/invoices/files/signed_download/" + string(b))
		assert.Equal(t, http.StatusForbidden, res.StatusCode, "position %d", i)
		assert.Contains(t, res.Body, "invalid_signature")
	}
	// Expired: 5 minutes on, the same URL is refused.
	e.clock.Add(5*time.Minute + time.Second)
	res = anon.browser.Get(path)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, res.Body, "invalid_signature")
}

func TestInvoiceFileSignedUpload(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)
	r := c.post("/invoices/files/upload/url", nil)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "PUT", r.str("method"))
	path := strings.TrimPrefix(r.str("upload_url"), "http://localhost"+api.Prefix)

	anon := e.client(t) // the URL is the credential
	doc := minimalPDF()
	put := func(path, name string, body []byte) result {
		return anon.send(http.MethodPut, path+"?name="+url.QueryEscape(name), bytes.NewBuffer(body), "application/pdf")
	}

	// Refusals store nothing and leave the URL for a corrected upload: no name, a bad file.
	assert.Equal(t, http.StatusUnprocessableEntity, anon.send(http.MethodPut, path, bytes.NewBuffer(doc), "application/pdf").Status)
	assert.Equal(t, http.StatusUnprocessableEntity, put(path, "a.pdf", []byte("not a pdf")).Status)

	res := put(path, "請求書.pdf", doc)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	f, err := webtest.Store().InvoiceFile(context.Background(), u.BuyerID, int64(res.num("id")))
	require.NoError(t, err, "stored for the buyer who asked for the URL")
	assert.Equal(t, "請求書.pdf", f.OriginalName)

	// The URL took its one upload: a second PUT, of any file, is refused.
	again := put(path, "別の請求書.pdf", doc)
	assert.Equal(t, http.StatusConflict, again.Status, again.String())
	assert.Equal(t, "upload_url_used", again.str("status"))
	assert.Contains(t, again.str("message"), "使用済み")
	// Another URL still works; an altered or expired one does not.
	other := strings.TrimPrefix(c.post("/invoices/files/upload/url", nil).str("upload_url"), "http://localhost"+api.Prefix)
	assert.Equal(t, http.StatusForbidden, put(other+"x", "a.pdf", doc).Status)
	assert.Equal(t, http.StatusCreated, put(other, "a.pdf", doc).Status)
	e.clock.Add(10*time.Minute + time.Second)
	third := strings.TrimPrefix(c.post("/invoices/files/upload/url", nil).str("upload_url"), "http://localhost"+api.Prefix)
	e.clock.Add(10*time.Minute + time.Second)
	assert.Equal(t, http.StatusForbidden, put(third, "a.pdf", doc).Status)
	assert.Equal(t, 2, countFiles(t, u.BuyerID))
}

func sure[T any](v T) invoiceread.Field[T] {
	return invoiceread.Field[T]{Value: v, Confidence: 0.9, Found: true}
}

// recordedFile records a file of buyerID without bytes and waits for its OCR job, which
// finds none: the test then sets the reading it wants.
func recordedFile(t *testing.T, e *env, buyerID int64) int64 {
	t.Helper()
	f, err := webtest.Store().CreateInvoiceFile(context.Background(), buyerID, store.NewInvoiceFile{
		StorageKey: webtest.FileKey(), OriginalName: "請求書.pdf", Size: 1000,
		MediaType: pay.FileTypePDF, SHA256: strings.Repeat("0", 64), Pages: 1,
	}, webtest.QueueOCR(context.Background()))
	require.NoError(t, err)
	e.Settle(t)
	return f.ID
}

// readInvoiceFile is a file of buyerID whose reading is done, as the OCR job would leave
// it; the answer is its API path.
func readInvoiceFile(t *testing.T, e *env, buyerID int64, read invoiceread.Fields) string {
	t.Helper()
	id := recordedFile(t, e, buyerID)
	raw, err := json.Marshal(read)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetInvoiceFileOCR(context.Background(), buyerID, id, store.InvoiceFileOCR{Status: store.OCRDone, Fields: raw, Ms: 12}))
	return fmt.Sprintf("/invoices/files/%d", id)
}

func TestInvoiceFileMatchesTheBuyersOwnSuppliers(t *testing.T) {
	require.True(t, banks.Available(), "the zengin data is missing: run `npm run build` first")
	e := newEnv(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)
	acct := store.AccountFields{
		BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
		AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ",
	}
	ours, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{
		BusinessForm: pay.Corporation, Name: "山田商事株式会社", CorporateNumber: "1180301018771",
	}, &acct)
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, ours.ID)
	require.NoError(t, err)
	require.Len(t, accts, 1)
	// The other buyer's supplier: the same account, a name and corporate number of its own.
	theirs, err := webtest.Store().CreateSupplier(ctx, other.BuyerID, pay.SupplierInput{
		BusinessForm: pay.Corporation, Name: "他社商事株式会社", CorporateNumber: "2180301018770",
	}, &acct)
	require.NoError(t, err)

	read := invoiceread.Fields{
		IssuerName: sure("山田商事株式会社"), RegistrationNumber: sure("T1180301018771"), Total: sure(int64(110000)),
		Addressee: sure("テスト株式会社"), AddresseeHonorific: "御中",
		BankName: sure("みずほ銀行"), BranchName: sure("東京営業部"), AccountNumber: sure("1234567"),
	}
	r := c.get(readInvoiceFile(t, e, u.BuyerID, read))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	m, ok := r.Body["match"].(map[string]any)
	require.True(t, ok, "a read file has its match: %s", r.Raw)
	assert.EqualValues(t, ours.ID, m["supplier_id"])
	assert.Equal(t, "山田商事株式会社", m["supplier_name"])
	assert.Equal(t, "登録番号が法人番号（1180301018771）と一致しました", m["supplier_reason"])
	assert.EqualValues(t, accts[0].ID, m["account_id"])
	assert.Equal(t, "銀行・支店・口座番号が一致しました", m["account_reason"])
	assert.Equal(t, "0001", m["bank_code"])
	assert.Equal(t, "みずほ銀行", m["bank_name"])
	assert.Equal(t, "001", m["branch_code"])
	assert.Equal(t, "東京営業部", m["branch_name"])
	assert.NotEmpty(t, m["bank_reason"])
	assert.NotEmpty(t, m["branch_reason"])
	// The fields read: each found one with its value, none that was not found, and the
	// honorific beside them hides none.
	fields := r.Body["ocr"].(map[string]any)["fields"].(map[string]any)
	assert.Equal(t, map[string]any{"value": float64(110000), "confidence": 0.9}, fields["total"])
	assert.Equal(t, "T1180301018771", fields["registration_number"].(map[string]any)["value"])
	assert.NotContains(t, fields, "tax", "a field not found is not sent")
	assert.NotContains(t, fields, "addressee_honorific")

	// The other buyer's supplier is never a candidate: by its corporate number or its
	// name.
	for name, read := range map[string]invoiceread.Fields{
		"registration number": {RegistrationNumber: sure("T2180301018770")},
		"name":                {IssuerName: sure("他社商事株式会社")},
	} {
		r := c.get(readInvoiceFile(t, e, u.BuyerID, read))
		require.Equal(t, http.StatusOK, r.Status, r.String())
		assert.Equal(t, map[string]any{}, r.Body["match"], "%s: nothing matched", name)
	}
	oc := e.signedInAs(t, other)
	r = oc.get(readInvoiceFile(t, e, other.BuyerID, invoiceread.Fields{
		RegistrationNumber: sure("T1180301018771"), IssuerName: sure("山田商事株式会社"),
		BankName: sure("みずほ銀行"), BranchName: sure("東京営業部"), AccountNumber: sure("1234567"), AccountHolder: sure("ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"),
	}))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	// Nor is the first buyer's supplier the other's, whose reading names it by number and
	// name: only the other's own account (the same bank, branch and number) is found.
	m = r.Body["match"].(map[string]any)
	assert.EqualValues(t, theirs.ID, m["supplier_id"], "%v", m)
	assert.Equal(t, "振込先の口座が登録済みの口座と一致しました", m["supplier_reason"])
	assert.Equal(t, "他社商事株式会社", m["supplier_name"])
	assert.NotEqualValues(t, accts[0].ID, m["account_id"])

	// No match object until the reading is done.
	id := recordedFile(t, e, u.BuyerID)
	for _, status := range []string{store.OCRPending, store.OCRRunning, store.OCRFailed, store.OCRUnavailable} {
		require.NoError(t, webtest.Store().SetInvoiceFileOCR(ctx, u.BuyerID, id, store.InvoiceFileOCR{Status: status}))
		r := c.get(fmt.Sprintf("/invoices/files/%d", id))
		require.Equal(t, http.StatusOK, r.Status, r.String())
		assert.NotContains(t, r.Body, "match", status)
	}
	// Stored fields that do not decode (an older reading) leave the match out, never 500.
	_, err = webtest.Store().DB.ExecContext(ctx, `UPDATE invoice_files SET ocr_status = 'done', ocr_fields = '{"total": "many"}' WHERE id = $1`, id)
	require.NoError(t, err)
	r = c.get(fmt.Sprintf("/invoices/files/%d", id))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.NotContains(t, r.Body, "match")
}
