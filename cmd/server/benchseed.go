package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
)

// seedBench is `server -seed-payments N`, development only: it gives the demo corporation
// N more payments of its first supplier, spread over the lists, for `task bench` (the
// history page under load with 2,000 payments). The demo accounts must exist: start the
// server once first.
func seedBench(n int, logger *slog.Logger) error {
	if n <= 0 || n > 1_000_000 {
		return errors.New("-seed-payments wants a number of payments (1-1000000)")
	}
	ctx := context.Background()
	st, err := devStore(ctx, "-seed-payments", logger)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := st.UserByEmail(ctx, demoBuyers[0].EmailAddress)
	if err != nil {
		return fmt.Errorf("the demo corporation: %w (start the server once first)", err)
	}
	var supplierID, accountID int64
	if err := st.DB.QueryRowContext(ctx, `SELECT s.id, a.id FROM suppliers s JOIN supplier_accounts a ON a.supplier_id = s.id
		WHERE s.buyer_id = $1 AND s.deleted_at IS NULL ORDER BY s.id, a.id LIMIT 1`, u.BuyerID).Scan(&supplierID, &accountID); err != nil {
		return fmt.Errorf("the demo corporation's supplier: %w", err)
	}
	return st.SeedPayments(ctx, u.BuyerID, supplierID, accountID, n)
}

// printCommits is `server -db-commits`, development only: the number of transactions the
// development database has ended (committed and rolled back, from PostgreSQL's own
// statistics), so that `task bench` can say how many an idle server makes per second.
// The statistics lag each backend by up to a second; the bench reads them 30 s apart.
func printCommits(w io.Writer, logger *slog.Logger) error {
	ctx := context.Background()
	st, err := devStore(ctx, "-db-commits", logger)
	if err != nil {
		return err
	}
	defer st.Close()
	var n int64
	if err := st.DB.GetContext(ctx, &n, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, n)
	return err
}
