package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Corporation is a public registry entry (法人番号公表サイト): number, name, reading and
// head-office address. It belongs to no buyer, so it is not scoped by one.
type Corporation struct {
	CorporateNumber string    `db:"corporate_number" json:"corporate_number"`
	Name            string    `db:"name" json:"name"`
	NameKana        string    `db:"name_kana" json:"name_kana"`
	Address         string    `db:"address" json:"address"`
	UpdatedAt       time.Time `db:"updated_at" json:"-"`
}

// Corporations searches the known corporations: by number when q is all digits (a
// prefix), otherwise by a part of the name or its reading. At most limit rows, exact
// number and name-prefix matches first.
func (s *Store) Corporations(ctx context.Context, q string, limit int) ([]Corporation, error) {
	list := []Corporation{}
	q = strings.TrimSpace(q)
	if q == "" {
		return list, nil
	}
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	like := escapeLike(q)
	err := s.DB.SelectContext(ctx, &list, `SELECT corporate_number, name, name_kana, address, updated_at FROM corporations
		WHERE corporate_number LIKE $1 || '%' OR name ILIKE '%' || $1 || '%' OR name_kana LIKE '%' || $1 || '%'
		ORDER BY corporate_number = $2 DESC, name ILIKE $1 || '%' DESC, name, corporate_number
		LIMIT $3`, like, q, limit)
	if err != nil {
		return nil, fmt.Errorf("store: corporations %q: %w", q, err)
	}
	return list, nil
}

// escapeLike makes q match itself literally in a LIKE pattern (default escape \).
func escapeLike(q string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q)
}

// SaveCorporations records registry entries (from the NTA adapter or an import), newest
// facts winning.
func (s *Store) SaveCorporations(ctx context.Context, list []Corporation) error {
	for _, c := range list {
		if _, err := s.DB.ExecContext(ctx, `INSERT INTO corporations (corporate_number, name, name_kana, address)
			VALUES ($1, $2, $3, $4) ON CONFLICT (corporate_number) DO UPDATE
			SET name = EXCLUDED.name, name_kana = EXCLUDED.name_kana, address = EXCLUDED.address, updated_at = now()`,
			c.CorporateNumber, c.Name, c.NameKana, c.Address); err != nil {
			return fmt.Errorf("store: save corporation %s: %w", c.CorporateNumber, err)
		}
	}
	return nil
}

// Corporation is the known registry entry of one corporate number, ErrNotFound when
// the service has none.
func (s *Store) Corporation(ctx context.Context, number string) (Corporation, error) {
	return getOne[Corporation](ctx, s.DB, "corporation "+number,
		`SELECT corporate_number, name, name_kana, address, updated_at FROM corporations WHERE corporate_number = $1`, number)
}
