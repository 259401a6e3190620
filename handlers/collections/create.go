package collections

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
	pages "cardpay/views/collections"
)

// CreatePage is カード払い依頼を作成: the requester's own invoice uploaded (the upload
// island over a plain multipart form), or entered by hand.
var CreatePage = web.Page{Path: "/collections/create", Title: "カード払い依頼を作成", Access: web.Collections, Island: "invoice-upload"}

// FilePath is where the island sends the requester once a file is uploaded: the file
// joins the journey.
const FilePath = "/collections/create/files/"

// ShowCreatePage is カード払い依頼を作成.
func (h *Handler) ShowCreatePage(c *echo.Context) error { return h.renderCreate(c, "") }

func (h *Handler) renderCreate(c *echo.Context, refusal string) error {
	var errs pay.FieldErrors
	if refusal != "" {
		errs.Add(pay.InvoiceFileField, refusal)
	}
	v := pages.CreateView{Action: CreatePage.Path, Props: views.InvoiceUploadProps{
		UploadURL: links.API + links.UploadInvoiceFile, FilePath: links.InvoiceFiles, ResultPath: strings.TrimSuffix(FilePath, "/"),
		FieldName: pay.InvoiceFileField, Error: refusal, IconHref: static.URL("dist/icons.svg"),
	}}
	return web.Show(h.App, c, CreatePage.Title, errs, v, pages.CreatePage)
}

// UploadInvoice takes the plain form's file: on to the invoice step with it, or the form
// again with 422 and the reason nothing was stored.
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
	return h.startWithFile(c, f.ID)
}

// FilePattern starts the journey from an uploaded invoice file (FilePath + id).
const FilePattern = FilePath + ":id"

// UseFile starts the journey with an uploaded file (the island's destination); another
// buyer's file is 404.
func (h *Handler) UseFile(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	if _, err := h.Store.InvoiceFile(c.Request().Context(), web.CurrentUser(c).BuyerID, id); err != nil {
		return err
	}
	return h.startWithFile(c, id)
}

func (h *Handler) startWithFile(c *echo.Context, fileID int64) error {
	j := journey{}
	j.FileID = fileID
	if err := h.save(c, j); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, InvoiceStepPath)
}
