package account

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// Operators are invited, never created by one administrator: an administrator proposes
// the invitation (address, name, roles), a different administrator approves it, and
// only then is the invitation mailed. Its single-use link (only the token's hash is
// stored) opens a page where the invitee sets their own password and enrols their own
// authenticator; nobody else ever sees either. Granting or removing a role and
// re-enabling a disabled operator are proposals too (store.DecideProposal).

// OperatorInviteTTL is how long an invitation's link works.
const OperatorInviteTTL = 72 * time.Hour

// InvitePath is the console page of an invitation's link (+ "/" + token).
const InvitePath = "/ops/invite"

// Refusals of the proposals, shown next to the button or the field.
const (
	MsgOwnProposal       = "ご自身の提案は承認・却下できません。別の管理者が判断します（二人による承認）"
	MsgProposalDecided   = "この提案はすでに承認または却下されています。画面を読み込み直してください"
	MsgProposalPending   = "同じ提案がすでに承認を待っています"
	MsgOperatorUnchanged = "担当者の状態がすでに提案のとおりに変わっているため、承認できません。この提案は却下してください"
	MsgInviteInvalid     = "この招待のリンクは使えません。使用済みか、有効期限が切れています。管理者に招待をやり直すよう依頼してください"
	MsgInviteCode        = "確認コードが正しくありません。認証アプリに表示されている6桁を入力してください"
)

// InviteInput is the invitation an administrator proposes.
type InviteInput struct {
	EmailAddress string
	Name         string
	Roles        []string
}

// ProposeInvite records by's proposal to invite an operator. Field errors for bad input,
// an address that signs in already, or a pending invitation of the same address.
func (s *Service) ProposeInvite(ctx context.Context, by store.Operator, in InviteInput) (store.Proposal, error) {
	in.EmailAddress, in.Name = strings.TrimSpace(in.EmailAddress), strings.TrimSpace(in.Name)
	if errs := checkOperatorFields(in.EmailAddress, in.Name, in.Roles); len(errs) > 0 {
		return store.Proposal{}, errs
	}
	p, err := s.Store.ProposeOperatorChange(ctx, store.NewProposal{Kind: store.ProposeInvite, EmailAddress: in.EmailAddress,
		Name: in.Name, Roles: in.Roles, ProposedBy: by.ID}, s.now())
	switch {
	case errors.Is(err, store.ErrOperatorExists):
		return store.Proposal{}, pay.FieldErrors{{Field: "email_address", Message: MsgOperatorExists}}
	case errors.Is(err, store.ErrProposalPending):
		return store.Proposal{}, pay.FieldErrors{{Field: "email_address", Message: "このメールアドレスの招待がすでに承認を待っています"}}
	}
	return p, err
}

// ProposeChange records by's proposal to grant or revoke role (kind store.ProposeGrant,
// store.ProposeRevoke) of operator id, or to enable them again (store.ProposeEnable,
// role ""). A refusal is a Refusal on field "change".
func (s *Service) ProposeChange(ctx context.Context, by store.Operator, kind string, id int64, role string) (store.Proposal, error) {
	o, err := s.Store.OperatorByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Proposal{}, &Refusal{Field: "change", Message: "その担当者は見つかりません"}
	}
	if err != nil {
		return store.Proposal{}, err
	}
	var roles []string
	switch kind {
	case store.ProposeGrant, store.ProposeRevoke:
		if pay.RoleLabel(role) == "不明" {
			return store.Proposal{}, &Refusal{Field: "change", Message: "権限を選んでください"}
		}
		if o.Has(role) == (kind == store.ProposeGrant) {
			return store.Proposal{}, &Refusal{Field: "change", Message: "その担当者の権限はすでにそのとおりです"}
		}
		if kind == store.ProposeRevoke && len(o.Roles) == 1 {
			return store.Proposal{}, &Refusal{Field: "change", Message: "最後の権限は外せません。担当者を停止してください"}
		}
		roles = []string{role}
	case store.ProposeEnable:
		if o.DisabledAt == nil {
			return store.Proposal{}, &Refusal{Field: "change", Message: "その担当者は停止されていません"}
		}
	default:
		return store.Proposal{}, &Refusal{Field: "change", Message: "操作を選び直してください"}
	}
	p, err := s.Store.ProposeOperatorChange(ctx, store.NewProposal{Kind: kind, OperatorID: id, Roles: roles, ProposedBy: by.ID}, s.now())
	if errors.Is(err, store.ErrProposalPending) {
		return store.Proposal{}, &Refusal{Field: "change", Message: MsgProposalPending}
	}
	return p, err
}

// DecideProposal approves or rejects proposal id as by, who must not be its proposer.
// Approving an invitation mails its link (queued in the same transaction). A refusal is
// a Refusal on field "proposal".
func (s *Service) DecideProposal(ctx context.Context, by store.Operator, id int64, approve bool) (store.Proposal, error) {
	p, err := s.Store.Proposal(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Proposal{}, &Refusal{Field: "proposal", Message: MsgProposalDecided}
	}
	if err != nil {
		return store.Proposal{}, err
	}
	var invite *store.NewInvite
	if approve && p.Kind == store.ProposeInvite {
		if invite, err = s.newInvite(p); err != nil {
			return store.Proposal{}, err
		}
	}
	p, err = s.Store.DecideProposal(ctx, id, by.ID, approve, invite, s.now())
	switch {
	case errors.Is(err, store.ErrOwnProposal):
		return store.Proposal{}, &Refusal{Field: "proposal", Message: MsgOwnProposal}
	case errors.Is(err, store.ErrProposalDecided):
		return store.Proposal{}, &Refusal{Field: "proposal", Message: MsgProposalDecided}
	case errors.Is(err, store.ErrOperatorUnchanged):
		return store.Proposal{}, &Refusal{Field: "proposal", Message: MsgOperatorUnchanged}
	}
	return p, err
}

// newInvite makes an approved invitation: its link's token (mailed, never stored), the
// invitee's authenticator secret (sealed, shown only on the link's page) and the mail.
func (s *Service) newInvite(p store.Proposal) (*store.NewInvite, error) {
	token, hash, err := auth.NewToken()
	if err != nil {
		return nil, err
	}
	key, err := auth.NewTOTP(s.ServiceName+" 運用", p.EmailAddress)
	if err != nil {
		return nil, err
	}
	sealed, err := s.Sealer.Seal(key.Secret)
	if err != nil {
		return nil, err
	}
	until := s.now().Add(OperatorInviteTTL)
	job, err := s.notice(mail.OperatorInvite(p.EmailAddress, s.ServiceName, p.Name,
		strings.TrimRight(s.BaseURL, "/")+InvitePath+"/"+token, until))
	if err != nil {
		return nil, err
	}
	return &store.NewInvite{TokenHash: hash, TOTPSecretSealed: sealed, ExpiresAt: until, Mail: job}, nil
}

// OpenedInvite is an invitation as its link's page shows it to the invitee: the
// authenticator's secret and otpauth URI are theirs to enrol.
type OpenedInvite struct {
	Invite     store.Invite
	TOTPSecret string
	TOTPURL    string
}

// OpenInvite reads the invitation of a link's token; a Refusal on field "token" when the
// link is unknown, used or expired.
func (s *Service) OpenInvite(ctx context.Context, token string) (OpenedInvite, error) {
	inv, err := s.Store.OpenInvite(ctx, auth.HashToken(token), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return OpenedInvite{}, &Refusal{Field: "token", Message: MsgInviteInvalid}
	}
	if err != nil {
		return OpenedInvite{}, err
	}
	secret, err := s.Sealer.Open(inv.TOTPSecretSealed)
	if err != nil {
		return OpenedInvite{}, fmt.Errorf("account: open TOTP secret of invitation %d: %w", inv.ID, err)
	}
	return OpenedInvite{Invite: inv, TOTPSecret: secret, TOTPURL: totpURL(s.ServiceName+" 運用", inv.EmailAddress, secret)}, nil
}

// AcceptInvite makes the invited operator with the password they chose (the buyers'
// rules, ValidatePassword) once their authenticator's code proves it is enrolled.
// Field errors for a bad password or code; a Refusal on "token" for a dead link.
func (s *Service) AcceptInvite(ctx context.Context, token, password, code string) (store.Operator, error) {
	if err := s.LimitCaller(ctx, ActSignIn, "ops-invite:"+auth.HashToken(token)); err != nil {
		return store.Operator{}, err
	}
	opened, err := s.OpenInvite(ctx, token)
	if err != nil {
		return store.Operator{}, err
	}
	var errs pay.FieldErrors
	if msg := ValidatePassword(password, opened.Invite.EmailAddress); msg != "" {
		errs.Add("password", msg)
	}
	ok, step := auth.ValidateTOTP(opened.TOTPSecret, strings.TrimSpace(code), s.now(), 0)
	if !ok {
		errs.Add("code", MsgInviteCode)
	}
	if len(errs) > 0 {
		return store.Operator{}, errs
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return store.Operator{}, err
	}
	o, err := s.Store.AcceptInvite(ctx, opened.Invite, hash, step, s.now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Operator{}, &Refusal{Field: "token", Message: MsgInviteInvalid}
	case errors.Is(err, store.ErrOperatorExists):
		return store.Operator{}, &Refusal{Field: "token", Message: MsgOperatorExists}
	}
	return o, err
}
