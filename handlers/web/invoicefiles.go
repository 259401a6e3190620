package web

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/invoicefiles"
	"cardpay/pay"
	"cardpay/store"
)

// The invoice-file glue the upload page and the API share (issue 11): reading the
// multipart field, and sending a file or a receipt back as a download. Checking, storing
// and recording the file is invoicefiles.Service (Deps.InvoiceFiles).

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

// ReadUpload reads the multipart field of c's request without temporary files: at most
// pay.MaxInvoiceFileBytes+1 bytes of it are kept, so a larger file is refused at once. The
// string is the Japanese refusal for the field ("" when a file arrived).
func ReadUpload(c *echo.Context, field string) (invoicefiles.Upload, string) {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, MaxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return invoicefiles.Upload{}, MsgInvoiceFileNotForm
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return invoicefiles.Upload{}, MsgInvoiceFileMissing
		}
		if err != nil {
			return invoicefiles.Upload{}, readProblem(err)
		}
		if p.FormName() != field {
			_ = p.Close()
			continue
		}
		name := p.FileName()
		if name == "" {
			// An empty file input posts a part with no file name and no bytes.
			return invoicefiles.Upload{}, MsgInvoiceFileMissing
		}
		b, err := io.ReadAll(io.LimitReader(p, pay.MaxInvoiceFileBytes+1))
		if err != nil {
			return invoicefiles.Upload{}, readProblem(err)
		}
		if len(b) > pay.MaxInvoiceFileBytes {
			return invoicefiles.Upload{}, MsgInvoiceFileTooLarge
		}
		return invoicefiles.Upload{Name: FileName(name), Bytes: b}, ""
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

// ServeInvoiceFile sends f's bytes as a download: attachment with the name in RFC 5987
// form (filename*=UTF-8”…, and an ASCII fallback), the stored media type, nosniff, and
// never cached, so that no browser renders an uploaded file as a page of ours.
func (a *App) ServeInvoiceFile(c *echo.Context, f store.InvoiceFile) error {
	rc, err := a.InvoiceFiles.Open(c.Request().Context(), f)
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

// ServePDF sends a generated PDF (a receipt) as a download that no cache keeps.
func ServePDF(c *echo.Context, name string, b []byte) error {
	h := c.Response().Header()
	h.Set("Content-Disposition", ContentDisposition(name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "application/pdf", b)
}
