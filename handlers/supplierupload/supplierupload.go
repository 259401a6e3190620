// Package supplierupload is the area of /supplier-upload/:token (issue 29): the page a
// buyer's supplier opens from the mailed link, signed out, to upload its invoices to that
// buyer only. Each file becomes a received invoice of the buyer (source supplier_link).
// The token in the path is the only key: its SHA-256 finds the link, which must not be
// revoked or expired; uploads are rate-limited per IP and per link.
package supplierupload

import (
	"crypto/sha256"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/supplierupload"
)

// Handler serves the supplier's upload page.
type Handler struct {
	*web.App
}

// Pattern is the upload page (GET) and its form (POST).
const Pattern = links.SupplierUpload + ":token"

const title = "請求書のアップロード"

// link finds the path's link: ErrNotFound (the 404 page) for a token that names none;
// a revoked or expired one is answered with its own page by the caller.
func (h *Handler) link(c *echo.Context) (store.SupplierUploadLink, error) {
	token := c.Param("token")
	if len(token) < 40 || len(token) > 64 {
		return store.SupplierUploadLink{}, web.ErrNotFound
	}
	sum := sha256.Sum256([]byte(token))
	return h.Store.SupplierUploadLinkByToken(c.Request().Context(), sum[:])
}

// ShowUploadPage is the form, or why the link no longer works (410).
func (h *Handler) ShowUploadPage(c *echo.Context) error {
	l, err := h.link(c)
	if err != nil {
		return err
	}
	return h.render(c, l, nil)
}

func (h *Handler) render(c *echo.Context, l store.SupplierUploadLink, errs pay.FieldErrors) error {
	b, err := h.Base(c, title)
	if err != nil {
		return err
	}
	b.Errors = errs
	v := pages.UploadView{Base: b, BuyerName: l.BuyerName, SupplierName: l.SupplierName, Action: c.Request().URL.Path,
		Uploads: l.Uploads, Until: pay.JapaneseDateTime(l.ExpiresAt)}
	status := web.StatusFor(b)
	if !l.Usable(h.Now()) {
		v.Gone = "このリンクは有効期限が切れたか、無効になっています。" + l.BuyerName + "に新しいリンクをお問い合わせください。"
		status = http.StatusGone
	}
	return web.Render(c, status, pages.UploadPage(v))
}

// Upload stores the file as the buyer's received invoice and counts the link's use in
// the same transaction: 303 back to the page with its notice, 422 with the problem at
// the field, 410 when the link stopped working, 429 past the limits.
func (h *Handler) Upload(c *echo.Context) error {
	ctx := c.Request().Context()
	l, err := h.link(c)
	if err != nil {
		return err
	}
	if !l.Usable(h.Now()) {
		return h.render(c, l, nil)
	}
	if err := h.Account.LimitCaller(ctx, account.ActSupplierUpload, "upload-link:"+c.Param("token")[:16]); err != nil {
		var errs pay.FieldErrors
		if web.Refused(c, &errs, pages.UploadField, err) {
			return h.render(c, l, errs) // 429, the limiter's words at the field
		}
		return err
	}
	release, busy := h.UploadSlot(c, l.BuyerID)
	defer release()
	if busy != "" {
		return h.refuse(c, l, busy)
	}
	up, problem := web.ReadUpload(c, pages.UploadField)
	if problem != "" {
		return h.refuse(c, l, problem)
	}
	_, problem, err = h.InvoiceFiles.ReceiveAlso(ctx, l.BuyerID, up, store.NewReceivedInvoice{
		Source: store.ReceivedBySupplierLink, Sender: l.SupplierName + " <" + l.Email + ">", Actor: l.SupplierName + "（アップロード用リンク）",
	}, func(tx *sqlx.Tx) error { return h.Store.UseSupplierUploadLink(ctx, tx, l.ID, h.Now()) })
	if errors.Is(err, store.ErrNotFound) {
		return h.render(c, l, nil) // revoked or expired meanwhile: nothing kept
	}
	if err != nil {
		return err
	}
	if problem != "" {
		return h.refuse(c, l, problem)
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "請求書をお送りしました", Text: "「" + up.Name + "」を" + l.BuyerName + "にお届けしました。"})
	return c.Redirect(http.StatusSeeOther, c.Request().URL.Path)
}

func (h *Handler) refuse(c *echo.Context, l store.SupplierUploadLink, msg string) error {
	var errs pay.FieldErrors
	errs.Add(pages.UploadField, msg)
	return h.render(c, l, errs)
}
