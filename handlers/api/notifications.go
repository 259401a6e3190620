package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
)

// notification is one in-app message to the buyer.
type notification struct {
	ID        int64      `json:"id"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	Read      bool       `json:"read"`
	ReadAt    *time.Time `json:"read_at"`
	CreatedAt time.Time  `json:"created_at"`
}

func notificationOf(n store.Notification) notification {
	return notification{ID: n.ID, Title: n.Title, Body: n.Body, Read: n.ReadAt != nil, ReadAt: n.ReadAt, CreatedAt: n.CreatedAt}
}

type notificationsAnswer struct {
	Notifications []notification `json:"notifications"`
	CountAll      int            `json:"count_all"`
	CountUnread   int            `json:"count_unread"`
	Page          int            `json:"page"`
	Size          int            `json:"size"`
}

// Paging of GET users/notifications: page counts from 0 (SPEC.md §9: stats ask for page
// 0, size 1 and read only the counts).
const (
	defaultPageSize = 20
	maxPageSize     = 100
	maxPage         = 100_000
)

// notifications is GET users/notifications?page=&size=, newest first, the buyer's own.
func (s *server) notifications(c *echo.Context) error {
	var errs pay.FieldErrors
	page := queryInt(c, "page", 0, 0, maxPage, &errs)
	size := queryInt(c, "size", defaultPageSize, 1, maxPageSize, &errs)
	if len(errs) > 0 {
		return validationError(errs)
	}
	l, err := s.Store.NotificationPage(c.Request().Context(), caller(c).User.BuyerID, page*size, size)
	if err != nil {
		return err
	}
	a := notificationsAnswer{Notifications: make([]notification, len(l.Items)), CountAll: l.CountAll, CountUnread: l.CountUnread, Page: page, Size: size}
	for i, n := range l.Items {
		a.Notifications[i] = notificationOf(n)
	}
	return c.JSON(http.StatusOK, a)
}

// notice is GET users/notices/{id}; reading it does not mark it read (the confirmation
// call does). Another buyer's id is 404, like one that does not exist.
func (s *server) notice(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	n, err := s.Store.NotificationOf(c.Request().Context(), caller(c).User.BuyerID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, notificationOf(n))
}

// confirmNotification is POST users/notifications/{id}/confirmation: marks it read
// (again is harmless and keeps the first time).
func (s *server) confirmNotification(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	n, err := s.Store.MarkNotificationRead(c.Request().Context(), caller(c).User.BuyerID, id, s.Now())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, notificationOf(n))
}
