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
		-- 新着 received invoices (pay.ReceivedStateOf: no mark, no payment in screening or
		-- transferred) as one anti-join, not the view's state row by row on every page.
		UNION ALL SELECT 'received_new', 0, 0, false, count(*) FROM received_invoices ri
			WHERE ri.buyer_id = $1 AND ri.disposition = 'open' AND NOT EXISTS (SELECT 1 FROM invoices i
				WHERE i.file_id = ri.file_id AND i.buyer_id = ri.buyer_id AND i.submitted_at IS NOT NULL
				AND i.examination_status IN (1, 2, 3, 4))
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
