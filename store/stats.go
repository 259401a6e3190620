package store

import (
	"context"
	"fmt"

	"cardpay/pay"
)

// Stats gathers the counts behind the header and the landing rules (SPEC.md §3 user
// stats). Every signed-in page reads them, so the notification and supplier counts come
// from one statement and the payment and collection lists from a second.
func (s *Store) Stats(ctx context.Context, buyerID int64) (pay.Stats, error) {
	var st pay.Stats
	st0, err := s.prepared(ctx, `SELECT
		(SELECT count(*) FROM notifications WHERE buyer_id = $1 AND read_at IS NULL),
		count(*) FILTER (WHERE status = ANY($2)), count(*) FILTER (WHERE status = ANY($3))
		FROM suppliers WHERE buyer_id = $1 AND deleted_at IS NULL`)
	if err != nil {
		return st, fmt.Errorf("store: stats of buyer %d: %w", buyerID, err)
	}
	err = st0.QueryRowContext(ctx, buyerID, supplierStatusCodes(pay.SupplierEnable), supplierStatusCodes(pay.SupplierDisable)).
		Scan(&st.NotificationUnreadCount, &st.SuppliersEnableCount, &st.SuppliersDisableCount)
	if err != nil {
		return st, fmt.Errorf("store: stats of buyer %d: %w", buyerID, err)
	}
	if st.Payments, st.Collections, err = s.listCounts(ctx, buyerID); err != nil {
		return st, err
	}
	return st, nil
}
