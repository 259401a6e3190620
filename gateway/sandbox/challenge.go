package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"math/big"
	"net/http"
	"strconv"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/pay"
)

// passcode is a random 6-digit one-time passcode, which the challenge page shows.
func passcode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("%06d", n.Int64())
}

// challengeFor reads the authorisation behind a challenge id, locked when lock is set.
func (s *Server) challengeFor(ctx context.Context, tx *sqlx.Tx, id string, lock bool) (authRow, error) {
	q := authSelect + ` WHERE a.challenge_id = $1`
	if lock {
		q += ` FOR UPDATE OF a`
	}
	var a authRow
	err := tx.GetContext(ctx, &a, q, id)
	return a, err
}

// returnTo is the app's return URL with our payment id, where the buyer goes once the
// challenge is over, whatever its outcome: the app looks the payment up.
func (s *Server) returnTo(a authRow) string {
	u, ok := s.appURL(a.ReturnURL)
	if !ok {
		return ""
	}
	return withQuery(u, "payment_id", a.PaymentID)
}

func passcodeField(errMsg string) []fieldView {
	return []fieldView{{
		ID: "passcode", Label: "ワンタイムパスワード", Hint: "上に表示されている6桁の数字", Error: errMsg,
		Autocomplete: "one-time-code", Numeric: true,
	}}
}

func (s *Server) challengeData(a authRow, errMsg string) pageData {
	amount := pay.Yen(a.Amount)
	if a.VerifyOnly {
		amount = "カードの確認のみ（ご請求はありません）"
	}
	d := pageData{
		Title: "本人認証（3-Dセキュア）", Action: "/3ds/" + a.ChallengeID.String,
		AmountText: amount, CardText: brandOf(a.Card.Brand).Label() + " •••• " + a.Card.Last4,
		Passcode: a.Passcode.String, Fields: passcodeField(errMsg),
	}
	if errMsg != "" {
		d.Errors = []fieldError{{Field: "passcode", Message: errMsg}}
	}
	return d
}

// challengePage is GET /3ds/{id}.
func (s *Server) challengePage(w http.ResponseWriter, r *http.Request) {
	var a authRow
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		if a, err = s.challengeFor(r.Context(), tx, r.PathValue("id"), true); err != nil {
			return err
		}
		a, err = s.expireChallenge(r.Context(), tx, a)
		return err
	})
	if err != nil {
		if !isNoRows(err) {
			s.log.Error("challenge", "error", err)
		}
		s.notFoundPage(w)
		return
	}
	if a.Status != string(gateway.StatusRequiresAction) {
		s.challengeOver(w, a)
		return
	}
	s.render(w, http.StatusOK, "challenge", s.challengeData(a, ""))
}

// challengeOver is the page of a challenge that has ended (passed, failed, expired).
func (s *Server) challengeOver(w http.ResponseWriter, a authRow) {
	s.message(w, http.StatusGone, "この本人認証は終了しています",
		"この本人認証はすでに終了しているか、有効期限が切れています。加盟店のページに戻って、お支払いの状況をご確認ください。",
		s.returnTo(a), "加盟店のページに戻る")
}

// expireChallenge fails a challenge left unanswered past its time.
func (s *Server) expireChallenge(ctx context.Context, tx *sqlx.Tx, a authRow) (authRow, error) {
	if a.Status != string(gateway.StatusRequiresAction) || !a.ChallengeExpiresAt.Valid || a.ChallengeExpiresAt.Time.After(s.now()) {
		return a, nil
	}
	return a, s.failChallenge(ctx, tx, &a)
}

func (s *Server) failChallenge(ctx context.Context, tx *sqlx.Tx, a *authRow) error {
	a.Status, a.ResultCode, a.UpdatedAt = string(gateway.StatusDeclined), string(gateway.ResultChallengeFailed), s.now()
	if _, err := tx.NamedExecContext(ctx, `
		UPDATE sandbox_authorizations SET status = :status, result_code = :result_code,
			challenge_attempts = :challenge_attempts, updated_at = :updated_at
		WHERE id = :id`, a); err != nil {
		return err
	}
	s.log.Info("challenge failed", "payment_id", a.PaymentID, "attempts", a.ChallengeAttempts)
	return s.addEvent(ctx, tx, gateway.EventActionFailed, s.txJSON(*a))
}

// challengeSubmit is POST /3ds/{id}: 認証する with the passcode, or 認証を中止. The right
// passcode authorises; a wrong one three times, or 中止, fails the challenge (G001);
// either way the buyer goes back to the app.
func (s *Server) challengeSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.crossSitePage(w)
		return
	}
	if err := r.ParseForm(); err != nil {
		s.notFoundPage(w)
		return
	}
	action, typed := r.PostForm.Get("action"), pay.NormalizeCode(r.PostForm.Get("passcode"))
	var a authRow
	var errMsg string
	err := s.inTx(r.Context(), func(tx *sqlx.Tx) error {
		var err error
		if a, err = s.challengeFor(r.Context(), tx, r.PathValue("id"), true); err != nil {
			return err
		}
		if a, err = s.expireChallenge(r.Context(), tx, a); err != nil || a.Status != string(gateway.StatusRequiresAction) {
			return err
		}
		switch {
		case action == "cancel":
			return s.failChallenge(r.Context(), tx, &a)
		case typed == "":
			errMsg = "ワンタイムパスワードを入力してください。"
			return nil
		case Scenario(a.Card.Scenario) == ScenarioChallengeFails:
			// The issuer refuses this card's authentication, whatever is typed.
			a.ChallengeAttempts++
			return s.failChallenge(r.Context(), tx, &a)
		case subtle.ConstantTimeCompare([]byte(typed), []byte(a.Passcode.String)) == 1:
			a.Status, a.ResultCode, a.UpdatedAt = string(gateway.StatusAuthorized), string(gateway.ResultApproved), s.now()
			if !a.VerifyOnly {
				a.LapsesAt.Time, a.LapsesAt.Valid = s.now().Add(s.cfg.AuthorizationTTL), true
			}
			if _, err := tx.NamedExecContext(r.Context(), `
				UPDATE sandbox_authorizations SET status = :status, result_code = :result_code, lapses_at = :lapses_at, updated_at = :updated_at
				WHERE id = :id`, a); err != nil {
				return err
			}
			s.log.Info("challenge passed", "payment_id", a.PaymentID, "card", a.logCard())
			return s.addEvent(r.Context(), tx, gateway.EventAuthorized, s.txJSON(a))
		}
		a.ChallengeAttempts++
		if a.ChallengeAttempts >= maxChallengeAttempts {
			return s.failChallenge(r.Context(), tx, &a)
		}
		errMsg = "ワンタイムパスワードが正しくありません。あと" + strconv.Itoa(maxChallengeAttempts-a.ChallengeAttempts) + "回入力できます。"
		_, err = tx.ExecContext(r.Context(), `UPDATE sandbox_authorizations SET challenge_attempts = $2, updated_at = $3 WHERE id = $1`, a.ID, a.ChallengeAttempts, s.now())
		return err
	})
	switch {
	case isNoRows(err):
		s.notFoundPage(w)
	case err != nil:
		s.log.Error("challenge", "error", err)
		s.message(w, http.StatusInternalServerError, "エラーが発生しました", "時間をおいて、もう一度お試しください。", "", "")
	case errMsg != "":
		s.render(w, http.StatusUnprocessableEntity, "challenge", s.challengeData(a, errMsg))
	case s.returnTo(a) == "":
		s.challengeOver(w, a)
	default:
		http.Redirect(w, r, s.returnTo(a), http.StatusSeeOther)
	}
}
