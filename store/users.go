package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
)

// User is a person who signs in for a buyer, with the buyer's business fields that the
// header and the collection rules need.
type User struct {
	ID              int64            `db:"id"`
	BuyerID         int64            `db:"buyer_id"`
	EmailAddress    string           `db:"email_address"`
	PasswordHash    string           `db:"password_hash"`
	LastName        string           `db:"user_last_name"`
	FirstName       string           `db:"user_first_name"`
	PhoneNumber     string           `db:"phone_number"`
	BusinessForm    pay.BusinessForm `db:"business_form"`
	CorporateName   string           `db:"corporate_name"`
	CorporateNumber string           `db:"corporate_number"`
	BusinessName    string           `db:"business_name"`

	TwoFactorMethod  string `db:"two_factor_method"` // "", "email" or "totp"
	TOTPSecretSealed string `db:"totp_secret_sealed"`
	TOTPLastStep     int64  `db:"totp_last_step"`
	SessionEpoch     int    `db:"session_epoch"`
	TermsVersion     int    `db:"terms_version"`
	// ReviewStatus is the buyer's review (pay.BuyerHeld: waiting for the operators).
	ReviewStatus pay.BuyerReview `db:"review_status"`
}

// DisplayName is the business name shown in the header: the corporate name for a
// corporation, the trade name for a sole proprietor.
func (u User) DisplayName() string {
	if u.BusinessForm == pay.Corporation {
		return u.CorporateName
	}
	return u.BusinessName
}

// Signature is who did something, as a record keeps it (a received invoice's history):
// the business's name and the user's address, which stay readable after the user goes.
func (u User) Signature() string {
	return u.DisplayName() + "（" + u.EmailAddress + "）"
}

const userColumns = `u.id, u.buyer_id, u.email_address, u.password_hash, u.user_last_name,
	u.user_first_name, u.phone_number, b.business_form, b.corporate_name,
	b.corporate_number, b.business_name, u.two_factor_method, u.totp_secret_sealed,
	u.totp_last_step, u.session_epoch,
	u.terms_version, b.review_status`

// UserByEmail finds the user who signs in with email (case-insensitive). It is the one
// lookup not scoped by buyer, because at sign-in the buyer is not known yet.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+`
		FROM users u JOIN buyers b ON b.id = u.buyer_id
		WHERE lower(u.email_address) = lower($1)`, strings.TrimSpace(email))
	if notFound(err) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user by email: %w", err)
	}
	return u, nil
}

// User loads the signed-in user: the session holds both ids, and both must match.
func (s *Store) User(ctx context.Context, buyerID, userID int64) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+`
		FROM users u JOIN buyers b ON b.id = u.buyer_id
		WHERE u.buyer_id = $1 AND u.id = $2`, buyerID, userID)
	if notFound(err) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user %d: %w", userID, err)
	}
	return u, nil
}

// NewBuyer is what creating a buyer with its first user needs.
type NewBuyer struct {
	BusinessForm    pay.BusinessForm
	CorporateName   string
	CorporateNumber string
	BusinessName    string
	EmailAddress    string
	PasswordHash    string
	LastName        string
	FirstName       string
	PhoneNumber     string
	TermsVersion    int
	// TermsAcceptedAt is when the user accepted TermsVersion (the sign-up's consent);
	// zero is the moment of creation.
	TermsAcceptedAt time.Time
	// ReviewStatus and ReviewReason hold the buyer for the operators (pay.BuyerHeld and
	// a pay.Hold… reason); empty is an active buyer.
	ReviewStatus pay.BuyerReview
	ReviewReason string
	// Details are the remaining business fields; CorporateName, CorporateNumber and
	// BusinessName above win over the same fields here.
	Details BuyerDetails
}

// CreateBuyer inserts a buyer and its first user in one transaction.
func (s *Store) CreateBuyer(ctx context.Context, nb NewBuyer) (User, error) {
	var u User
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		u, err = CreateBuyerTx(ctx, tx, nb)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.User(ctx, u.BuyerID, u.ID)
}

// CreateBuyerTx inserts a buyer and its first user inside tx, so that registration can
// also close its sign-up in the same transaction. Only the ids of the result are set.
func CreateBuyerTx(ctx context.Context, tx *sqlx.Tx, nb NewBuyer) (User, error) {
	d := nb.Details
	d.BusinessForm = nb.BusinessForm
	if nb.CorporateName != "" {
		d.CorporateName = nb.CorporateName
	}
	if nb.CorporateNumber != "" {
		d.CorporateNumber = nb.CorporateNumber
	}
	if nb.BusinessName != "" {
		d.BusinessName = nb.BusinessName
	}
	q, args, err := sqlx.Named(`INSERT INTO buyers (`+buyerDetailColumns+`) VALUES (`+buyerDetailValues+`) RETURNING id`, d)
	if err != nil {
		return User{}, fmt.Errorf("store: create buyer: %w", err)
	}
	var u User
	if err := tx.GetContext(ctx, &u.BuyerID, tx.Rebind(q), args...); err != nil {
		return User{}, fmt.Errorf("store: create buyer: %w", err)
	}
	if nb.ReviewStatus != "" && nb.ReviewStatus != pay.BuyerActive {
		if _, err := tx.ExecContext(ctx, `UPDATE buyers SET review_status = $2, review_reason = $3 WHERE id = $1`,
			u.BuyerID, nb.ReviewStatus, nb.ReviewReason); err != nil {
			return User{}, fmt.Errorf("store: hold buyer %d: %w", u.BuyerID, err)
		}
	}
	if err := tx.GetContext(ctx, &u.ID, `INSERT INTO users (buyer_id, email_address, password_hash, user_last_name, user_first_name, phone_number, terms_version)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, u.BuyerID, strings.TrimSpace(nb.EmailAddress), nb.PasswordHash, nb.LastName, nb.FirstName, nb.PhoneNumber, nb.TermsVersion); err != nil {
		return User{}, fmt.Errorf("store: create user: %w", err)
	}
	if err := recordTermsAcceptance(ctx, tx, u.BuyerID, u.ID, nb.TermsVersion, nb.TermsAcceptedAt); err != nil {
		return User{}, err
	}
	return u, nil
}

// SetPasswordHash replaces a user's password hash.
func (s *Store) SetPasswordHash(ctx context.Context, buyerID, userID int64, hash string) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE users SET password_hash = $3 WHERE buyer_id = $1 AND id = $2`, buyerID, userID, hash)
	if err != nil {
		return fmt.Errorf("store: set password of user %d: %w", userID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
