package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// OAuthClient is a partner application registered by the operators (issue 30).
type OAuthClient struct {
	ID           string         `db:"id"`
	Name         string         `db:"name"`
	LogoText     string         `db:"logo_text"`
	SecretHash   []byte         `db:"secret_hash"`
	RedirectURIs pq.StringArray `db:"redirect_uris"`
	Scopes       pq.StringArray `db:"scopes"`
	WebhookURL   string         `db:"webhook_url"`
	CreatedBy    *int64         `db:"created_by"`
	CreatedAt    time.Time      `db:"created_at"`
	DisabledAt   *time.Time     `db:"disabled_at"`
}

// Public says whether the client has no secret (it must prove itself by PKCE alone).
func (c OAuthClient) Public() bool { return len(c.SecretHash) == 0 }

const oauthClientColumns = `id, name, logo_text, secret_hash, redirect_uris, scopes, webhook_url, created_by, created_at, disabled_at`

// CreateOAuthClient registers c (the tests' partners; the console uses RegisterOAuthClient).
func (s *Store) CreateOAuthClient(ctx context.Context, c OAuthClient) error {
	return s.insertOAuthClient(ctx, s.DB, c)
}

func (s *Store) insertOAuthClient(ctx context.Context, q sqlx.ExecerContext, c OAuthClient) error {
	_, err := q.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, logo_text, secret_hash, redirect_uris, scopes, webhook_url, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, c.ID, c.Name, c.LogoText, c.SecretHash, c.RedirectURIs, c.Scopes, c.WebhookURL, c.CreatedBy)
	if err != nil {
		return fmt.Errorf("store: register OAuth client %s: %w", c.ID, err)
	}
	return nil
}

// AuditPartner is the audit rows' object type of a partner application (its id is in
// the row's before and after: the object id is 0).
const AuditPartner = "partner"

// RegisterOAuthClient registers c with its audit row, in one transaction.
func (s *Store) RegisterOAuthClient(ctx context.Context, c OAuthClient, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.insertOAuthClient(ctx, tx, c); err != nil {
			return err
		}
		return s.AddAudit(ctx, tx, audit, now)
	})
}

// DisableOAuthClient stops a partner application: its tokens stop working and no buyer
// can connect it; with its audit row, in one transaction. ErrNotFound when it is not
// enabled.
func (s *Store) DisableOAuthClient(ctx context.Context, id string, audit NewAudit, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_clients SET disabled_at = $2 WHERE id = $1 AND disabled_at IS NULL`, id, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET active = false WHERE client_id = $1 AND active`, id); err != nil {
			return err
		}
		return s.AddAudit(ctx, tx, audit, now)
	})
}

// OAuthClient is an enabled client, or ErrNotFound.
func (s *Store) OAuthClient(ctx context.Context, id string) (OAuthClient, error) {
	return getOne[OAuthClient](ctx, s.DB, "OAuth client", `SELECT `+oauthClientColumns+` FROM oauth_clients
		WHERE id = $1 AND disabled_at IS NULL`, id)
}

// OAuthClients are every registered client, newest first, for the console.
func (s *Store) OAuthClients(ctx context.Context) ([]OAuthClient, error) {
	list := []OAuthClient{}
	if err := s.DB.SelectContext(ctx, &list, `SELECT `+oauthClientColumns+` FROM oauth_clients ORDER BY created_at DESC`); err != nil {
		return nil, fmt.Errorf("store: OAuth clients: %w", err)
	}
	return list, nil
}

// OAuthToken is one stored token (or code, or PKCE challenge) with its request.
type OAuthToken struct {
	Signature     string          `db:"signature"`
	Kind          string          `db:"kind"`
	RequestID     string          `db:"request_id"`
	ClientID      string          `db:"client_id"`
	BuyerID       int64           `db:"buyer_id"`
	UserID        int64           `db:"user_id"`
	RequestedAt   time.Time       `db:"requested_at"`
	Scopes        pq.StringArray  `db:"scopes"`
	GrantedScopes pq.StringArray  `db:"granted_scopes"`
	Form          json.RawMessage `db:"form"`
	Session       json.RawMessage `db:"session"`
	Active        bool            `db:"active"`
	ExpiresAt     time.Time       `db:"expires_at"`
}

// ErrOAuthConsentRevoked: the buyer disconnected the application meanwhile; no new
// token is kept for it.
var ErrOAuthConsentRevoked = errors.New("store: OAuth consent revoked")

// CreateOAuthToken keeps t. A code is kept only while the buyer's consent stands, and
// every other kind only while it still does: disconnecting at the same moment as a
// refresh wins.
func (s *Store) CreateOAuthToken(ctx context.Context, t OAuthToken) error {
	res, err := s.DB.ExecContext(ctx, `INSERT INTO oauth_tokens (signature, kind, request_id, client_id, buyer_id, user_id,
		requested_at, scopes, granted_scopes, form, session, expires_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
		WHERE EXISTS (SELECT 1 FROM oauth_consents WHERE buyer_id = $5 AND client_id = $4 AND revoked_at IS NULL)`,
		t.Signature, t.Kind, t.RequestID, t.ClientID, t.BuyerID, t.UserID, t.RequestedAt, t.Scopes, t.GrantedScopes,
		[]byte(t.Form), []byte(t.Session), t.ExpiresAt)
	if err != nil {
		return fmt.Errorf("store: keep OAuth %s: %w", t.Kind, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrOAuthConsentRevoked
	}
	return nil
}

// OAuthToken loads the token of kind by its signature, active or not, or ErrNotFound.
func (s *Store) OAuthToken(ctx context.Context, kind, signature string) (OAuthToken, error) {
	return getOne[OAuthToken](ctx, s.DB, "OAuth "+kind, `SELECT signature, kind, request_id, client_id, buyer_id, user_id,
		requested_at, scopes, granted_scopes, form, session, active, expires_at FROM oauth_tokens WHERE kind = $1 AND signature = $2`,
		kind, signature)
}

// DeactivateOAuthToken marks one token used (a code) or rotated (a refresh token).
func (s *Store) DeactivateOAuthToken(ctx context.Context, kind, signature string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE oauth_tokens SET active = false WHERE kind = $1 AND signature = $2`, kind, signature)
	return err
}

// DeleteOAuthToken removes one token.
func (s *Store) DeleteOAuthToken(ctx context.Context, kind, signature string) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE kind = $1 AND signature = $2`, kind, signature)
	return err
}

// RevokeOAuthGrant deactivates every token of kind issued under requestID (a grant and
// all its refreshes share it).
func (s *Store) RevokeOAuthGrant(ctx context.Context, kind, requestID string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE oauth_tokens SET active = false WHERE kind = $1 AND request_id = $2`, kind, requestID)
	return err
}

// OAuthConsent is an application a buyer connected.
type OAuthConsent struct {
	ClientID   string         `db:"client_id"`
	ClientName string         `db:"client_name"`
	Scopes     pq.StringArray `db:"scopes"`
	GrantedAt  time.Time      `db:"granted_at"`
	LastUsedAt *time.Time     `db:"last_used_at"`
}

// GrantOAuthConsent records that the buyer's user let clientID do scopes (again, after a
// disconnect).
func (s *Store) GrantOAuthConsent(ctx context.Context, buyerID, userID int64, clientID string, scopes []string, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO oauth_consents (buyer_id, client_id, scopes, granted_by, granted_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (buyer_id, client_id) DO UPDATE SET scopes = $3, granted_by = $4,
		granted_at = $5, revoked_at = NULL`, buyerID, clientID, pq.StringArray(scopes), userID, now)
	if err != nil {
		return fmt.Errorf("store: consent of buyer %d to %s: %w", buyerID, clientID, err)
	}
	return nil
}

// OAuthConsents are the buyer's connected applications, newest first.
func (s *Store) OAuthConsents(ctx context.Context, buyerID int64) ([]OAuthConsent, error) {
	list := []OAuthConsent{}
	err := s.DB.SelectContext(ctx, &list, `SELECT c.client_id, k.name AS client_name, c.scopes, c.granted_at, c.last_used_at
		FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
		WHERE c.buyer_id = $1 AND c.revoked_at IS NULL AND k.disabled_at IS NULL ORDER BY c.granted_at DESC`, buyerID)
	if err != nil {
		return nil, fmt.Errorf("store: consents of buyer %d: %w", buyerID, err)
	}
	return list, nil
}

// RevokeOAuthConsent disconnects the application: the consent ends and every token of
// the pair stops working, in one transaction. ErrNotFound when it was not connected.
func (s *Store) RevokeOAuthConsent(ctx context.Context, buyerID int64, clientID string, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_consents SET revoked_at = $3 WHERE buyer_id = $1 AND client_id = $2 AND revoked_at IS NULL`,
			buyerID, clientID, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_tokens SET active = false WHERE buyer_id = $1 AND client_id = $2 AND active`, buyerID, clientID)
		return err
	})
}

// TouchOAuthConsent records that the application used its access now (at most once a
// minute, so that busy partners do not write on every call).
func (s *Store) TouchOAuthConsent(ctx context.Context, buyerID int64, clientID string, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE oauth_consents SET last_used_at = $3 WHERE buyer_id = $1 AND client_id = $2
		AND revoked_at IS NULL AND (last_used_at IS NULL OR last_used_at < $3 - interval '1 minute')`, buyerID, clientID, now)
	return err
}

// OAuthClientIDs are the applications the buyer has connected (the user's
// external_integration_client_ids).
func (s *Store) OAuthClientIDs(ctx context.Context, buyerID int64) ([]string, error) {
	ids := []string{}
	err := s.DB.SelectContext(ctx, &ids, `SELECT c.client_id FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
		WHERE c.buyer_id = $1 AND c.revoked_at IS NULL AND k.disabled_at IS NULL ORDER BY c.client_id`, buyerID)
	return ids, err
}

// PartnerWebhook is what one webhook tells: the event of a payment a partner's draft
// became, and where to post it.
type PartnerWebhook struct {
	ClientID  string    `json:"client_id"`
	URL       string    `json:"url"`
	EventID   string    `json:"event_id"`
	Type      string    `json:"type"`
	PaymentID int64     `json:"payment_id"`
	Status    int       `json:"status"`
	At        time.Time `json:"at"`
}

// EnqueuePartnerWebhook queues, on tx, the webhook of an event of paymentID (the job job
// makes: oauth.WebhookJob) when the payment came from a partner's draft and the partner
// has a webhook URL; otherwise it does nothing.
func (s *Store) EnqueuePartnerWebhook(ctx context.Context, tx *sqlx.Tx, buyerID, paymentID int64, eventID, typ string, status int, at time.Time,
	job func(PartnerWebhook) NewJob) error {
	var target struct {
		ClientID string `db:"id"`
		URL      string `db:"webhook_url"`
	}
	err := tx.GetContext(ctx, &target, `SELECT k.id, k.webhook_url FROM invoices i JOIN oauth_clients k ON k.id = i.partner_client_id
		WHERE i.buyer_id = $1 AND i.id = $2 AND k.disabled_at IS NULL AND k.webhook_url <> ''`, buyerID, paymentID)
	if notFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: webhook of payment %d: %w", paymentID, err)
	}
	_, err = enqueueJob(ctx, tx, job(PartnerWebhook{ClientID: target.ClientID, URL: target.URL, EventID: eventID, Type: typ,
		PaymentID: paymentID, Status: status, At: at}))
	return err
}

// FinishDraft ends a draft that became payment paymentID, in one transaction: a
// partner's draft gives the payment its partner (who is told: payment.submitted), and
// the draft is deleted.
func (s *Store) FinishDraft(ctx context.Context, buyerID int64, kind DraftKind, draftID, paymentID int64, status int, now time.Time,
	job func(PartnerWebhook) NewJob) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE invoices SET partner_client_id = d.partner_client_id FROM drafts d
			WHERE invoices.buyer_id = $1 AND invoices.id = $2 AND d.buyer_id = $1 AND d.kind = $3 AND d.id = $4
			AND d.partner_client_id IS NOT NULL`, buyerID, paymentID, kind, draftID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			if err := s.EnqueuePartnerWebhook(ctx, tx, buyerID, paymentID, fmt.Sprintf("payment-%d-submitted", paymentID),
				"payment.submitted", status, now, job); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM drafts WHERE buyer_id = $1 AND kind = $2 AND id = $3`, buyerID, kind, draftID)
		return err
	})
}
