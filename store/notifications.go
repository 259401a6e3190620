package store

import (
	"context"
	"fmt"
	"time"
)

// Notification is an in-app message to a buyer.
type Notification struct {
	ID        int64      `db:"id"`
	BuyerID   int64      `db:"buyer_id"`
	Title     string     `db:"title"`
	Body      string     `db:"body"`
	ReadAt    *time.Time `db:"read_at"`
	CreatedAt time.Time  `db:"created_at"`
}

// CreateNotification adds a notification for buyerID.
func (s *Store) CreateNotification(ctx context.Context, buyerID int64, title, body string) (int64, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `INSERT INTO notifications (buyer_id, title, body) VALUES ($1, $2, $3) RETURNING id`, buyerID, title, body)
	if err != nil {
		return 0, fmt.Errorf("store: create notification for buyer %d: %w", buyerID, err)
	}
	return id, nil
}
