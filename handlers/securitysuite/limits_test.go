package securitysuite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// Every page and API call that mails someone, or checks a secret, reaches 429 with
// Retry-After at the default limits (account.DefaultLimits): for one target (an
// address, or an account) from ever new IPs, and for one IP with ever new targets. A
// target that is an address is tried twice, registered and unknown: the count, the
// status and the words of the refusal must be the same.

// limitCase is one page or call. send makes one request of it for target from v; prep,
// when set, readies v for target first (a sign-up to resend the code of, a signed-in
// session, a pending second factor), from an IP of its own.
type limitCase struct {
	name   string
	action string
	// addressed: the target is a typed address (compared registered and unknown);
	// otherwise it is an account, and each target is a new buyer.
	addressed bool
	// corporation: the account must be a corporation (card-payment requests).
	corporation bool
	// twoFactor: the account signs in with a mailed code.
	twoFactor bool
	prep      func(v *visitor, target string)
	send      func(v *visitor, target string) webtest.Response
	// page: the answer is an HTML page that must say when to try again and keep the
	// typed address (never the password).
	page bool
	// throttled: the refusal may come first from the sign-in throttle (its growing
	// delay after 3 failures), a stricter limit than the limiter's.
	throttled bool
}

var seq atomic.Int64

func unknownAddress() string {
	return fmt.Sprintf("nobody-%d-%d@limits.example", seq.Add(1), time.Now().UnixNano()%1e6)
}

func strongPassword() string { return fmt.Sprintf("Kumo7sora%dyama", seq.Add(1)) }

func TestEveryMailingAndSecretCheckingCallIsLimited(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	ctx := context.Background()

	signUp := func(v *visitor, address string) {
		res := v.form("/signup", url.Values{"email_address": {address}, "password": {strongPassword()}, "consent": {"1"}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	}
	signIn := func(v *visitor, address string) { v.signIn(address) }
	pendingCode := func(v *visitor, address string) {
		res := v.form("/signin", url.Values{"email_address": {address}, "password": {webtest.Password}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	}
	apiLogin := func(v *visitor, address string) { v.login(address, "") }
	requester := func(v *visitor, address string) {
		v.login(address, "")
		u, err := webtest.Store().UserByEmail(ctx, address)
		require.NoError(t, err)
		res := v.call(http.MethodPost, fmt.Sprintf("/buyers/%d/accounts", u.BuyerID), map[string]any{"bank_code": "0005",
			"branch_code": "001", "account_type": 2, "account_number": fmt.Sprintf("%07d", seq.Add(1)%10_000_000), "holder_name": "ｶ)ｲﾗｲﾓﾄ"})
		require.Equal(t, http.StatusCreated, res.StatusCode, res.Body)
		var acct struct {
			ID int64 `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.Body), &acct))
		v.accountID = acct.ID
	}

	cases := []limitCase{
		{name: "sign-up page", action: account.ActSignup, addressed: true, page: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/signup", url.Values{"email_address": {a}, "password": {strongPassword()}, "consent": {"1"}})
			}},
		{name: "sign-up code resend page", action: account.ActSignup, addressed: true, page: true, prep: signUp,
			send: func(v *visitor, a string) webtest.Response { return v.form("/signup/code/resend", nil) }},
		{name: "password reset page", action: account.ActPasswordReset, addressed: true, page: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/password/sendemail", url.Values{"email_address": {a}})
			}},
		{name: "re-registration page", action: account.ActReregistration, addressed: true, page: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/password/reregistration", url.Values{"email_address": {a}})
			}},
		{name: "sign-in page (wrong password)", action: account.ActSignIn, addressed: true, page: true, throttled: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/signin", url.Values{"email_address": {a}, "password": {"wrong-pass-2026"}})
			}},
		{name: "one-time code resend page", action: account.ActTwoFactor, twoFactor: true, page: true, prep: pendingCode,
			send: func(v *visitor, a string) webtest.Response { return v.form("/onetime-password/resend", nil) }},
		{name: "e-mail change page", action: account.ActEmailChange, page: true, prep: signIn,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/myaccount/edit-email-address", url.Values{"email_address": {unknownAddress()}, "current_password": {webtest.Password}})
			}},
		{name: "two-factor by mail page", action: account.ActTwoFactor, page: true, prep: signIn,
			send: func(v *visitor, a string) webtest.Response {
				return v.form("/myaccount/security", url.Values{"two_factor_method": {"email"}, "current_password": {webtest.Password}})
			}},
		{name: "API POST users (sign-up)", action: account.ActSignup, addressed: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPost, "/users", map[string]any{"email_address": a, "password": strongPassword(), "consent": true})
			}},
		{name: "API POST users/resignup", action: account.ActReregistration, addressed: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPost, "/users/resignup", map[string]any{"email_address": a})
			}},
		{name: "API POST users/send_password_reset_code", action: account.ActPasswordReset, addressed: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPost, "/users/send_password_reset_code", map[string]any{"email_address": a})
			}},
		{name: "API POST login (wrong password)", action: account.ActSignIn, addressed: true, throttled: true,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPost, "/login", map[string]any{"email_address": a, "password": "wrong-pass-2026"})
			}},
		{name: "API PUT users/email_address", action: account.ActEmailChange, prep: apiLogin,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPut, "/users/email_address", map[string]any{"email_address": unknownAddress(), "current_password": webtest.Password})
			}},
		{name: "API PUT users/security_settings (mail)", action: account.ActTwoFactor, prep: apiLogin,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodPut, "/users/security_settings", map[string]any{"two_factor_method": "email", "current_password": webtest.Password})
			}},
		{name: "API POST invoices/request_sellers", action: account.ActRequestMail, corporation: true, prep: requester,
			send: func(v *visitor, a string) webtest.Response {
				v.api["Idempotency-Key"] = fmt.Sprintf("limit-%d", seq.Add(1))
				return v.call(http.MethodPost, "/invoices/request_sellers", map[string]any{"account_id": v.accountID,
					"request": map[string]any{"customer_name": "株式会社お客さま", "customer_email": unknownAddress(), "amount": "80000",
						"deadline": pay.ISODate(time.Now().AddDate(0, 0, 15)), "invoice_number": "LIMIT"}})
			}},
		{name: "API GET invoices/request_keys/{key}", action: account.ActRequestKey, prep: apiLogin,
			send: func(v *visitor, a string) webtest.Response {
				return v.call(http.MethodGet, "/invoices/request_keys/"+strings.Repeat("A", 43), nil)
			}},
	}

	newAccount := func(lc limitCase) string {
		form, number := pay.SoleProprietor, ""
		if lc.corporation {
			form, number = pay.Corporation, "4180001099993"
		}
		u := webtest.NewBuyer(t, form, number)
		if lc.twoFactor {
			require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, account.SecondFactorEmail, ""))
		}
		return u.EmailAddress
	}

	for _, lc := range cases {
		t.Run(lc.name, func(t *testing.T) {
			targetLimit := account.DefaultLimits[lc.action+".target"]
			ipLimit := account.DefaultLimits[lc.action+".ip"]

			// attack sends until a 429 (or limit+2 attempts) and answers the attempt that
			// met it (0: never) and that answer.
			attack := func(limit int, next func(i int) (*visitor, string)) (int, webtest.Response) {
				for i := 1; i <= limit+2; i++ {
					v, target := next(i)
					res := lc.send(v, target)
					if res.StatusCode >= 500 {
						t.Fatalf("attempt %d: %d %s", i, res.StatusCode, res.Body)
					}
					if res.StatusCode == http.StatusTooManyRequests {
						return i, res
					}
				}
				return 0, webtest.Response{}
			}
			ready := func(v *visitor, target string) {
				if lc.prep != nil {
					attackIP := v.IP
					v.IP = newIP()
					lc.prep(v, target)
					v.IP = attackIP
				}
			}
			// One target from ever new IPs: one visitor readied once, its IP changed at
			// every attempt.
			oneTarget := func(target string) (int, webtest.Response) {
				v := newVisitor(t, env)
				ready(v, target)
				return attack(targetLimit.N, func(int) (*visitor, string) {
					v.IP = newIP()
					return v, target
				})
			}
			checkRefusal := func(res webtest.Response, typed string) bool {
				ok := res.Header.Get("Retry-After") != ""
				if lc.page && !lc.throttled {
					ok = ok && strings.Contains(res.Body, "短時間に操作が繰り返されたため") && strings.Contains(res.Body, "以降にもう一度お試しください")
				}
				if lc.page && typed != "" && lc.addressed && strings.Contains(lc.name, "page") && !strings.Contains(lc.name, "resend") {
					ok = ok && strings.Contains(res.Body, `value="`+typed+`"`)
				}
				return ok && !strings.Contains(res.Body, webtest.Password) && !strings.Contains(res.Body, "Kumo7sora")
			}

			var figure string
			holds := true
			if lc.addressed {
				known := newAccount(lc)
				unknown := unknownAddress()
				kn, kres := oneTarget(known)
				un, ures := oneTarget(unknown)
				same := kres.StatusCode == ures.StatusCode && sameShape(kres.Body, known) == sameShape(ures.Body, unknown)
				figure = fmt.Sprintf("one address: 429 at attempt %d registered, %d unknown (limit %d/%s), same answer: %v", kn, un, targetLimit.N, targetLimit.Window, same)
				holds = kn > 0 && kn == un && same && checkRefusal(kres, known) && checkRefusal(ures, unknown)
				if !lc.throttled {
					holds = holds && kn <= targetLimit.N+1
				}
			} else {
				a := newAccount(lc)
				n, res := oneTarget(a)
				figure = fmt.Sprintf("one account: 429 at attempt %d (limit %d/%s)", n, targetLimit.N, targetLimit.Window)
				holds = n > 0 && n <= targetLimit.N+1 && checkRefusal(res, "")
			}

			// One IP, ever new targets: each a new address, or a new account readied from
			// another IP.
			ip := newIP()
			n, res := attack(ipLimit.N, func(int) (*visitor, string) {
				v := newVisitor(t, env)
				target := unknownAddress()
				if !lc.addressed || lc.prep != nil {
					if !lc.addressed {
						target = newAccount(lc)
					}
					ready(v, target)
				}
				v.IP = ip
				return v, target
			})
			figure += fmt.Sprintf("; one IP: 429 at attempt %d (limit %d/%s)", n, ipLimit.N, ipLimit.Window)
			holds = holds && n > 0 && n <= ipLimit.N+1 && res.Header.Get("Retry-After") != ""
			record(t, "limits", lc.name, figure, holds)
		})
	}
}
