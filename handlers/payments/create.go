package payments

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/static"
	pages "cardpay/views/payments"
)

// CreatePage is 請求書のアップロード: the invoice-upload island over a plain multipart form.
var CreatePage = web.Page{Path: "/payments/create", Title: "請求書のアップロード", Access: web.SignedIn, Island: "invoice-upload"}

// FilePath is the page of an uploaded file, /payments/create/files/:id.
const FilePath = "/payments/create/files/"

// ShowCreatePage is 請求書のアップロード.
func (h *Handler) ShowCreatePage(c *echo.Context) error {
	return h.renderCreate(c, "")
}

func (h *Handler) renderCreate(c *echo.Context, refusal string) error {
	var errs pay.FieldErrors
	if refusal != "" {
		errs.Add(pay.InvoiceFileField, refusal)
	}
	v := pages.CreateView{
		Action: CreatePage.Path,
		Props: pages.InvoiceUploadProps{
			UploadURL: links.API + links.UploadInvoiceFile, FilePath: links.InvoiceFiles, ResultPath: strings.TrimSuffix(FilePath, "/"),
			FieldName: pay.InvoiceFileField, Error: refusal, IconHref: static.URL("dist/icons.svg"),
		},
	}
	if err := h.InvoiceFiles.ReadingUnavailable(c.Request().Context()); err != nil {
		v.ReadingOff = true
		if h.Development {
			v.InstallCommand = OCRToolsCommand
		}
	}
	return web.Show(h.App, c, CreatePage.Title, errs, v, pages.CreatePage)
}

// OCRToolsCommand installs the OCR tools (tools/ensure-ocr-tools.sh, as root), for the
// upload page's notice in development.
const OCRToolsCommand = "go tool -modfile=tools/go.mod task ocr-tools"

// UploadInvoice takes the plain form's file: 303 to its page, or the form again with 422
// and the reason nothing was stored.
func (h *Handler) UploadInvoice(c *echo.Context) error {
	release, busy := h.UploadSlot(c, web.CurrentUser(c).BuyerID)
	defer release()
	if busy != "" {
		return h.renderCreate(c, busy)
	}
	up, problem := web.ReadUpload(c, pay.InvoiceFileField)
	if problem != "" {
		return h.renderCreate(c, problem)
	}
	f, problem, err := h.InvoiceFiles.Save(c.Request().Context(), web.CurrentUser(c).BuyerID, up)
	if err != nil {
		return err
	}
	if problem != "" {
		return h.renderCreate(c, problem)
	}
	return c.Redirect(http.StatusSeeOther, FilePath+strconv.FormatInt(f.ID, 10))
}
