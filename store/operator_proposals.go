package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"cardpay/pay"
)

// A change that gives an operator power is proposed by one administrator and approved
// (or rejected) by another (migrations/00015_operator_invites.sql). Each step writes its
// audit row in the transaction of the change, and each is a conditional UPDATE: a
// proposal decided twice, or approved after its rejection, changes nothing.

// Kinds of proposal.
const (
	ProposeInvite = "invite"
	ProposeGrant  = "grant"
	ProposeRevoke = "revoke"
	ProposeEnable = "enable"
)

// Statuses of a proposal.
const (
	ProposalPending  = "pending"
	ProposalApproved = "approved"
	ProposalRejected = "rejected"
)

// AuditProposal is the object of the audit rows of proposals (propose, approve, reject).
const AuditProposal = "operator_proposal"

var (
	// ErrOwnProposal: an administrator tried to decide their own proposal.
	ErrOwnProposal = errors.New("store: an operator cannot decide their own proposal")
	// ErrProposalDecided: the proposal was decided already (or does not exist).
	ErrProposalDecided = errors.New("store: the proposal was decided already")
	// ErrProposalPending: the same change is already waiting for a decision.
	ErrProposalPending = errors.New("store: the same proposal is pending")
	// ErrOperatorUnchanged: the change was made meanwhile (the role given, the operator
	// enabled): approving it again would change nothing.
	ErrOperatorUnchanged = errors.New("store: the operator is already as proposed")
)

// Proposal is one proposed change, with the names of the people in it.
type Proposal struct {
	ID           int64          `db:"id"`
	Kind         string         `db:"kind"`
	OperatorID   *int64         `db:"operator_id"`
	OperatorName *string        `db:"operator_name"`
	EmailAddress string         `db:"email_address"`
	Name         string         `db:"name"`
	Roles        pq.StringArray `db:"roles"`
	ProposedBy   int64          `db:"proposed_by"`
	ProposerName string         `db:"proposer_name"`
	ProposedAt   time.Time      `db:"proposed_at"`
	Status       string         `db:"status"`
	DecidedBy    *int64         `db:"decided_by"`
	DecidedAt    *time.Time     `db:"decided_at"`
}

const proposalSelect = `SELECT p.id, p.kind, p.operator_id, t.name AS operator_name, p.email_address, p.name, p.roles,
	p.proposed_by, b.name AS proposer_name, p.proposed_at, p.status, p.decided_by, p.decided_at
	FROM operator_proposals p JOIN operators b ON b.id = p.proposed_by LEFT JOIN operators t ON t.id = p.operator_id`

// NewProposal is a change to propose: Email, Name and Roles for an invitation, the
// operator and one role for a grant or a revocation, the operator for an enabling.
type NewProposal struct {
	Kind         string
	OperatorID   int64
	EmailAddress string
	Name         string
	Roles        []string
	ProposedBy   int64
}

// ProposeOperatorChange records a proposal and its audit row. ErrOperatorExists when an
// invitation's address already signs in; ErrProposalPending when the same change waits.
func (s *Store) ProposeOperatorChange(ctx context.Context, n NewProposal, now time.Time) (Proposal, error) {
	var p Proposal
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var target *int64
		if n.Kind == ProposeInvite {
			var taken bool
			if err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM operators WHERE lower(email_address) = lower($1))`,
				strings.TrimSpace(n.EmailAddress)); err != nil {
				return fmt.Errorf("store: operator address taken: %w", err)
			}
			if taken {
				return ErrOperatorExists
			}
		} else {
			target = &n.OperatorID
			var pending bool
			if err := tx.GetContext(ctx, &pending, `SELECT EXISTS (SELECT 1 FROM operator_proposals
				WHERE status = 'pending' AND kind = $1 AND operator_id = $2 AND roles = $3)`,
				n.Kind, n.OperatorID, pq.StringArray(nonNil(n.Roles))); err != nil {
				return fmt.Errorf("store: pending proposal: %w", err)
			}
			if pending {
				return ErrProposalPending
			}
		}
		var id int64
		err := tx.GetContext(ctx, &id, `INSERT INTO operator_proposals (kind, operator_id, email_address, name, roles, proposed_by, proposed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			n.Kind, target, strings.TrimSpace(n.EmailAddress), n.Name, pq.StringArray(nonNil(n.Roles)), n.ProposedBy, now)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return ErrProposalPending
		}
		if err != nil {
			return fmt.Errorf("store: propose %s: %w", n.Kind, err)
		}
		if err := s.AddAudit(ctx, tx, NewAudit{OperatorID: n.ProposedBy, ObjectType: AuditProposal, ObjectID: id,
			Action: "propose_" + n.Kind, After: proposalFacts(n.Kind, target, n.EmailAddress, n.Roles)}, now); err != nil {
			return err
		}
		p, err = getOne[Proposal](ctx, tx, fmt.Sprintf("proposal %d", id), proposalSelect+` WHERE p.id = $1`, id)
		return err
	})
	return p, err
}

func nonNil(roles []string) []string {
	if roles == nil {
		return []string{}
	}
	return roles
}

// proposalFacts is what the audit rows of a proposal say it is about.
func proposalFacts(kind string, operatorID *int64, email string, roles []string) map[string]any {
	f := map[string]any{"kind": kind, "roles": roles}
	if operatorID != nil {
		f["operator_id"] = *operatorID
	} else {
		f["email_address"] = email
	}
	return f
}

// Proposal reads one proposal.
func (s *Store) Proposal(ctx context.Context, id int64) (Proposal, error) {
	return getOne[Proposal](ctx, s.DB, fmt.Sprintf("proposal %d", id), proposalSelect+` WHERE p.id = $1`, id)
}

// PendingProposals lists the proposals waiting for a second administrator, oldest first.
func (s *Store) PendingProposals(ctx context.Context) ([]Proposal, error) {
	var list []Proposal
	if err := s.DB.SelectContext(ctx, &list, proposalSelect+` WHERE p.status = 'pending' ORDER BY p.proposed_at, p.id`); err != nil {
		return nil, fmt.Errorf("store: pending proposals: %w", err)
	}
	return list, nil
}

// NewInvite is the invitation an approved invite proposal makes: the hash of the
// link's token, the invitee's sealed authenticator secret, and the mail's job.
type NewInvite struct {
	TokenHash        string
	TOTPSecretSealed string
	ExpiresAt        time.Time
	Mail             NewJob
}

// DecideProposal approves or rejects proposal id as operator by, with its audit row, in
// one transaction; an approval makes the change (an invitation with its mail, a role,
// the enabling). ErrOwnProposal when by proposed it, ErrProposalDecided when it was
// decided already, ErrOperatorUnchanged when its change was made meanwhile: none of them
// changes anything.
func (s *Store) DecideProposal(ctx context.Context, id, by int64, approve bool, invite *NewInvite, now time.Time) (Proposal, error) {
	status := ProposalRejected
	if approve {
		status = ProposalApproved
	}
	var p Proposal
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var proposer int64
		err := tx.GetContext(ctx, &proposer, `UPDATE operator_proposals SET status = $3, decided_by = $2, decided_at = $4
			WHERE id = $1 AND status = 'pending' AND proposed_by <> $2 RETURNING proposed_by`, id, by, status, now)
		if notFound(err) {
			var own bool
			if err := tx.GetContext(ctx, &own, `SELECT EXISTS (SELECT 1 FROM operator_proposals
				WHERE id = $1 AND status = 'pending' AND proposed_by = $2)`, id, by); err != nil {
				return fmt.Errorf("store: proposal %d: %w", id, err)
			}
			if own {
				return ErrOwnProposal
			}
			return ErrProposalDecided
		}
		if err != nil {
			return fmt.Errorf("store: decide proposal %d: %w", id, err)
		}
		p, err = getOne[Proposal](ctx, tx, fmt.Sprintf("proposal %d", id), proposalSelect+` WHERE p.id = $1`, id)
		if err != nil {
			return err
		}
		if approve {
			if err := s.applyProposal(ctx, tx, p, by, invite, now); err != nil {
				return err
			}
		}
		action := "reject"
		if approve {
			action = "approve"
		}
		return s.AddAudit(ctx, tx, NewAudit{OperatorID: by, ObjectType: AuditProposal, ObjectID: id, Action: action,
			Before: map[string]any{"status": ProposalPending, "proposed_by": proposer},
			After:  mergeFacts(proposalFacts(p.Kind, p.OperatorID, p.EmailAddress, p.Roles), "status", status)}, now)
	})
	return p, err
}

func mergeFacts(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

// applyProposal makes an approved proposal's change in tx, conditionally.
func (s *Store) applyProposal(ctx context.Context, tx *sqlx.Tx, p Proposal, by int64, invite *NewInvite, now time.Time) error {
	var q string
	var args []any
	switch p.Kind {
	case ProposeInvite:
		if invite == nil {
			return fmt.Errorf("store: approve invitation %d: no invitation", p.ID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO operator_invites (proposal_id, token_hash, totp_secret_sealed, expires_at)
			VALUES ($1, $2, $3, $4)`, p.ID, invite.TokenHash, invite.TOTPSecretSealed, invite.ExpiresAt); err != nil {
			return fmt.Errorf("store: invitation of proposal %d: %w", p.ID, err)
		}
		_, err := enqueueJob(ctx, tx, invite.Mail)
		return err
	case ProposeGrant:
		q = `UPDATE operators SET roles = array_append(roles, $2) WHERE id = $1 AND NOT ($2 = ANY (roles))`
		args = []any{*p.OperatorID, p.Roles[0]}
	case ProposeRevoke:
		// The last role stays: an operator without one is a disabled operator.
		q = `UPDATE operators SET roles = array_remove(roles, $2) WHERE id = $1 AND $2 = ANY (roles) AND cardinality(roles) > 1`
		args = []any{*p.OperatorID, p.Roles[0]}
	case ProposeEnable:
		q = `UPDATE operators SET disabled_at = NULL, failed_sign_ins = 0, last_failed_at = NULL, locked_until = NULL
			WHERE id = $1 AND disabled_at IS NOT NULL`
		args = []any{*p.OperatorID}
	default:
		return fmt.Errorf("store: proposal %d: unknown kind %q", p.ID, p.Kind)
	}
	if err := execOneOn(ctx, tx, "apply proposal", q, args...); errors.Is(err, ErrNotFound) {
		return ErrOperatorUnchanged
	} else if err != nil {
		return err
	}
	return s.AddAudit(ctx, tx, NewAudit{OperatorID: by, ObjectType: AuditOperator, ObjectID: *p.OperatorID, Action: p.Kind,
		After: map[string]any{"roles": p.Roles, "proposal_id": p.ID}}, now)
}

// DisableOperator stops operator id from signing in (their session ends at its next
// request), with the audit row of by. One administrator is enough: it only takes power
// away. Nobody disables themselves (the last administrator would lock everyone out).
// ErrNotFound when the operator is disabled already, unknown, or by.
func (s *Store) DisableOperator(ctx context.Context, id, by int64, now time.Time) error {
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := execOneOn(ctx, tx, fmt.Sprintf("disable operator %d", id),
			`UPDATE operators SET disabled_at = $3 WHERE id = $1 AND id <> $2 AND disabled_at IS NULL`, id, by, now); err != nil {
			return err
		}
		return s.AddAudit(ctx, tx, NewAudit{OperatorID: by, ObjectType: AuditOperator, ObjectID: id, Action: "disable",
			After: map[string]any{"disabled_at": now}}, now)
	})
}

// OperatorByID reads any operator, disabled or not (the administrator's page).
func (s *Store) OperatorByID(ctx context.Context, id int64) (Operator, error) {
	return getOne[Operator](ctx, s.DB, fmt.Sprintf("operator %d", id), `SELECT `+operatorColumns+` FROM operators WHERE id = $1`, id)
}

// Invite is an invitation whose link may still be used, with what it gives.
type Invite struct {
	ID               int64          `db:"id"`
	ProposalID       int64          `db:"proposal_id"`
	EmailAddress     string         `db:"email_address"`
	Name             string         `db:"name"`
	Roles            pq.StringArray `db:"roles"`
	TOTPSecretSealed string         `db:"totp_secret_sealed"`
	ExpiresAt        time.Time      `db:"expires_at"`
}

// OpenInvite finds the unused, unexpired invitation of a token's hash; ErrNotFound
// otherwise.
func (s *Store) OpenInvite(ctx context.Context, tokenHash string, now time.Time) (Invite, error) {
	return getOne[Invite](ctx, s.DB, "invitation", `SELECT i.id, i.proposal_id, p.email_address, p.name, p.roles,
		i.totp_secret_sealed, i.expires_at
		FROM operator_invites i JOIN operator_proposals p ON p.id = i.proposal_id
		WHERE i.token_hash = $1 AND i.used_at IS NULL AND i.expires_at > $2 AND p.status = 'approved'`, tokenHash, now)
}

// AcceptInvite creates the invited operator with their own password hash and the
// authenticator step they confirmed with (so that code cannot sign in again), and uses
// the invitation up, in one transaction with the audit row. ErrNotFound when the link
// was used or expired meanwhile; ErrOperatorExists when the address signs in already.
func (s *Store) AcceptInvite(ctx context.Context, inv Invite, passwordHash string, step int64, now time.Time) (Operator, error) {
	var o Operator
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		o, err = getOne[Operator](ctx, tx, "invited operator", `INSERT INTO operators
			(email_address, name, password_hash, totp_secret_sealed, totp_last_step, roles, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+operatorColumns,
			inv.EmailAddress, inv.Name, passwordHash, inv.TOTPSecretSealed, step, inv.Roles, now)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return ErrOperatorExists
		}
		if err != nil {
			return err
		}
		if err := execOneOn(ctx, tx, fmt.Sprintf("use invitation %d", inv.ID), `UPDATE operator_invites SET used_at = $2, operator_id = $3
			WHERE id = $1 AND used_at IS NULL AND expires_at > $2`, inv.ID, now, o.ID); err != nil {
			return err
		}
		return s.AddAudit(ctx, tx, NewAudit{OperatorID: o.ID, ObjectType: AuditOperator, ObjectID: o.ID, Action: "enrol",
			After: map[string]any{"proposal_id": inv.ProposalID, "roles": inv.Roles}}, now)
	})
	return o, err
}

// Invitations are the invitations between operators a and b (either way): who proposed
// or approved whose invitation, and when the invitee enrolled, read on q (the
// screening's transaction).
func (s *Store) Invitations(ctx context.Context, q sqlx.QueryerContext, a, b int64) ([]pay.Invitation, error) {
	var list []pay.Invitation
	err := sqlx.SelectContext(ctx, q, &list, `SELECT x.inviter, i.operator_id AS invitee, o.created_at AS at
		FROM operator_invites i JOIN operator_proposals p ON p.id = i.proposal_id JOIN operators o ON o.id = i.operator_id
		CROSS JOIN LATERAL (VALUES (p.proposed_by), (p.decided_by)) AS x (inviter)
		WHERE i.operator_id IN ($1, $2) AND x.inviter IN ($1, $2) AND x.inviter <> i.operator_id`, a, b)
	if err != nil {
		return nil, fmt.Errorf("store: invitations of operators %d and %d: %w", a, b, err)
	}
	return list, nil
}
