// Package notifications is the area of /notifications: the buyer's お知らせ.
package notifications

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/notifications"
)

// Handler serves the notification pages.
type Handler struct {
	*web.App
}

// ListPage is the buyer's notifications, newest first.
var ListPage = web.Page{Path: "/notifications", Title: "お知らせ", Access: web.SignedIn}

// pageSize: 20 notifications a page.
const pageSize = 20

var jst = time.FixedZone("JST", 9*60*60)

// ShowListPage lists the buyer's notifications, the unread marked.
func (h *Handler) ShowListPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	page := web.PageParam(c)
	l, err := h.Store.NotificationPage(c.Request().Context(), u.BuyerID, (page-1)*pageSize, pageSize)
	if err != nil {
		return err
	}
	count := max(pay.PageCount(l.CountAll, pageSize), 1)
	if page > count {
		return c.Redirect(http.StatusSeeOther, href(count))
	}
	v := pages.ListView{Unread: l.CountUnread,
		Pages: views.Pagination{Current: page, Total: count, Items: pay.PageItems(page, count), Href: href}}
	for _, n := range l.Items {
		v.Items = append(v.Items, pages.Item{Href: fmt.Sprintf("%s/%d", ListPage.Path, n.ID), Title: n.Title,
			At: n.CreatedAt.In(jst).Format("2006/01/02 15:04"), Unread: n.ReadAt == nil})
	}
	return web.Show(h.App, c, ListPage.Title, nil, v, pages.ListPage)
}

func href(page int) string {
	if page <= 1 {
		return ListPage.Path
	}
	return ListPage.Path + "?page=" + strconv.Itoa(page)
}

// DetailPattern is one notification.
const DetailPattern = "/notifications/:id"

// ShowDetailPage shows one notification and marks it read (the bell's dot goes when
// nothing is unread). Another buyer's is not found.
func (h *Handler) ShowDetailPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	n, err := h.Store.MarkNotificationRead(c.Request().Context(), u.BuyerID, id, h.Now())
	if err != nil {
		return err
	}
	v := pages.DetailView{Title: n.Title, At: n.CreatedAt.In(jst).Format("2006/01/02 15:04"),
		Lines: strings.Split(n.Body, "\n"), Link: n.Link}
	return web.Show(h.App, c, n.Title, nil, v, pages.DetailPage)
}
