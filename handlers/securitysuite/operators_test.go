package securitysuite_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// The operators area (issue 24): one administrator alone can neither bring in an
// operator nor learn an operator's credentials, and an inviter and their invitee cannot
// make the two halves of dual control.

var (
	suiteInviteLink = regexp.MustCompile(`/ops/invite/([A-Za-z0-9_-]{43})`)
	suiteSecret     = regexp.MustCompile(`認証アプリの設定キー</dt>\s*<dd class="summary-list__value">([A-Z2-7]+)</dd>`)
)

const invitedPassword = "invited password 2026"

func signInOp(t *testing.T, env *webtest.Env, o store.Operator) *webtest.Client {
	t.Helper()
	c := env.Client(t)
	res := c.Post("/ops/signin", url.Values{"email_address": {o.EmailAddress}, "password": {opPassword}, "code": {opCode(t)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	return c
}

// proposeInviteOf has admin propose inviting email (screening) and returns the proposal.
func proposeInviteOf(t *testing.T, admin *webtest.Client, email string) (int64, string) {
	t.Helper()
	res := admin.Post("/ops/operators", url.Values{"email_address": {email}, "name": {"招待 太郎"}, "roles": {"screening"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	list, err := webtest.Store().PendingProposals(context.Background())
	require.NoError(t, err)
	for _, p := range list {
		if p.EmailAddress == email {
			return p.ID, "/ops/operators/proposals/" + strconv.FormatInt(p.ID, 10)
		}
	}
	t.Fatalf("no proposal for %s", email)
	return 0, ""
}

func mailCount(env *webtest.Env, address string) int {
	n := 0
	for _, m := range env.Mail.Messages() {
		if m.To == address {
			n++
		}
	}
	return n
}

// enrolInvitee follows the mailed link and enrols; it returns the page's body (with the
// secret), the secret and the next code to sign in with.
func enrolInvitee(t *testing.T, env *webtest.Env, email string) (secret string) {
	t.Helper()
	m := env.Mail.WaitFor(t, email, 10*time.Second)
	link := suiteInviteLink.FindString(m.Text)
	require.NotEmpty(t, link)
	c := env.Client(t)
	page := c.Get(link)
	s := suiteSecret.FindStringSubmatch(page.Body)
	require.NotNil(t, s, page.Body)
	code, err := totp.GenerateCode(s[1], time.Now())
	require.NoError(t, err)
	res := c.Post(link, url.Values{"password": {invitedPassword}, "password_confirmation": {invitedPassword}, "code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	return s[1]
}

func signInInvitee(t *testing.T, env *webtest.Env, email, secret string) (*webtest.Client, int) {
	t.Helper()
	code, err := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	c := env.Client(t)
	res := c.Post("/ops/signin", url.Values{"email_address": {email}, "password": {invitedPassword}, "code": {code}})
	return c, res.StatusCode
}

func suiteInviteEmail(what string) string {
	return fmt.Sprintf("suite-%s-%d-%d@ops.test.example", what, opSeq.Add(1), time.Now().UnixNano()%1e6)
}

func TestOperatorsNeedTwoAdministrators(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	adminA, adminB := newOperator(t, env), newOperator(t, env)
	a, b := signInOp(t, env, adminA), signInOp(t, env, adminB)
	email := suiteInviteEmail("invitee")
	id, path := proposeInviteOf(t, a, email)

	// Proposed by one: no operator, no mail, no sign-in.
	env.Settle(t)
	_, err := webtest.Store().OperatorByEmail(ctx, email)
	noOperator := err != nil
	_, status := signInInvitee(t, env, email, opSecret)
	mailsBefore := mailCount(env, email)

	// The proposer deciding their own proposal, both ways, twice each.
	var own []int
	for _, action := range []string{"approve", "reject", "approve", "reject"} {
		own = append(own, a.Post(path+"/"+action, nil).StatusCode)
	}
	p, err := webtest.Store().Proposal(ctx, id)
	require.NoError(t, err)
	env.Settle(t)
	ownRefused := p.Status == store.ProposalPending && p.DecidedBy == nil && mailCount(env, email) == 0
	for _, s := range own {
		ownRefused = ownRefused && s == http.StatusUnprocessableEntity
	}
	record(t, "operators", "one administrator approves (or rejects) their own proposal of an operator",
		fmt.Sprintf("4 tries → %v; proposal still %s, %d mails", own, p.Status, mailCount(env, email)), ownRefused)

	// A second administrator approves; approving again or rejecting afterwards changes
	// nothing (one mail, one invitation).
	first := b.Post(path+"/approve", nil).StatusCode
	var later []int
	for _, action := range []string{"approve", "reject"} {
		later = append(later, b.Post(path+"/"+action, nil).StatusCode)
	}
	secret := enrolInvitee(t, env, email)
	invitee, after := signInInvitee(t, env, email, secret)
	env.Settle(t)
	p, err = webtest.Store().Proposal(ctx, id)
	require.NoError(t, err)
	record(t, "operators", "an operator proposed by one administrator signs in only after a second approves",
		fmt.Sprintf("before approval: operator exists %v, %d mails, sign-in %d; approval %d, again %v; after: %d mail, sign-in %d",
			!noOperator, mailsBefore, status, first, later, mailCount(env, email), after),
		noOperator && mailsBefore == 0 && status == http.StatusUnprocessableEntity && first == http.StatusSeeOther &&
			later[0] == http.StatusUnprocessableEntity && later[1] == http.StatusUnprocessableEntity &&
			p.Status == store.ProposalApproved && mailCount(env, email) == 1 && after == http.StatusSeeOther)

	// What administrators see: every console page either could open, and the answers of
	// their own proposal and approval, scanned for the invitee's credentials.
	pages := 0
	var leaks []string
	scan := func(who, what, body string) {
		pages++
		for _, s := range []string{secret, invitedPassword} {
			if strings.Contains(body, s) {
				leaks = append(leaks, who+" "+what)
			}
		}
	}
	for who, c := range map[string]*webtest.Client{"A": a, "B": b} {
		for _, pth := range []string{"/ops/operators", "/ops/audit", "/ops/audit?object=operator", "/ops/audit?object=operator_proposal"} {
			scan(who, pth, c.Get(pth).Body)
		}
	}
	record(t, "operators", "administrators' pages hold an invited operator's password or authenticator secret",
		fmt.Sprintf("%d admin pages scanned → %d with the secret or password %v", pages, len(leaks), leaks), len(leaks) == 0 && pages == 8)
	_ = invitee
}

func TestAnInviteeCannotCompleteWhatTheirInviterChecked(t *testing.T) {
	env := webtest.New(t)
	v := newVictim(t, env)
	inviterOp, approverOp := newOperator(t, env), newOperator(t, env)
	inviter, approver := signInOp(t, env, inviterOp), signInOp(t, env, approverOp)
	email := suiteInviteEmail("confederate")
	_, path := proposeInviteOf(t, inviter, email)
	require.Equal(t, http.StatusSeeOther, approver.Post(path+"/approve", nil).StatusCode)
	secret := enrolInvitee(t, env, email)
	invitee, status := signInInvitee(t, env, email, secret)
	require.Equal(t, http.StatusSeeOther, status)

	payPath := "/ops/screening/" + v.ids["invoice"]
	require.Equal(t, http.StatusSeeOther, inviter.Post(payPath+"/check", nil).StatusCode)
	res := invitee.Post(payPath+"/complete", nil)
	id, _ := strconv.ParseInt(v.ids["invoice"], 10, 64)
	pm, err := webtest.Store().Payment(context.Background(), v.user.BuyerID, id)
	require.NoError(t, err)
	record(t, "operators", "an invited operator completes a payment checked by their inviter (within 30 days)",
		fmt.Sprintf("complete → %d, refusal shown %v; payment still %s", res.StatusCode,
			strings.Contains(res.Body, invoices.MsgInvitedPair), pm.ExaminationStatus.Label()),
		res.StatusCode == http.StatusUnprocessableEntity && strings.Contains(res.Body, invoices.MsgInvitedPair) &&
			pm.ExaminationStatus == pay.InProgressExaminationChecked)
}

func TestAnInvitationsCodeCannotBeGuessedForever(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	a, b := signInOp(t, env, newOperator(t, env)), signInOp(t, env, newOperator(t, env))
	email := suiteInviteEmail("guessed")
	id, path := proposeInviteOf(t, a, email)
	require.Equal(t, http.StatusSeeOther, b.Post(path+"/approve", nil).StatusCode)
	link := suiteInviteLink.FindString(env.Mail.WaitFor(t, email, 10*time.Second).Text)
	require.NotEmpty(t, link)

	// Wrong codes on the one link, each from an address of its own: the limit of the link
	// (account.DefaultLimits' sign-in target) stops them, whatever the IP.
	const tries = 40
	wrong, limited, other := 0, 0, 0
	retryAfter := true
	for range tries {
		res := newVisitor(t, env).form(link, url.Values{"password": {invitedPassword}, "password_confirmation": {invitedPassword},
			"code": {"000000"}})
		switch res.StatusCode {
		case http.StatusUnprocessableEntity:
			wrong++
		case http.StatusTooManyRequests:
			limited++
			retryAfter = retryAfter && res.Header.Get("Retry-After") != ""
		default:
			other++
		}
	}
	var used int
	require.NoError(t, webtest.Store().DB.Get(&used, `SELECT count(*) FROM operator_invites WHERE proposal_id = $1 AND used_at IS NOT NULL`, id))
	want := account.DefaultLimits[account.ActSignIn+".target"].N
	record(t, "operators", "guessing an invitation link's authenticator code from ever new IPs",
		fmt.Sprintf("%d wrong codes → %d checked, %d × 429 (Retry-After %v), %d other; invitation used: %d", tries, wrong, limited, retryAfter, other, used),
		wrong == want && limited == tries-want && retryAfter && other == 0 && used == 0)
}
