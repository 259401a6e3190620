package store

import (
	"context"
	"fmt"

	"cardpay/pay"
)

// Stats gathers the counts behind the header and the landing rules (SPEC.md §3 user
// stats). Every signed-in page reads them, so they are one prepared statement: the lists'
// counts (listCountsQuery) with the unread notifications and the suppliers beside them.
func (s *Store) Stats(ctx context.Context, buyerID int64) (pay.Stats, error) {
	var st pay.Stats
	var rows []countRow
	if err := s.selectPrepared(ctx, &rows, listCountsQuery+`
		UNION ALL SELECT 'unread', 0, 0, false, count(*) FROM notifications WHERE buyer_id = $1 AND read_at IS NULL
		UNION ALL SELECT 'received_new', 0, 0, false, count(*) FROM received_invoice_views
			WHERE buyer_id = $1 AND state = 'new'
		UNION ALL SELECT 'suppliers_enable', 0, 0, false, count(*) FROM suppliers
			WHERE buyer_id = $1 AND deleted_at IS NULL AND status = ANY($2)
		UNION ALL SELECT 'suppliers_disable', 0, 0, false, count(*) FROM suppliers
			WHERE buyer_id = $1 AND deleted_at IS NULL AND status = ANY($3)`,
		buyerID, supplierStatusCodes(pay.SupplierEnable), supplierStatusCodes(pay.SupplierDisable)); err != nil {
		return st, fmt.Errorf("store: stats of buyer %d: %w", buyerID, err)
	}
	st.Payments, st.Collections = sumListCounts(rows)
	for _, r := range rows {
		switch r.What {
		case "unread":
			st.NotificationUnreadCount = r.N
		case "received_new":
			st.ReceivedNewCount = r.N
		case "suppliers_enable":
			st.SuppliersEnableCount = r.N
		case "suppliers_disable":
			st.SuppliersDisableCount = r.N
		}
	}
	return st, nil
}
