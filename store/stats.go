package store

import (
	"context"

	"cardpay/pay"
)

// Stats gathers the counts behind the header and the landing rules (SPEC.md §3 user
// stats). Each count is added here when the table it counts exists; until then it is
// zero because there is nothing to count.
func (s *Store) Stats(ctx context.Context, buyerID int64) (pay.Stats, error) {
	var st pay.Stats
	n, err := s.UnreadNotificationCount(ctx, buyerID)
	if err != nil {
		return st, err
	}
	st.NotificationUnreadCount = n
	if st.SuppliersEnableCount, st.SuppliersDisableCount, err = s.SupplierCounts(ctx, buyerID); err != nil {
		return st, err
	}
	if st.Payments, err = s.PaymentCounts(ctx, buyerID); err != nil {
		return st, err
	}
	return st, nil
}
