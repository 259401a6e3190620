package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// devMailboxLimit keeps the list page light; the store keeps more (store.DevMailsKept).
const devMailboxLimit = 100

// showDevMailboxPage lists the mails of the development mailbox, newest first. The
// mailbox holds every user's codes, so it is routed only in development.
func showDevMailboxPage(a *App, box mail.Box) echo.HandlerFunc {
	return func(c *echo.Context) error {
		mails, err := box.DevMails(c.Request().Context(), devMailboxLimit)
		if err != nil {
			return err
		}
		b, err := a.base(c, "開発用メールボックス")
		if err != nil {
			return err
		}
		v := views.DevMailboxView{Base: b, Limit: devMailboxLimit, Mails: make([]views.DevMailRow, 0, len(mails))}
		for _, m := range mails {
			v.Mails = append(v.Mails, views.DevMailRow{
				Href:       "/dev/mailbox/" + strconv.FormatInt(m.ID, 10),
				ReceivedAt: pay.JapaneseDateTime(m.ReceivedAt),
				To:         m.To,
				Subject:    m.Subject,
			})
		}
		return render(c, http.StatusOK, views.DevMailboxPage(v))
	}
}

// showDevMailPage shows one mail with its body as sent. An id that is not a positive
// number is as unknown as a missing one: the 404 page.
func showDevMailPage(a *App, box mail.Box) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id < 1 {
			return store.ErrNotFound
		}
		m, err := box.DevMail(c.Request().Context(), id)
		if err != nil {
			return err
		}
		subject := m.Subject
		if subject == "" {
			subject = "（件名なし）"
		}
		b, err := a.base(c, subject+" | 開発用メールボックス")
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.DevMailPage(views.DevMailView{
			Base:       b,
			ReceivedAt: pay.JapaneseDateTime(m.ReceivedAt),
			From:       m.From,
			To:         m.To,
			Subject:    m.Subject,
			Text:       m.Text,
		}))
	}
}
