package store

import (
	"context"
	"fmt"

	"github.com/lib/pq"

	"cardpay/pay"
)

// CardNumberFinding is a card-like number found in a table: where, and its masked form.
type CardNumberFinding struct {
	Table  string
	Masked string
}

// CardNumbers reads every row of every table in the database, as text, and reports each
// Luhn-valid 13–19-digit number in it (pay.FindCardNumbers). The test harness runs it on
// each test package's database before dropping it: the card data rule (no card number is
// ever stored) is checked on everything the tests wrote, the sandbox PSP's tables included.
func (s *Store) CardNumbers(ctx context.Context) ([]CardNumberFinding, error) {
	var tables []struct {
		Schema string `db:"table_schema"`
		Name   string `db:"table_name"`
	}
	err := s.DB.SelectContext(ctx, &tables, `
		SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
		ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("store: card scan tables: %w", err)
	}
	var found []CardNumberFinding
	for _, t := range tables {
		name := pq.QuoteIdentifier(t.Schema) + "." + pq.QuoteIdentifier(t.Name)
		rows, err := s.DB.QueryContext(ctx, "SELECT t::text FROM "+name+" t")
		if err != nil {
			return nil, fmt.Errorf("store: card scan %s: %w", name, err)
		}
		for rows.Next() {
			var row string
			if err := rows.Scan(&row); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: card scan %s: %w", name, err)
			}
			for _, f := range pay.FindCardNumbers(row) {
				found = append(found, CardNumberFinding{Table: t.Schema + "." + t.Name, Masked: f.Masked})
			}
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: card scan %s: %w", name, err)
		}
	}
	return found, nil
}
