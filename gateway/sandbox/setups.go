package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
)

// setupRow is a card setup (table sandbox_setups): the merchant's server opens it, the
// buyer enters a card on the fields page or the hosted page (token_id), and the merchant's
// server finishes it, which saves the card (card_id).
type setupRow struct {
	ID        string `db:"id"`
	ReturnURL string `db:"return_url"`
	// Origin is the merchant origin (return_url's): the fields page may be framed by it
	// alone and posts its messages to it alone.
	Origin    string         `db:"origin"`
	CreatedAt time.Time      `db:"created_at"`
	ExpiresAt time.Time      `db:"expires_at"`
	UsedAt    *time.Time     `db:"used_at"` // when the card was entered
	TokenID   sql.NullString `db:"token_id"`
	CardID    sql.NullString `db:"card_id"`
}

// open says whether the setup can still take a card: none entered, not expired.
func (st setupRow) open(now time.Time) bool {
	return !st.TokenID.Valid && st.ExpiresAt.After(now)
}

// setupJSON is the answer to POST /v1/setups.
type setupJSON struct {
	ID        string `json:"id"`
	FieldsURL string `json:"fields_url"`
	URL       string `json:"url"`
}

// setupResultJSON is the answer to POST /v1/setups/{id}/finish.
type setupResultJSON struct {
	Status string    `json:"status"`
	Card   *cardJSON `json:"card,omitempty"`
}

// createSetup is POST /v1/setups {"return_url"}, from the merchant's server. One setup
// serves both ways in: the fields page for an iframe (fields_url) and the hosted page
// for buyers without JavaScript (url); the merchant uses the one it needs.
func (s *Server) createSetup(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ReturnURL string `json:"return_url"`
	}
	if err := decodeJSON(r, &req); err != nil {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, `{"return_url"} is expected`)
		return
	}
	if _, ok := s.appURL(req.ReturnURL); !ok {
		apiError(w, http.StatusBadRequest, codeInvalidRequest, "return_url must be an absolute URL on one of the merchant's origins")
		return
	}
	o, _ := origin(req.ReturnURL) // appURL checked it
	now := s.now()
	st := setupRow{ID: newID("setup"), ReturnURL: req.ReturnURL, Origin: o, CreatedAt: now, ExpiresAt: now.Add(setupTTL)}
	if _, err := s.db.NamedExecContext(r.Context(), `
		INSERT INTO sandbox_setups (id, return_url, origin, created_at, expires_at)
		VALUES (:id, :return_url, :origin, :created_at, :expires_at)`, st); err != nil {
		s.serverError(w, "setup", err)
		return
	}
	writeJSON(w, http.StatusCreated, setupJSON{
		ID: st.ID, FieldsURL: s.public.String() + "/fields/" + st.ID, URL: s.public.String() + "/hosted/" + st.ID,
	})
}

// finishSetup is POST /v1/setups/{id}/finish: open before a card was entered; once one
// was, its token becomes a saved card (once: every later call answers the same card).
func (s *Server) finishSetup(w http.ResponseWriter, r *http.Request) {
	var out setupResultJSON
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		out, err = s.finish(r.Context(), tx, r.PathValue("id"))
		return err
	})
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, out)
	case isNoRows(err):
		apiError(w, http.StatusNotFound, codeNotFound, "no setup by that id")
	case errors.Is(err, errTokenInvalid):
		apiError(w, http.StatusBadRequest, codeTokenInvalid, "the setup expired without a card, or its token was used elsewhere")
	default:
		s.serverError(w, "finish setup", err)
	}
}

// finish reads the setup locked, so two finishing calls queue: the second reads the
// card the first saved instead of spending the token again.
func (s *Server) finish(ctx context.Context, tx *sqlx.Tx, id string) (setupResultJSON, error) {
	var st setupRow
	if err := tx.GetContext(ctx, &st, `SELECT * FROM sandbox_setups WHERE id = $1 FOR UPDATE`, id); err != nil {
		return setupResultJSON{}, err
	}
	switch {
	case st.CardID.Valid:
		var c cardRow
		if err := tx.GetContext(ctx, &c, `SELECT * FROM sandbox_cards WHERE id = $1`, st.CardID.String); err != nil {
			return setupResultJSON{}, err
		}
		return succeeded(c), nil
	case !st.TokenID.Valid && st.ExpiresAt.After(s.now()):
		return setupResultJSON{Status: string(gateway.SetupOpen)}, nil
	case !st.TokenID.Valid:
		return setupResultJSON{}, errTokenInvalid
	}
	c, err := s.saveToken(ctx, tx, st.TokenID.String)
	if err != nil {
		return setupResultJSON{}, err
	}
	// Conditional, though the lock already keeps a second caller out: a setup's card is
	// written once, and never replaced.
	res, err := tx.ExecContext(ctx, `UPDATE sandbox_setups SET card_id = $2 WHERE id = $1 AND card_id IS NULL`, st.ID, c.ID)
	if err != nil {
		return setupResultJSON{}, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return setupResultJSON{}, fmt.Errorf("setup %s was finished meanwhile", st.ID)
	}
	return succeeded(c), nil
}

func succeeded(c cardRow) setupResultJSON {
	j := c.json()
	return setupResultJSON{Status: string(gateway.SetupSucceeded), Card: &j}
}

// errSetupClosed: the setup took a card already, or expired.
var errSetupClosed = errors.New("setup used or expired")

// enterCard makes the token of a checked card and records it on the setup, in one
// transaction: a setup takes one card, so a second one (a double submit, another tab)
// is refused and leaves no token behind.
func (s *Server) enterCard(ctx context.Context, setupID string, c checkedCard) (tokenResponse, error) {
	var tok tokenResponse
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if tok, err = s.insertToken(ctx, tx, c); err != nil {
			return err
		}
		now := s.now()
		res, err := tx.ExecContext(ctx, `
			UPDATE sandbox_setups SET token_id = $2, used_at = $3
			WHERE id = $1 AND token_id IS NULL AND expires_at > $3`, setupID, tok.Token, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errSetupClosed
		}
		return nil
	})
	return tok, err
}

// setupByID reads a setup; sql.ErrNoRows when there is none.
func (s *Server) setupByID(ctx context.Context, id string) (setupRow, error) {
	var st setupRow
	err := s.db.GetContext(ctx, &st, `SELECT * FROM sandbox_setups WHERE id = $1`, id)
	return st, err
}

// StartCardSetup opens a setup: the fields page's URL for an iframe, or (r.Hosted) the
// hosted page's for a redirect.
func (c *Client) StartCardSetup(ctx context.Context, r gateway.CardSetupRequest) (gateway.CardSetup, error) {
	var st setupJSON
	if err := c.call(ctx, http.MethodPost, "/v1/setups", "", map[string]string{"return_url": r.ReturnURL}, &st); err != nil {
		return gateway.CardSetup{}, fmt.Errorf("sandbox: start card setup: %w", err)
	}
	if r.Hosted {
		return gateway.CardSetup{ID: st.ID, RedirectURL: st.URL}, nil
	}
	return gateway.CardSetup{ID: st.ID, FieldsURL: st.FieldsURL}, nil
}

// FinishCardSetup reads a setup's outcome. Verified is false: the sandbox's setups only
// tokenise, and the service checks the card with Authorize(VerifyOnly) as for a token.
func (c *Client) FinishCardSetup(ctx context.Context, setupID string) (gateway.CardSetupResult, error) {
	var out setupResultJSON
	if err := c.call(ctx, http.MethodPost, "/v1/setups/"+url.PathEscape(setupID)+"/finish", "", struct{}{}, &out); err != nil {
		return gateway.CardSetupResult{}, fmt.Errorf("sandbox: finish card setup: %w", err)
	}
	res := gateway.CardSetupResult{Status: gateway.SetupStatus(out.Status)}
	if out.Card != nil {
		res.Card = out.Card.card()
	}
	return res, nil
}
