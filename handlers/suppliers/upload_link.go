package suppliers

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/suppliers"
)

// UploadLinkTTL is how long a supplier's upload link works (pay.SupplierUploadLinkDays,
// which the FAQ quotes too).
const UploadLinkTTL = pay.SupplierUploadLinkDays * 24 * time.Hour

// The supplier's upload link: sent (POST), and revoked after はい / いいえ.
const (
	UploadLinkPattern       = "/suppliers/:id/upload-link"
	RevokeUploadLinkPattern = "/suppliers/:id/upload-link/revoke"
)

func uploadLinkPath(id int64) string { return SupplierPath(id) + "/upload-link" }

// uploadLinkView is the upload link section of the supplier's page: the current link's
// state, and the form that sends a new one.
func (h *Handler) uploadLinkView(c *echo.Context, s store.Supplier, email string) (pages.UploadLinkView, error) {
	v := pages.UploadLinkView{Action: uploadLinkPath(s.ID), RevokeHref: uploadLinkPath(s.ID) + "/revoke", Email: email,
		Days: int(UploadLinkTTL / (24 * time.Hour))}
	l, err := h.Store.SupplierUploadLink(c.Request().Context(), s.BuyerID, s.ID)
	if errors.Is(err, store.ErrNotFound) {
		return v, nil
	}
	if err != nil {
		return v, err
	}
	v.Active = true
	v.Rows = []pages.SummaryRow{
		{Label: "送信先", Value: l.Email},
		{Label: "送信日時", Value: pay.JapaneseDateTime(l.CreatedAt)},
		{Label: "有効期限", Value: pay.JapaneseDateTime(l.ExpiresAt)},
		{Label: "アップロード件数", Value: strconv.Itoa(l.Uploads) + "件"},
	}
	if l.LastUsedAt != nil {
		v.Rows = append(v.Rows, pages.SummaryRow{Label: "最終利用", Value: pay.JapaneseDateTime(*l.LastUsedAt)})
	}
	if !l.Usable(h.Now()) {
		v.Expired = true
	}
	if v.Email == "" {
		v.Email = l.Email
	}
	return v, nil
}

// SendUploadLink mails the supplier a new upload link (the earlier one stops working):
// 303 back to the supplier's page, or the page with 422 and the problem at the field.
func (h *Handler) SendUploadLink(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	typed := web.Clip(c.FormValue("email"), 300)
	email, problem := pay.ValidateEmail(typed)
	if problem != "" {
		var errs pay.FieldErrors
		errs.Add("email", problem)
		return h.renderSupplier(c, s, errs, typed)
	}
	if err := h.Account.LimitBuyer(ctx, account.ActUploadLink, u.BuyerID); err != nil {
		var errs pay.FieldErrors
		if web.Refused(c, &errs, "email", err) {
			return h.renderSupplier(c, s, errs, typed) // 429, the limiter's words at the field
		}
		return err
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	token := base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(token))
	link := strings.TrimRight(h.BaseURL, "/") + links.SupplierUpload + token
	now := h.Now()
	_, err = h.Store.IssueSupplierUploadLink(ctx, u.BuyerID, store.NewSupplierUploadLink{
		SupplierID: s.ID, UserID: u.ID, Email: email, TokenSHA256: sum[:], ExpiresAt: now.Add(UploadLinkTTL),
		Mail: func(l store.SupplierUploadLink) (store.NewJob, error) {
			return h.Account.SupplierUploadLinkJob(email, l.BuyerName, l.SupplierName, link, l.ExpiresAt)
		},
	}, now)
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "アップロード用リンクを送信しました", Text: email + " 宛にメールでお送りしました。"})
	return c.Redirect(http.StatusSeeOther, SupplierPath(s.ID))
}

// ShowRevokeUploadLinkPage asks before the link stops working.
func (h *Handler) ShowRevokeUploadLinkPage(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	if _, err := h.Store.SupplierUploadLink(c.Request().Context(), s.BuyerID, s.ID); err != nil {
		return err
	}
	return web.Show(h.App, c, "アップロード用リンクの無効化", nil,
		pages.RevokeUploadLinkView{ID: strconv.FormatInt(s.ID, 10), Name: s.Name}, pages.RevokeUploadLinkPage)
}

// RevokeUploadLink ends the supplier's link at once and goes back to its page.
func (h *Handler) RevokeUploadLink(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	if err := h.Store.RevokeSupplierUploadLink(c.Request().Context(), s.BuyerID, s.ID, h.Now()); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "アップロード用リンクを無効にしました"})
	return c.Redirect(http.StatusSeeOther, SupplierPath(s.ID))
}
