// Package dev is the development-only area: the in-process mailbox, where a developer
// reads the mails the application sent (codes included) without an SMTP server.
package dev

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/mail"
	"cardpay/pay"
	pages "cardpay/views/dev"
)

// devMailboxLimit keeps the list page light; the store keeps more (store.DevMailsKept).
const devMailboxLimit = 100

// Handler serves the development mailbox Box.
type Handler struct {
	*web.App
	Box mail.Box
}

// MailboxPage lists the mails of the development mailbox.
var MailboxPage = web.Page{Path: "/dev/mailbox", Title: "開発用メールボックス", Access: web.Public}

// ShowMailboxPage lists the mails of the development mailbox, newest first. The
// mailbox holds every user's codes, so it is routed only in development.
func (h *Handler) ShowMailboxPage(c *echo.Context) error {
	mails, err := h.Box.DevMails(c.Request().Context(), devMailboxLimit)
	if err != nil {
		return err
	}
	v := pages.DevMailboxView{Limit: devMailboxLimit, Mails: make([]pages.DevMailRow, 0, len(mails))}
	for _, m := range mails {
		v.Mails = append(v.Mails, pages.DevMailRow{
			Href:       MailboxPage.Path + "/" + strconv.FormatInt(m.ID, 10),
			ReceivedAt: pay.JapaneseDateTime(m.ReceivedAt),
			To:         m.To,
			Subject:    m.Subject,
		})
	}
	return web.Show(h.App, c, MailboxPage.Title, nil, v, pages.DevMailboxPage)
}

// MailPattern is one mail in the mailbox.
const MailPattern = "/dev/mailbox/:id"

// ShowMailPage shows one mail with its body as sent. An id that is not a positive
// number is as unknown as a missing one: the 404 page.
func (h *Handler) ShowMailPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	m, err := h.Box.DevMail(c.Request().Context(), id)
	if err != nil {
		return err
	}
	subject := m.Subject
	if subject == "" {
		subject = "（件名なし）"
	}
	return web.Show(h.App, c, subject+" | "+MailboxPage.Title, nil, pages.DevMailView{
		ReceivedAt: pay.JapaneseDateTime(m.ReceivedAt),
		From:       m.From,
		To:         m.To,
		Subject:    m.Subject,
		Text:       m.Text,
	}, pages.DevMailPage)
}
