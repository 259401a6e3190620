package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// SupplierUploadLink is a link a buyer mailed a supplier for uploading invoices to it
// (issue 29), with the names its public page shows.
type SupplierUploadLink struct {
	ID           int64      `db:"id"`
	BuyerID      int64      `db:"buyer_id"`
	SupplierID   int64      `db:"supplier_id"`
	Email        string     `db:"email"`
	CreatedAt    time.Time  `db:"created_at"`
	ExpiresAt    time.Time  `db:"expires_at"`
	RevokedAt    *time.Time `db:"revoked_at"`
	Uploads      int        `db:"uploads"`
	LastUsedAt   *time.Time `db:"last_used_at"`
	SupplierName string     `db:"supplier_name"`
	BuyerName    string     `db:"buyer_name"`
}

// Usable says whether the link takes uploads at now: not revoked, not expired, and its
// supplier not deleted (SupplierName is then still its name, but the buyer removed it).
func (l SupplierUploadLink) Usable(now time.Time) bool {
	return l.RevokedAt == nil && now.Before(l.ExpiresAt)
}

const uploadLinkSelect = `SELECT l.id, l.buyer_id, l.supplier_id, l.email, l.created_at, l.expires_at, l.revoked_at,
	l.uploads, l.last_used_at, s.name AS supplier_name,
	COALESCE(NULLIF(b.corporate_name, ''), NULLIF(b.business_name, ''), '') AS buyer_name
	FROM supplier_upload_links l JOIN suppliers s ON s.id = l.supplier_id JOIN buyers b ON b.id = l.buyer_id`

// NewSupplierUploadLink is a link to issue: the token's hash, where it is mailed, until
// when, and the job of its mail (enqueued in the same transaction).
type NewSupplierUploadLink struct {
	SupplierID  int64
	UserID      int64
	Email       string
	TokenSHA256 []byte
	ExpiresAt   time.Time
	Mail        func(l SupplierUploadLink) (NewJob, error)
}

// IssueSupplierUploadLink gives buyerID's supplier a new upload link, revoking the one
// it had, and enqueues its mail: all or nothing. Another buyer's or a deleted supplier
// is ErrNotFound.
func (s *Store) IssueSupplierUploadLink(ctx context.Context, buyerID int64, n NewSupplierUploadLink, now time.Time) (SupplierUploadLink, error) {
	var l SupplierUploadLink
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var ok bool
		if err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM suppliers WHERE buyer_id = $1 AND id = $2 AND deleted_at IS NULL)`,
			buyerID, n.SupplierID); err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `UPDATE supplier_upload_links SET revoked_at = $3
			WHERE buyer_id = $1 AND supplier_id = $2 AND revoked_at IS NULL`, buyerID, n.SupplierID, now); err != nil {
			return err
		}
		var by any
		if n.UserID > 0 {
			by = n.UserID
		}
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO supplier_upload_links (buyer_id, supplier_id, token_sha256, email, created_by, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, buyerID, n.SupplierID, n.TokenSHA256, n.Email, by, now, n.ExpiresAt); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &l, uploadLinkSelect+` WHERE l.id = $1`, id); err != nil {
			return err
		}
		if n.Mail == nil {
			return nil
		}
		j, err := n.Mail(l)
		if err != nil {
			return err
		}
		_, err = enqueueJob(ctx, tx, j)
		return err
	})
	if err == ErrNotFound {
		return l, err
	}
	if err != nil {
		return l, fmt.Errorf("store: upload link for supplier %d of buyer %d: %w", n.SupplierID, buyerID, err)
	}
	return l, nil
}

// SupplierUploadLink is the supplier's current (not revoked) link, or ErrNotFound.
func (s *Store) SupplierUploadLink(ctx context.Context, buyerID, supplierID int64) (SupplierUploadLink, error) {
	return getOne[SupplierUploadLink](ctx, s.DB, fmt.Sprintf("upload link of supplier %d", supplierID),
		uploadLinkSelect+` WHERE l.buyer_id = $1 AND l.supplier_id = $2 AND l.revoked_at IS NULL`, buyerID, supplierID)
}

// SupplierUploadLinkByToken is the link whose token has this SHA-256, revoked and
// expired ones too (the page says which), or ErrNotFound.
func (s *Store) SupplierUploadLinkByToken(ctx context.Context, tokenSHA256 []byte) (SupplierUploadLink, error) {
	return getOne[SupplierUploadLink](ctx, s.DB, "upload link", uploadLinkSelect+` WHERE l.token_sha256 = $1`, tokenSHA256)
}

// RevokeSupplierUploadLink ends the supplier's current link at once; none is ErrNotFound.
func (s *Store) RevokeSupplierUploadLink(ctx context.Context, buyerID, supplierID int64, now time.Time) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE supplier_upload_links SET revoked_at = $3
		WHERE buyer_id = $1 AND supplier_id = $2 AND revoked_at IS NULL`, buyerID, supplierID, now)
	if err != nil {
		return fmt.Errorf("store: revoke the upload link of supplier %d: %w", supplierID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// UseSupplierUploadLink counts one upload through link id at now, if it is still usable
// then (a conditional update: a link revoked meanwhile takes nothing), on tx with the
// upload's own rows. ErrNotFound when it is not.
func (s *Store) UseSupplierUploadLink(ctx context.Context, tx *sqlx.Tx, id int64, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE supplier_upload_links l SET uploads = uploads + 1, last_used_at = $2
		WHERE id = $1 AND revoked_at IS NULL AND expires_at > $2
		AND EXISTS (SELECT 1 FROM suppliers s WHERE s.id = l.supplier_id AND s.deleted_at IS NULL)`, id, now)
	if err != nil {
		return fmt.Errorf("store: use upload link %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
