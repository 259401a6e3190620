package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/pay"
	"cardpay/store"
)

// The invoice-file calls of SPEC.md §7 (Invoices): upload (multipart, or a signed URL for
// large files and outside clients), the file with its reading (OCR), and a signed download
// URL. Every call is scoped by the caller's buyer: another buyer's file is 404, like one
// that does not exist. The signed URLs are the app's own (invoicefiles.Service: HMAC with
// SECRET_KEY, an expiry, bound to the buyer and the file), so they work the same over the
// local folder and S3; an expired or altered one is 403.

const (
	uploadURLTTL = 10 * time.Minute

	signedUploadPath = "/invoices/files/signed_upload/"

	msgBadSignedURL  = "このURLは有効期限が切れているか、正しくありません。もう一度URLを取得してください。"
	msgUploadURLUsed = "このアップロード用URLは使用済みです。1つのURLでアップロードできるファイルは1件です。新しいURLを取得してください。"
	msgUploadName    = "nameにファイル名（拡張子 .pdf、.jpg、.jpeg、.png）を指定してください"
)

var (
	errBadSignedURL  = newError(http.StatusForbidden, "invalid_signature", msgBadSignedURL)
	errUploadURLUsed = newError(http.StatusConflict, "upload_url_used", msgUploadURLUsed)
)

type ocrField struct {
	Value      any     `json:"value"`
	Confidence float64 `json:"confidence"`
}

type invoiceFileOCR struct {
	Status string              `json:"status"`
	Fields map[string]ocrField `json:"fields"`
	Error  string              `json:"error,omitempty"`
	// Ms is how long the reading took, once done.
	Ms int `json:"ms,omitempty"`
}

type invoiceFile struct {
	ID        int64          `json:"id"`
	Name      string         `json:"name"`
	Size      int64          `json:"size"`
	MediaType string         `json:"media_type"`
	SHA256    string         `json:"sha256"`
	Pages     int            `json:"pages"`
	Locked    bool           `json:"locked"`
	CreatedAt time.Time      `json:"created_at"`
	OCR       invoiceFileOCR `json:"ocr"`
	// Match is set once the reading is done: what it matched among the buyer's own
	// suppliers and accounts and the banks (invoicefiles.Service.FileMatch).
	Match *invoiceMatch `json:"match,omitempty"`
}

// invoiceMatch is invoiceread.MatchResult (ids, codes and the Japanese reasons; each
// left out when nothing matched) with the names a client shows.
type invoiceMatch struct {
	invoiceread.MatchResult
	SupplierName string `json:"supplier_name,omitempty"`
	BankName     string `json:"bank_name,omitempty"`
	BranchName   string `json:"branch_name,omitempty"`
}

func invoiceMatchOf(m invoicefiles.Match) *invoiceMatch {
	out := &invoiceMatch{MatchResult: m.MatchResult, BankName: m.BankName, BranchName: m.BranchName}
	if m.Supplier != nil {
		out.SupplierName = m.Supplier.Name
	}
	return out
}

func invoiceFileOf(f store.InvoiceFile) invoiceFile {
	a := invoiceFile{
		ID: f.ID, Name: f.OriginalName, Size: f.Size, MediaType: f.MediaType, SHA256: f.SHA256, Pages: f.Pages,
		Locked: f.LockedAt != nil, CreatedAt: f.CreatedAt.In(pay.Tokyo()),
		OCR: invoiceFileOCR{Status: f.OCRStatus, Fields: ocrFieldsOf(f.OCRFields), Error: f.OCRError, Ms: f.OCRMs},
	}
	return a
}

// ocrFieldsOf reads the stored fields (invoiceread.Fields as JSON): {"total": {"value":
// 1234, "confidence": 0.9, "found": true}, …}. Every field is stored, found or not, so
// those not found are left out; so are the entries that are no field
// (addressee_honorific is a plain string), each on its own, so that one of them never
// hides the others.
func ocrFieldsOf(raw []byte) map[string]ocrField {
	out := map[string]ocrField{}
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return out
	}
	for k, b := range m {
		var v struct {
			ocrField
			Found *bool `json:"found"`
		}
		if json.Unmarshal(b, &v) != nil || v.Value == nil || v.Value == "" || (v.Found != nil && !*v.Found) {
			continue
		}
		out[k] = v.ocrField
	}
	return out
}

// uploadInvoiceFile is POST invoices/files/upload (multipart, field invoice_file): 201
// with the file, or 422 with the reason nothing was stored.
func (s *server) uploadInvoiceFile(c *echo.Context) error {
	buyerID := caller(c).User.BuyerID
	up, release, err := s.readUpload(c, buyerID)
	defer release()
	if err != nil {
		return err
	}
	return s.saveInvoiceFile(c, buyerID, up)
}

// readUpload takes one of the buyer's upload slots and reads the multipart field
// invoice_file: 429 when the slots are taken, 422 when the part is missing or too large.
// release frees the slot; call it (deferred) whatever the error.
func (s *server) readUpload(c *echo.Context, buyerID int64) (up invoicefiles.Upload, release func(), err error) {
	release, busy := s.UploadSlot(c, buyerID)
	if busy != "" {
		return up, release, tooManyUploads(busy)
	}
	up, problem := web.ReadUpload(c, pay.InvoiceFileField)
	if problem != "" {
		return up, release, fileRefusal(problem)
	}
	return up, release, nil
}

func (s *server) saveInvoiceFile(c *echo.Context, buyerID int64, up invoicefiles.Upload) error {
	f, problem, err := s.InvoiceFiles.Save(c.Request().Context(), buyerID, up)
	if err != nil {
		return err
	}
	if problem != "" {
		return fileRefusal(problem)
	}
	return c.JSON(http.StatusCreated, invoiceFileOf(f))
}

// fileRefusal is 422 naming the field, with the refusal as the message too: a client shows
// one sentence.
func fileRefusal(msg string) error {
	e := fieldError(pay.InvoiceFileField, msg)
	e.Message = msg
	return e
}

// tooManyUploads is 429 (with Retry-After, set by UploadSlot) naming the file field: the
// buyer or the instance has as many uploads running as it takes; nothing was read.
func tooManyUploads(msg string) error {
	e := fieldError(pay.InvoiceFileField, msg)
	e.code, e.Status, e.Message = http.StatusTooManyRequests, "too_many_uploads", msg
	return e
}

type uploadURLAnswer struct {
	UploadURL string    `json:"upload_url"`
	Method    string    `json:"method"`
	ExpiresAt time.Time `json:"expires_at"`
}

// invoiceFileUploadURL is POST invoices/files/upload/url: a URL that takes one PUT of the
// file's bytes within 10 minutes (?name= carries the file name) without the caller's
// credentials, for large files and outside clients.
func (s *server) invoiceFileUploadURL(c *echo.Context) error {
	exp := s.Now().Add(uploadURLTTL)
	// The file slot of an upload token holds a random number (invoicefiles.UploadToken).
	nonce, err := rand.Int(rand.Reader, big.NewInt(math.MaxInt64))
	if err != nil {
		return err
	}
	token := s.InvoiceFiles.UploadToken(caller(c).User.BuyerID, nonce.Int64(), exp)
	return c.JSON(http.StatusOK, uploadURLAnswer{
		UploadURL: s.absolute(signedUploadPath + token), Method: http.MethodPut, ExpiresAt: exp.In(pay.Tokyo()),
	})
}

// signedUpload is PUT invoices/files/signed_upload/{token}?name=…: the bytes are the file.
// The token authenticates: 403 when it expired or was altered. A URL takes one upload
// (issue 24): its use is recorded before the body is read (store.UseUploadURL), so a
// second PUT with it, even at the same moment, is 409 and stores nothing; a refused file
// gives the URL back for a corrected one.
func (s *server) signedUpload(c *echo.Context) error {
	token := c.Param("token")
	buyerID, err := s.InvoiceFiles.VerifyUpload(token)
	if err != nil {
		return errBadSignedURL
	}
	name := strings.TrimSpace(c.QueryParam("name"))
	if name == "" || pay.FileTypeFromName(name) == "" {
		return fileRefusal(msgUploadName)
	}
	release, busy := s.UploadSlot(c, buyerID)
	defer release()
	if busy != "" {
		return tooManyUploads(busy)
	}
	ctx := c.Request().Context()
	sum := sha256.Sum256([]byte(token))
	if err := s.Store.UseUploadURL(ctx, buyerID, sum[:], s.Now()); err != nil {
		if errors.Is(err, store.ErrUploadURLUsed) {
			return errUploadURLUsed
		}
		return err
	}
	stored := false
	defer func() {
		if !stored {
			if err := s.Store.ReleaseUploadURL(context.WithoutCancel(ctx), buyerID, sum[:]); err != nil {
				s.Logger.Error("api: giving back an upload URL", "buyer", buyerID, "error", err)
			}
		}
	}()
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, web.MaxUploadBody)
	b, problem := web.ReadBody(c)
	if problem != "" {
		return fileRefusal(problem)
	}
	f, problem, err := s.InvoiceFiles.Save(ctx, buyerID, invoicefiles.Upload{Name: web.FileName(name), Bytes: b})
	if err != nil {
		return err
	}
	if problem != "" {
		return fileRefusal(problem)
	}
	stored = true
	return c.JSON(http.StatusCreated, invoiceFileOf(f))
}

// invoiceFile is GET invoices/files/{id}: the file, its reading state and what was read,
// and once read what that matched among the buyer's suppliers (scoped by the caller's
// buyer: another buyer's supplier is never a candidate).
func (s *server) invoiceFile(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx, buyerID := c.Request().Context(), caller(c).User.BuyerID
	f, err := s.Store.InvoiceFile(ctx, buyerID, id)
	if err != nil {
		return err
	}
	a := invoiceFileOf(f)
	m, ok, err := s.InvoiceFiles.FileMatch(ctx, buyerID, f)
	if err != nil {
		return err
	}
	if ok {
		a.Match = invoiceMatchOf(m)
	}
	return c.JSON(http.StatusOK, a)
}

type downloadURLAnswer struct {
	DownloadURL string    `json:"download_url"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// invoiceFileDownloadURL is GET invoices/files/{id}/download/url: a URL that sends the file
// as a download for 5 minutes, to whoever holds it (a browser tab, a mail client).
func (s *server) invoiceFileDownloadURL(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	buyerID := caller(c).User.BuyerID
	if _, err := s.Store.InvoiceFile(c.Request().Context(), buyerID, id); err != nil {
		return err
	}
	u, exp := s.InvoiceFiles.DownloadURL(buyerID, id)
	return c.JSON(http.StatusOK, downloadURLAnswer{DownloadURL: s.absolute(strings.TrimPrefix(u, Prefix)), ExpiresAt: exp.In(pay.Tokyo())})
}

// signedDownload is GET invoices/files/signed_download/{token}: the file as an attachment.
func (s *server) signedDownload(c *echo.Context) error {
	buyerID, fileID, err := s.InvoiceFiles.VerifyDownload(c.Param("token"))
	if err != nil {
		return errBadSignedURL
	}
	f, err := s.Store.InvoiceFile(c.Request().Context(), buyerID, fileID)
	if err != nil {
		return err
	}
	return s.ServeInvoiceFile(c, f)
}

// absolute is an API path as a URL on BaseURL (outside clients get a URL they can use as is).
func (s *server) absolute(path string) string {
	base := strings.TrimRight(s.BaseURL, "/")
	if _, err := url.Parse(base); err != nil {
		base = ""
	}
	return base + Prefix + path
}
