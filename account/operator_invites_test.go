package account_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/store"
)

var opN int

func admin(t *testing.T, s *account.Service) store.Operator {
	t.Helper()
	opN++
	c, err := s.CreateOperator(context.Background(), account.NewOperatorInput{
		EmailAddress: fmt.Sprintf("admin-%d-%d@ops.test.example", opN, time.Now().UnixNano()%1e9), Name: "管理者",
		Password: "admin password 2026", Roles: []string{pay.RoleAdmin}})
	require.NoError(t, err)
	return c.Operator
}

func refusedWith(t *testing.T, err error) string {
	t.Helper()
	r, ok := account.AsRefusal(err)
	require.True(t, ok, "a refusal: %v", err)
	return r.Message
}

var tokenInLink = regexp.MustCompile(`/ops/invite/([A-Za-z0-9_-]{43})`)

func TestAProposalIsDecidedOnceByAnotherAdministrator(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	a, b, c := admin(t, s), admin(t, s), admin(t, s)
	email := fmt.Sprintf("decided-%s@ops.test.example", strconv.FormatInt(time.Now().UnixNano(), 36))

	_, err := s.ProposeInvite(ctx, a, account.InviteInput{EmailAddress: email, Name: "", Roles: []string{"nobody"}})
	var errs pay.FieldErrors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, "氏名を50文字以内で入力してください", errs.For("name"))
	assert.Equal(t, "権限を選び直してください", errs.For("roles"))

	p, err := s.ProposeInvite(ctx, a, account.InviteInput{EmailAddress: email, Name: "新人", Roles: []string{pay.RoleScreening}})
	require.NoError(t, err)
	_, err = s.DecideProposal(ctx, a, p.ID, true)
	assert.Equal(t, account.MsgOwnProposal, refusedWith(t, err))
	_, err = s.DecideProposal(ctx, b, p.ID, false)
	require.NoError(t, err)
	// Approved after its rejection, or rejected again: nothing changes.
	_, err = s.DecideProposal(ctx, c, p.ID, true)
	assert.Equal(t, account.MsgProposalDecided, refusedWith(t, err))
	_, err = s.DecideProposal(ctx, b, p.ID, false)
	assert.Equal(t, account.MsgProposalDecided, refusedWith(t, err))
	_, err = s.DecideProposal(ctx, b, 1<<40, true)
	assert.Equal(t, account.MsgProposalDecided, refusedWith(t, err))
	got, err := db.Store.Proposal(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, store.ProposalRejected, got.Status)
	assert.Equal(t, b.ID, *got.DecidedBy)

	// The database itself refuses a proposal decided by its proposer.
	p2, err := s.ProposeInvite(ctx, a, account.InviteInput{EmailAddress: "x" + email, Name: "新人", Roles: []string{pay.RoleScreening}})
	require.NoError(t, err)
	_, err = db.Store.DB.Exec(`UPDATE operator_proposals SET status = 'approved', decided_by = proposed_by, decided_at = now() WHERE id = $1`, p2.ID)
	require.Error(t, err)
}

func TestAnInvitationLinkIsSingleUseAndExpires(t *testing.T) {
	s, mails := newService(t)
	ctx := context.Background()
	now := time.Now()
	s.Now = func() time.Time { return now }
	a, b := admin(t, s), admin(t, s)
	email := fmt.Sprintf("link-%s@ops.test.example", strconv.FormatInt(time.Now().UnixNano(), 36))
	p, err := s.ProposeInvite(ctx, a, account.InviteInput{EmailAddress: email, Name: "新人", Roles: []string{pay.RoleTransfers}})
	require.NoError(t, err)
	_, err = s.DecideProposal(ctx, b, p.ID, true)
	require.NoError(t, err)
	m := mails.WaitFor(t, email, 10*time.Second)
	token := tokenInLink.FindStringSubmatch(m.Text)
	require.NotNil(t, token, m.Text)

	// Only the token's hash is stored.
	var stored int
	require.NoError(t, db.Store.DB.Get(&stored, `SELECT count(*) FROM operator_invites WHERE token_hash = $1`, token[1]))
	assert.Zero(t, stored)

	opened, err := s.OpenInvite(ctx, token[1])
	require.NoError(t, err)
	code, err := totp.GenerateCode(opened.TOTPSecret, now)
	require.NoError(t, err)
	_, err = s.AcceptInvite(ctx, token[1], "password", code)
	require.ErrorAs(t, err, new(pay.FieldErrors))
	_, err = s.AcceptInvite(ctx, token[1], "a good password 2026", "000000")
	var errs pay.FieldErrors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, account.MsgInviteCode, errs.For("code"))

	o, err := s.AcceptInvite(ctx, token[1], "a good password 2026", code)
	require.NoError(t, err)
	assert.Equal(t, []string{pay.RoleTransfers}, []string(o.Roles))
	_, err = s.AcceptInvite(ctx, token[1], "a good password 2026", code)
	assert.Equal(t, account.MsgInviteInvalid, refusedWith(t, err), "used once")
	// The enrolment's code does not sign in again; the next one does.
	_, err = s.SignInOperator(ctx, email, "a good password 2026", code)
	require.Error(t, err)
	next, err := totp.GenerateCode(opened.TOTPSecret, now.Add(30*time.Second))
	require.NoError(t, err)
	_, err = s.SignInOperator(ctx, email, "a good password 2026", next)
	require.NoError(t, err)

	// Another invitation, opened after its 72 hours.
	email2 := "late-" + email
	p, err = s.ProposeInvite(ctx, a, account.InviteInput{EmailAddress: email2, Name: "遅刻", Roles: []string{pay.RoleTransfers}})
	require.NoError(t, err)
	_, err = s.DecideProposal(ctx, b, p.ID, true)
	require.NoError(t, err)
	token = tokenInLink.FindStringSubmatch(mails.WaitFor(t, email2, 10*time.Second).Text)
	require.NotNil(t, token)
	now = now.Add(account.OperatorInviteTTL + time.Second)
	_, err = s.OpenInvite(ctx, token[1])
	assert.Equal(t, account.MsgInviteInvalid, refusedWith(t, err))
}
