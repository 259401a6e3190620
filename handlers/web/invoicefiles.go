package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/invoicefiles"
	"cardpay/pay"
	"cardpay/store"
)

// The invoice-file glue the upload page and the API share (issue 11): reading the
// multipart field, checking and storing the bytes, and recording the file. The rules are
// pay.CheckInvoiceFile; the bytes go to Deps.Files; the row (and its OCR job) to the store.

// MaxUploadBody bounds an upload request: the largest invoice file plus the multipart
// envelope (boundaries, part headers, a long file name).
const MaxUploadBody = pay.MaxInvoiceFileBytes + 64<<10

// Refusals of an upload that pay.CheckInvoiceFile cannot see (no file at all, a body over
// the limit, a form that is not multipart).
const (
	MsgInvoiceFileMissing  = "請求書のファイルを選択してください。"
	MsgInvoiceFileTooLarge = "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。"
	MsgInvoiceFileNotForm  = "ファイルを受け取れませんでした。もう一度選択して送信してください。"
)

// Upload is a file read from a request: its name as the sender gave it (clipped, valid
// UTF-8, without folders) and its bytes.
type Upload struct {
	Name  string
	Bytes []byte
}

// ReadUpload reads the multipart field of c's request without temporary files: at most
// pay.MaxInvoiceFileBytes+1 bytes of it are kept, so a larger file is refused at once. The
// string is the Japanese refusal for the field ("" when a file arrived).
func ReadUpload(c *echo.Context, field string) (Upload, string) {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, MaxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return Upload{}, MsgInvoiceFileNotForm
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return Upload{}, MsgInvoiceFileMissing
		}
		if err != nil {
			return Upload{}, readProblem(err)
		}
		if p.FormName() != field {
			_ = p.Close()
			continue
		}
		name := p.FileName()
		if name == "" {
			// An empty file input posts a part with no file name and no bytes.
			return Upload{}, MsgInvoiceFileMissing
		}
		b, err := io.ReadAll(io.LimitReader(p, pay.MaxInvoiceFileBytes+1))
		if err != nil {
			return Upload{}, readProblem(err)
		}
		if len(b) > pay.MaxInvoiceFileBytes {
			return Upload{}, MsgInvoiceFileTooLarge
		}
		return Upload{Name: FileName(name), Bytes: b}, ""
	}
}

func readProblem(err error) string {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return MsgInvoiceFileTooLarge
	}
	return MsgInvoiceFileNotForm
}

// ReadBody reads a raw upload body (the signed PUT): the same limit as ReadUpload.
func ReadBody(c *echo.Context) ([]byte, string) {
	b, err := io.ReadAll(io.LimitReader(c.Request().Body, pay.MaxInvoiceFileBytes+1))
	if err != nil {
		return nil, MsgInvoiceFileNotForm
	}
	if len(b) > pay.MaxInvoiceFileBytes {
		return nil, MsgInvoiceFileTooLarge
	}
	return b, ""
}

// FileName is a sender's file name as we keep it: the last path element (browsers on
// Windows may send C:\…), valid UTF-8 without control characters, at most 200 characters.
func FileName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = Clip(strings.TrimSpace(name), 200)
	if name == "" {
		return "invoice"
	}
	return name
}

// SaveInvoiceFile checks up (pay.CheckInvoiceFile), stores its bytes under a new random
// key and records the file for buyerID, which enqueues its reading (OCR). A refusal
// stores nothing and is returned as the message; when the record cannot be written the
// stored bytes are deleted again.
func (a *App) SaveInvoiceFile(ctx context.Context, buyerID int64, up Upload) (store.InvoiceFile, string, error) {
	info, problem := pay.CheckInvoiceFile(up.Name, up.Bytes)
	if problem != "" {
		return store.InvoiceFile{}, problem, nil
	}
	if a.Files == nil {
		return store.InvoiceFile{}, "", errors.New("web: no file storage (Deps.Files)")
	}
	sum := sha256.Sum256(up.Bytes)
	// Server-made and random: never the sender's name, which could hold anything.
	key := fmt.Sprintf("invoices/%d/%s", buyerID, strings.ToLower(rand.Text()))
	if err := a.Files.Put(ctx, key, bytes.NewReader(up.Bytes), int64(len(up.Bytes)), info.MediaType); err != nil {
		return store.InvoiceFile{}, "", fmt.Errorf("web: storing an invoice file: %w", err)
	}
	f, err := a.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
		StorageKey: key, OriginalName: up.Name, Size: int64(len(up.Bytes)), MediaType: info.MediaType,
		SHA256: hex.EncodeToString(sum[:]), Pages: info.Pages,
	}, invoicefiles.QueueOCR(ctx, a.Store))
	if err != nil {
		if derr := a.Files.Delete(context.WithoutCancel(ctx), key); derr != nil {
			a.Logger.Error("web: deleting an unrecorded invoice file", "key", key, "error", derr)
		}
		return store.InvoiceFile{}, "", err
	}
	return f, "", nil
}

// ServeInvoiceFile sends f's bytes as a download: attachment with the name in RFC 5987
// form (filename*=UTF-8”…, and an ASCII fallback), the stored media type, nosniff, and
// never cached, so that no browser renders an uploaded file as a page of ours.
func (a *App) ServeInvoiceFile(c *echo.Context, f store.InvoiceFile) error {
	rc, err := a.Files.Open(c.Request().Context(), f.StorageKey)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := c.Response().Header()
	h.Set("Content-Type", f.MediaType)
	h.Set("Content-Disposition", ContentDisposition(f.OriginalName))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if f.Size > 0 {
		h.Set("Content-Length", fmt.Sprint(f.Size))
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), rc)
	return err
}

// ContentDisposition is "attachment" with name: filename*=UTF-8”<percent-encoded> (RFC
// 5987/6266) for every browser of today, and an ASCII filename for the others.
func ContentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' || r == ';' {
			return '_'
		}
		return r
	}, name)
	v := mime.FormatMediaType("attachment", map[string]string{"filename": ascii})
	var enc strings.Builder
	for _, b := range []byte(name) {
		if isAttrChar(b) {
			enc.WriteByte(b)
		} else {
			fmt.Fprintf(&enc, "%%%02X", b)
		}
	}
	return v + "; filename*=UTF-8''" + enc.String()
}

// isAttrChar is RFC 5987's attr-char: what may stand unencoded in filename*.
func isAttrChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// SignedDownloadPath is where the app serves a signed download URL (handlers/api routes
// it): the token after it names the buyer and the file.
const SignedDownloadPath = "/api/v1/invoices/files/signed_download/"

// DownloadURLTTL is how long a signed download URL works.
const DownloadURLTTL = 5 * time.Minute

// DownloadURL is a signed, root-relative URL that sends buyerID's file fileID as a
// download until the returned time.
func (a *App) DownloadURL(buyerID, fileID int64) (string, time.Time) {
	exp := a.Now().Add(DownloadURLTTL)
	return SignedDownloadPath + a.FileSigner.Sign("download", buyerID, fileID, exp), exp
}

// FileStore is the storage of invoice files' bytes: package files' Store (a local folder
// or an S3 bucket), named here so that the kernel needs only its three calls.
type FileStore interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, mediaType string) error
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
}

// URLSigner makes and checks the app's signed URL tokens (files.Signer): purpose
// ("upload", "download"), the buyer, the file (0 for an upload) and the expiry are bound
// by an HMAC of SECRET_KEY; Verify fails on an expired or altered token.
type URLSigner interface {
	Sign(purpose string, buyerID, fileID int64, expires time.Time) string
	Verify(purpose, token string, now time.Time) (buyerID, fileID int64, err error)
}
