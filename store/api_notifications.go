package store

import (
	"context"
	"fmt"
	"time"
)

// NotificationList is one page of a buyer's notifications, newest first, with the
// counts the bell and the pager need.
type NotificationList struct {
	Items       []Notification `db:"-"`
	CountAll    int            `db:"count_all"`
	CountUnread int            `db:"count_unread"`
}

// NotificationPage lists a buyer's notifications from offset, at most limit of them.
func (s *Store) NotificationPage(ctx context.Context, buyerID int64, offset, limit int) (NotificationList, error) {
	l := NotificationList{Items: []Notification{}}
	err := s.DB.GetContext(ctx, &l, `SELECT count(*) AS count_all, count(*) FILTER (WHERE read_at IS NULL) AS count_unread
		FROM notifications WHERE buyer_id = $1`, buyerID)
	if err != nil {
		return NotificationList{}, fmt.Errorf("store: notification counts of buyer %d: %w", buyerID, err)
	}
	if limit <= 0 || offset >= l.CountAll {
		return l, nil
	}
	err = s.DB.SelectContext(ctx, &l.Items, `SELECT id, buyer_id, title, body, link, read_at, created_at
		FROM notifications WHERE buyer_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`, buyerID, offset, limit)
	if err != nil {
		return NotificationList{}, fmt.Errorf("store: notifications of buyer %d: %w", buyerID, err)
	}
	return l, nil
}

// NotificationOf loads one of the buyer's notifications; another buyer's is ErrNotFound.
func (s *Store) NotificationOf(ctx context.Context, buyerID, id int64) (Notification, error) {
	var n Notification
	err := s.DB.GetContext(ctx, &n, `SELECT id, buyer_id, title, body, link, read_at, created_at
		FROM notifications WHERE buyer_id = $1 AND id = $2`, buyerID, id)
	if notFound(err) {
		return Notification{}, ErrNotFound
	}
	if err != nil {
		return Notification{}, fmt.Errorf("store: notification %d: %w", id, err)
	}
	return n, nil
}

// MarkNotificationRead records that the buyer read a notification, once: reading it
// again keeps the first time. Another buyer's notification is ErrNotFound.
func (s *Store) MarkNotificationRead(ctx context.Context, buyerID, id int64, at time.Time) (Notification, error) {
	var n Notification
	err := s.DB.GetContext(ctx, &n, `UPDATE notifications SET read_at = COALESCE(read_at, $3)
		WHERE buyer_id = $1 AND id = $2 RETURNING id, buyer_id, title, body, link, read_at, created_at`, buyerID, id, at)
	if notFound(err) {
		return Notification{}, ErrNotFound
	}
	if err != nil {
		return Notification{}, fmt.Errorf("store: read notification %d: %w", id, err)
	}
	return n, nil
}
