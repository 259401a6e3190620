package receivedinvoices

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/receivedinvoices"
)

// AddressPage is 請求書受付メールアドレス: the buyer's receiving address for suppliers'
// invoices by mail, what it takes, and the log of the mails that reached it.
var AddressPage = web.Page{Path: "/receipt-invoices/address", Title: "請求書受付メールアドレス", Access: web.SignedIn}

// RenewPage asks before giving a new address (はい / いいえ): the old one stops
// receiving at once.
var RenewPage = web.Page{Path: "/receipt-invoices/address/renew", Title: "受付メールアドレスの変更", Access: web.SignedIn}

// mailLogSize is how many of the latest mails the address page lists.
const mailLogSize = 20

// ShowAddressPage is the address, or the button that issues the first one.
func (h *Handler) ShowAddressPage(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	v := pages.AddressView{Enabled: h.InboundMailDomain != "", RenewHref: RenewPage.Path,
		MaxFiles: pay.MaxInboundAttachments, MaxMailMB: pay.MaxInboundMailBytes >> 20, MaxPerHour: pay.MaxInboundMailsPerHour}
	a, err := h.Store.ReceivingAddress(ctx, u.BuyerID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	default:
		v.Address = a.LocalPart + "@" + h.InboundMailDomain
		v.Since = pay.JapaneseDate(a.CreatedAt)
	}
	log, err := h.Store.InboundMails(ctx, u.BuyerID, mailLogSize)
	if err != nil {
		return err
	}
	for _, m := range log {
		v.Mails = append(v.Mails, mailRow(m))
	}
	return web.Show(h.App, c, AddressPage.Title, nil, v, pages.AddressPage)
}

// mailRow is one logged mail as the address page lists it.
func mailRow(m store.InboundMail) pages.MailRow {
	from := m.FromAddress
	if m.FromName != "" {
		from = m.FromName + " <" + m.FromAddress + ">"
	}
	r := pages.MailRow{At: pay.JapaneseDateTime(m.ReceivedAt), From: orDash(from), Subject: orDash(m.Subject)}
	switch m.Outcome {
	case "accepted":
		r.Outcome = views.Itoa(m.Accepted) + "件を受け付けました"
	case "partly":
		r.Outcome = views.Itoa(m.Accepted) + "件を受け付け、" + views.Itoa(m.Attachments-m.Accepted) + "件を受け付けませんでした"
	default:
		r.Outcome = "受け付けませんでした"
	}
	for _, x := range m.Refusals() {
		name := x.Name
		if name == "" {
			name = "メール全体"
		}
		r.Refusals = append(r.Refusals, name+"："+x.Reason)
	}
	if m.Bounced {
		r.Refusals = append(r.Refusals, "送信元に理由をメールでお知らせしました。")
	}
	return r
}

// ShowRenewPage asks whether to replace the address (or, without one, to issue it).
func (h *Handler) ShowRenewPage(c *echo.Context) error {
	if h.InboundMailDomain == "" {
		return web.ErrNotFound
	}
	_, err := h.Store.ReceivingAddress(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return web.Show(h.App, c, RenewPage.Title, nil,
		pages.RenewView{Action: RenewPage.Path, Back: AddressPage.Path, HasAddress: err == nil}, pages.RenewPage)
}

// Renew issues a new address and retires the old one, then shows it.
func (h *Handler) Renew(c *echo.Context) error {
	if h.InboundMailDomain == "" {
		return web.ErrNotFound
	}
	u := web.CurrentUser(c)
	if _, err := h.Store.RenewReceivingAddress(c.Request().Context(), u.BuyerID, u.ID, h.Now()); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "受付メールアドレスを発行しました", Text: "取引先にこのアドレスをお知らせください。"})
	return c.Redirect(http.StatusSeeOther, AddressPage.Path)
}
