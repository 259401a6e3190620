package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrUploadURLUsed: the signed upload URL has taken its one upload already.
var ErrUploadURLUsed = errors.New("store: upload URL already used")

// uploadURLUseKept is how long a use is kept: far longer than an upload URL lives (10
// minutes), so an expired URL is refused by its signature before its use is forgotten.
const uploadURLUseKept = 24 * time.Hour

// UseUploadURL records that buyerID's signed upload URL, by the SHA-256 of its token,
// takes its one upload now: ErrUploadURLUsed when it was used before, or at the same
// moment by another request (one INSERT decides). Uses older than a day go in the same
// statement.
func (s *Store) UseUploadURL(ctx context.Context, buyerID int64, tokenSHA256 []byte, now time.Time) error {
	res, err := s.DB.ExecContext(ctx, `
		WITH pruned AS (DELETE FROM upload_url_uses WHERE used_at < $4)
		INSERT INTO upload_url_uses (token_sha256, buyer_id, used_at) VALUES ($1, $2, $3)
		ON CONFLICT (token_sha256) DO NOTHING`,
		tokenSHA256, buyerID, now, now.Add(-uploadURLUseKept))
	if err != nil {
		return fmt.Errorf("store: use of an upload URL of buyer %d: %w", buyerID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return ErrUploadURLUsed
	}
	return nil
}

// ReleaseUploadURL gives buyerID's upload URL back after an upload that stored nothing
// (a refused file), so that the same URL can take a corrected one.
func (s *Store) ReleaseUploadURL(ctx context.Context, buyerID int64, tokenSHA256 []byte) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM upload_url_uses WHERE token_sha256 = $1 AND buyer_id = $2`, tokenSHA256, buyerID)
	if err != nil {
		return fmt.Errorf("store: release of an upload URL of buyer %d: %w", buyerID, err)
	}
	return nil
}
