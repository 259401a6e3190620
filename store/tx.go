package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// inTx runs fn in a transaction and commits it when fn returns nil. An error from fn, or
// a panic, rolls the transaction back; fn's error is returned as it is, since fn already
// says what failed.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin transaction: %w", err)
	}
	// After a commit this is a no-op; before one it undoes fn's work, panic or not.
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}
