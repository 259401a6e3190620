package ops_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

var (
	inviteLink  = regexp.MustCompile(`/ops/invite/([A-Za-z0-9_-]{43})`)
	shownSecret = regexp.MustCompile(`認証アプリの設定キー</dt>\s*<dd class="summary-list__value">([A-Z2-7]+)</dd>`)
	approveForm = regexp.MustCompile(`/ops/operators/proposals/(\d+)/approve`)
)

const invitedPassword = "invited password 2026"

// proposeInvite has admin's client propose an invitation and returns the proposal's id.
func proposeInvite(t *testing.T, admin *webtest.Client, email string, roles ...string) int64 {
	t.Helper()
	res := admin.Post("/ops/operators", url.Values{"email_address": {email}, "name": {"新人 担当"}, "roles": roles})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	list, err := webtest.Store().PendingProposals(context.Background())
	require.NoError(t, err)
	for _, p := range list {
		if p.EmailAddress == email {
			return p.ID
		}
	}
	t.Fatalf("no pending invitation of %s", email)
	return 0
}

// linkTo is the link of the invitation mailed to email.
func linkTo(t *testing.T, env *webtest.Env, email string) string {
	t.Helper()
	m := env.Mail.WaitFor(t, email, 10*time.Second)
	link := inviteLink.FindString(m.Text)
	require.NotEmpty(t, link, m.Text)
	return link
}

// enrol opens an invitation's link, sets the password and confirms the authenticator;
// it returns the new operator and their authenticator secret.
func enrol(t *testing.T, env *webtest.Env, email, link string) (store.Operator, string) {
	t.Helper()
	c := env.Client(t)
	page := c.Get(link)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Equal(t, "no-store", page.Header.Get("Cache-Control"))
	secret := shownSecret.FindStringSubmatch(page.Body)
	require.NotNil(t, secret, "the invitee sees their own secret")
	code, err := totp.GenerateCode(secret[1], time.Now())
	require.NoError(t, err)
	res := c.Post(link, url.Values{"password": {invitedPassword}, "password_confirmation": {invitedPassword}, "code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	o, err := webtest.Store().OperatorByEmail(context.Background(), email)
	require.NoError(t, err)
	return o, secret[1]
}

// signInInvited signs an enrolled operator in with the next authenticator code (the one
// of the enrolment is used).
func signInInvited(t *testing.T, env *webtest.Env, email, secret string) *webtest.Client {
	t.Helper()
	code, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	c := env.Client(t)
	res := c.Post("/ops/signin", url.Values{"email_address": {email}, "password": {invitedPassword}, "code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	return c
}

// mailsTo counts the mails sent to address so far.
func mailsTo(env *webtest.Env, address string) int {
	n := 0
	for _, m := range env.Mail.Messages() {
		if m.To == address {
			n++
		}
	}
	return n
}

func inviteEmail(prefix string) string {
	return prefix + "-" + strconv.FormatInt(opSeq.Add(1), 10) + "-" + time.Now().Format("150405.000000") + "@ops.test.example"
}

func TestAnInvitationTakesTwoAdministratorsAndTheInviteeSetsTheirOwnCredentials(t *testing.T) {
	env := webtest.New(t)
	adminA, adminB := newOperator(t, env, pay.RoleAdmin), newOperator(t, env, pay.RoleAdmin)
	a, b := signIn(t, env, adminA), signIn(t, env, adminB)
	ctx := context.Background()

	res := a.Post("/ops/operators", url.Values{"email_address": {"not an address"}, "name": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "email_address", "メールアドレスを正しく入力してください")
	webtest.AssertFieldError(t, res, "roles", "権限を1つ以上選んでください")
	res = a.Post("/ops/operators", url.Values{"email_address": {adminB.EmailAddress}, "name": {"二人目"}, "roles": {"screening"}})
	webtest.AssertFieldError(t, res, "email_address", account.MsgOperatorExists)

	email := inviteEmail("invited")
	id := proposeInvite(t, a, email, "screening", "transfers")
	again := a.Post("/ops/operators", url.Values{"email_address": {email}, "name": {"二度目"}, "roles": {"screening"}})
	webtest.AssertFieldError(t, again, "email_address", "このメールアドレスの招待がすでに承認を待っています")

	// The proposer sees the proposal without buttons, and cannot decide it by posting.
	page := a.Get("/ops/operators")
	assert.Contains(t, page.Body, "招待："+"新人 担当（"+email+"）権限：審査・振込")
	assert.NotContains(t, page.Body, "/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/approve")
	for _, action := range []string{"approve", "reject"} {
		res = a.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/"+action, nil)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
		webtest.AssertFieldError(t, res, "proposal", account.MsgOwnProposal)
	}
	env.Settle(t)
	assert.Zero(t, mailsTo(env, email), "no mail before a second administrator approves")
	_, err := webtest.Store().OperatorByEmail(ctx, email)
	require.ErrorIs(t, err, store.ErrNotFound, "no operator yet")

	// The second administrator approves: the mail goes.
	require.Contains(t, b.Get("/ops/operators").Body, "/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/approve")
	res = b.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/approve", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	// Decided once: a second approval or a rejection afterwards changes nothing.
	for _, action := range []string{"approve", "reject"} {
		res = b.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/"+action, nil)
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
		webtest.AssertFieldError(t, res, "proposal", account.MsgProposalDecided)
	}
	p, err := webtest.Store().Proposal(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, store.ProposalApproved, p.Status)

	// The link's page: a wrong code and a weak password are refused next to their fields.
	m := env.Mail.WaitFor(t, email, 10*time.Second)
	assert.Equal(t, "【請求書カード払い】運用コンソールへの招待", m.Subject)
	link := inviteLink.FindString(m.Text)
	require.NotEmpty(t, link)
	c := env.Client(t)
	res = c.Post(link, url.Values{"password": {"short"}, "password_confirmation": {"short"}, "code": {"000000"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "code", account.MsgInviteCode)
	assert.Contains(t, res.Body, `id="password-error"`)

	o, secret := enrol(t, env, email, link)
	assert.ElementsMatch(t, []string{pay.RoleScreening, pay.RoleTransfers}, []string(o.Roles))
	// The link is used up.
	dead := env.Client(t).Get(link)
	assert.Equal(t, http.StatusNotFound, dead.StatusCode)
	assert.Contains(t, dead.Body, account.MsgInviteInvalid)
	assert.NotRegexp(t, shownSecret, dead.Body)
	assert.Contains(t, env.Client(t).Get("/ops/invite/"+"x").Body, account.MsgInviteInvalid)

	// No administrator's page holds the secret or the password.
	for _, admin := range []*webtest.Client{a, b} {
		body := admin.Get("/ops/operators").Body
		assert.NotContains(t, body, secret)
		assert.NotContains(t, body, invitedPassword)
		assert.Contains(t, body, email)
	}

	other := signInInvited(t, env, email, secret)
	assert.Equal(t, http.StatusOK, other.Get("/ops/screening").StatusCode)
	assert.Equal(t, http.StatusOK, other.Get("/ops/transfers").StatusCode)
	assert.Equal(t, http.StatusForbidden, other.Get("/ops/operators").StatusCode, "not an administrator")

	// Both steps and the enrolment are in the audit log, in words.
	audit := b.Get("/ops/audit?object=operator_proposal").Body
	for _, want := range []string{"招待の提案", "提案の承認", "提案 #" + strconv.FormatInt(id, 10)} {
		assert.Contains(t, audit, want)
	}
	log, _, err := webtest.Store().AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditProposal, ObjectID: id})
	require.NoError(t, err)
	require.Len(t, log, 2)
	assert.Equal(t, "approve", log[0].Action)
	assert.Equal(t, adminB.ID, log[0].OperatorID)
	assert.Equal(t, "propose_invite", log[1].Action)
	assert.Equal(t, adminA.ID, log[1].OperatorID)
	log, _, err = webtest.Store().AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditOperator, ObjectID: o.ID})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "enrol", log[0].Action)
}

func TestARejectedInvitationSendsNothing(t *testing.T) {
	env := webtest.New(t)
	a, b := signIn(t, env, newOperator(t, env, pay.RoleAdmin)), signIn(t, env, newOperator(t, env, pay.RoleAdmin))
	email := inviteEmail("rejected")
	id := proposeInvite(t, a, email, "screening")
	res := b.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/reject", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = b.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/approve", nil)
	webtest.AssertFieldError(t, res, "proposal", account.MsgProposalDecided)
	env.Settle(t)
	assert.Zero(t, mailsTo(env, email))
	assert.NotContains(t, b.Get("/ops/operators").Body, email)
}

func TestRolesAndReenablingTakeTwoAdministratorsDisablingOne(t *testing.T) {
	env := webtest.New(t)
	adminA := newOperator(t, env, pay.RoleAdmin)
	a, b := signIn(t, env, adminA), signIn(t, env, newOperator(t, env, pay.RoleAdmin))
	x := newOperator(t, env, pay.RoleScreening)
	ctx := context.Background()
	opPath := "/ops/operators/" + strconv.FormatInt(x.ID, 10)
	lastProposal := func(c *webtest.Client) string {
		m := approveForm.FindAllStringSubmatch(c.Get("/ops/operators").Body, -1)
		require.NotEmpty(t, m)
		return m[len(m)-1][0]
	}

	res := a.Post(opPath+"/roles", url.Values{"role": {"screening"}, "change": {"grant"}})
	webtest.AssertFieldError(t, res, "change", "その担当者の権限はすでにそのとおりです")
	res = a.Post(opPath+"/roles", url.Values{"role": {"screening"}, "change": {"revoke"}})
	webtest.AssertFieldError(t, res, "change", "最後の権限は外せません。担当者を停止してください")
	res = a.Post(opPath+"/roles", url.Values{"role": {"transfers"}, "change": {"grant"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = a.Post(opPath+"/roles", url.Values{"role": {"transfers"}, "change": {"grant"}})
	webtest.AssertFieldError(t, res, "change", account.MsgProposalPending)
	got, err := webtest.Store().Operator(ctx, x.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{pay.RoleScreening}, []string(got.Roles), "not before the approval")
	res = b.Post(lastProposal(b), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	got, err = webtest.Store().Operator(ctx, x.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{pay.RoleScreening, pay.RoleTransfers}, []string(got.Roles))

	// Removing a role, proposed by B and approved by A.
	res = b.Post(opPath+"/roles", url.Values{"role": {"screening"}, "change": {"revoke"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = a.Post(lastProposal(a), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	got, err = webtest.Store().Operator(ctx, x.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{pay.RoleTransfers}, []string(got.Roles))

	// Disabling: one administrator, at once; never oneself.
	res = a.Post("/ops/operators/"+strconv.FormatInt(adminA.ID, 10)+"/disable", nil)
	webtest.AssertFieldError(t, res, "change", "ご自身は停止できません。別の管理者に依頼してください")
	require.Equal(t, http.StatusSeeOther, a.Post(opPath+"/disable", nil).StatusCode)
	_, err = webtest.Store().Operator(ctx, x.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "a disabled operator cannot work")
	assert.Contains(t, a.Get("/ops/operators").Body, "停止中")
	// Enabling again: a proposal.
	require.Equal(t, http.StatusSeeOther, a.Post(opPath+"/enable", nil).StatusCode)
	_, err = webtest.Store().Operator(ctx, x.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "still disabled until approved")
	res = b.Post(lastProposal(b), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	_, err = webtest.Store().Operator(ctx, x.ID)
	require.NoError(t, err)
	signIn(t, env, x)

	log, _, err := webtest.Store().AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditOperator, ObjectID: x.ID})
	require.NoError(t, err)
	var actions []string
	for _, l := range log {
		actions = append(actions, l.Action)
	}
	assert.Equal(t, []string{"enable", "disable", "revoke", "grant"}, actions)
}

func TestAnInviterAndTheirInviteeAreOnePersonForDualControl(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	inviterOp := newOperator(t, env, pay.RoleAdmin, pay.RoleScreening)
	inviter, approver := signIn(t, env, inviterOp), signIn(t, env, newOperator(t, env, pay.RoleAdmin))
	email := inviteEmail("confederate")
	id := proposeInvite(t, inviter, email, "screening")
	require.Equal(t, http.StatusSeeOther, approver.Post("/ops/operators/proposals/"+strconv.FormatInt(id, 10)+"/approve", nil).StatusCode)
	_, secret := enrol(t, env, email, linkTo(t, env, email))
	invitee := signInInvited(t, env, email, secret)

	path := "/ops/screening/" + strconv.FormatInt(p.id, 10)
	require.Equal(t, http.StatusSeeOther, inviter.Post(path+"/check", nil).StatusCode)
	assert.Contains(t, invitee.Get(path).Body, "30日以内にもう一方を招待しているため", "the page says so before the button is pressed")
	res := invitee.Post(path+"/complete", nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "complete", invoices.MsgInvitedPair)
	// Anyone else passes this rule (and meets the next: the supplier is not approved yet);
	// once the supplier is, they complete. (The console's supplier list is shared by the
	// package's tests: none stays waiting.)
	third := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	res = third.Post(path+"/complete", nil)
	webtest.AssertFieldError(t, res, "complete", invoices.MsgSupplierNotReady)
	require.Equal(t, http.StatusSeeOther, third.Post("/ops/suppliers/"+strconv.FormatInt(p.supplier, 10), url.Values{"status": {"1"}}).StatusCode)
	res = third.Post(path+"/complete", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
}
