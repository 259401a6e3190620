package handlers_test

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// mailTimingN is how many requests of each kind TestMailingRequestsAnswerAlikeForKnownAndUnknownAddresses
// times. The test run keeps it small (it checks the answers, never the times);
// `task mail-timing` sets 50 and reads the table it prints.
var mailTimingN = flag.Int("mail-timing-n", 3, "requests per row and address kind in the mail timing table")

// One row of the table: a mail-sending request made for an address that exists (has an
// account or an unfinished sign-up) and for one that does not.
type timingRow struct {
	name    string
	known   func(i int) webtest.Response
	unknown func(i int) webtest.Response
	// strip removes what legitimately differs between the two answers (the typed
	// address, the nonce).
	strip func(r webtest.Response, i int, known bool) string
}

// The sign-up, code resend, password reset, re-registration and e-mail change pages
// give the same answer whether or not the address exists, and do the same work for it
// (the mail job decides, after the answer, what to send): this test checks the answers
// and prints how long each took, median and p95, side by side. Timing is printed, never
// asserted: a shared machine's noise would make such a test flaky.
func TestMailingRequestsAnswerAlikeForKnownAndUnknownAddresses(t *testing.T) {
	env := webtest.New(t)
	n := *mailTimingN
	registered := webtest.RegisteredAddress(t)
	fresh := func(tag string, i int) string {
		return fmt.Sprintf("timing-%s-%d-%d@unknown.example", tag, i, time.Now().UnixNano()%1e9)
	}
	stripAddr := func(known string, unknown func(i int) string) func(r webtest.Response, i int, k bool) string {
		return func(r webtest.Response, i int, k bool) string {
			body := r.Body
			if k {
				body = webtest.StripAddress(body, known)
			} else {
				body = webtest.StripAddress(body, unknown(i))
			}
			return fmt.Sprintf("%d %s %s", r.StatusCode, r.Header.Get("Location"), body)
		}
	}

	// Sign-up: a registered address, and a new one each time.
	signupNew := make([]string, n)
	for i := range signupNew {
		signupNew[i] = fresh("signup", i)
	}
	signup := timingRow{
		name:    "sign-up (POST /signup)",
		known:   func(int) webtest.Response { return env.Client(t).Post("/signup", webtest.SignupForm(registered)) },
		unknown: func(i int) webtest.Response { return env.Client(t).Post("/signup", webtest.SignupForm(signupNew[i])) },
		strip:   stripAddr(registered, func(i int) string { return signupNew[i] }),
	}

	// Code resend after a sign-up: of a registered address, and of a new one.
	resendK, resendU := env.Client(t), env.Client(t)
	require.Equal(t, http.StatusSeeOther, resendK.Post("/signup", webtest.SignupForm(registered)).StatusCode)
	resendNew := fresh("resend", 0)
	require.Equal(t, http.StatusSeeOther, resendU.Post("/signup", webtest.SignupForm(resendNew)).StatusCode)
	resend := timingRow{
		name:    "code resend after sign-up (POST /signup/code/resend)",
		known:   func(int) webtest.Response { return resendK.Post("/signup/code/resend", nil) },
		unknown: func(int) webtest.Response { return resendU.Post("/signup/code/resend", nil) },
		strip:   stripAddr(registered, func(int) string { return resendNew }),
	}

	// Re-registration: an address with an unfinished sign-up, and one without.
	unfinished := webtest.SignupEmail(t)
	require.Equal(t, http.StatusSeeOther, env.Client(t).Post("/signup", webtest.SignupForm(unfinished)).StatusCode)
	reregNone := make([]string, n)
	for i := range reregNone {
		reregNone[i] = fresh("rereg", i)
	}
	rereg := timingRow{
		name: "re-registration (POST /password/reregistration)",
		known: func(int) webtest.Response {
			return env.Client(t).Post("/password/reregistration", url.Values{"email_address": {unfinished}})
		},
		unknown: func(i int) webtest.Response {
			return env.Client(t).Post("/password/reregistration", url.Values{"email_address": {reregNone[i]}})
		},
		strip: stripAddr(unfinished, func(i int) string { return reregNone[i] }),
	}

	// Code resend after a re-registration: with the unfinished sign-up, and with none.
	rk, ru := env.Client(t), env.Client(t)
	require.Equal(t, http.StatusSeeOther, rk.Post("/password/reregistration", url.Values{"email_address": {unfinished}}).StatusCode)
	reregResendNone := fresh("rereg-resend", 0)
	require.Equal(t, http.StatusSeeOther, ru.Post("/password/reregistration", url.Values{"email_address": {reregResendNone}}).StatusCode)
	reregResend := timingRow{
		name:    "code resend after re-registration (POST /signup/code/resend)",
		known:   func(int) webtest.Response { return rk.Post("/signup/code/resend", nil) },
		unknown: func(int) webtest.Response { return ru.Post("/signup/code/resend", nil) },
		strip:   stripAddr(unfinished, func(int) string { return reregResendNone }),
	}

	// Password reset: an account's address, and an unknown one.
	resetNone := make([]string, n)
	for i := range resetNone {
		resetNone[i] = fresh("reset", i)
	}
	reset := timingRow{
		name: "password reset (POST /password/sendemail)",
		known: func(int) webtest.Response {
			return env.Client(t).Post("/password/sendemail", url.Values{"email_address": {registered}})
		},
		unknown: func(i int) webtest.Response {
			return env.Client(t).Post("/password/sendemail", url.Values{"email_address": {resetNone[i]}})
		},
		strip: stripAddr(registered, func(i int) string { return resetNone[i] }),
	}

	// E-mail change: to an address another account signs in with, and to a free one.
	changer := webtest.NewBuyer(t, pay.SoleProprietor, "")
	signedIn := env.Client(t)
	signedIn.SignIn(changer.EmailAddress)
	changeFree := make([]string, n)
	for i := range changeFree {
		changeFree[i] = fresh("change", i)
	}
	change := timingRow{
		name: "e-mail change (POST /myaccount/edit-email-address)",
		known: func(int) webtest.Response {
			return signedIn.Post("/myaccount/edit-email-address", url.Values{"email_address": {registered}, "current_password": {webtest.Password}})
		},
		unknown: func(i int) webtest.Response {
			return signedIn.Post("/myaccount/edit-email-address", url.Values{"email_address": {changeFree[i]}, "current_password": {webtest.Password}})
		},
		strip: stripAddr(registered, func(i int) string { return changeFree[i] }),
	}

	rows := []timingRow{signup, resend, rereg, reregResend, reset, change}
	var table strings.Builder
	fmt.Fprintf(&table, "\nmail-sending requests, %d each, known vs unknown address, alternating (ms)\n", n)
	fmt.Fprintf(&table, "%-62s %9s %9s %9s %9s %9s\n", "request", "known p50", "unkn p50", "known p95", "unkn p95", "Δ p50")
	for _, row := range rows {
		var known, unknown []time.Duration
		for i := range n {
			// Alternate which goes first, so that drift (caches, the workers sending the
			// previous mails) falls on both alike.
			order := []bool{true, false}
			if i%2 == 1 {
				order = []bool{false, true}
			}
			var answers [2]webtest.Response // known, unknown
			for _, k := range order {
				start := time.Now()
				if k {
					answers[0] = row.known(i)
					known = append(known, time.Since(start))
				} else {
					answers[1] = row.unknown(i)
					unknown = append(unknown, time.Since(start))
				}
			}
			assert.Equal(t, row.strip(answers[0], i, true), row.strip(answers[1], i, false),
				"%s: the same answer for an unknown address", row.name)
		}
		kp50, up50 := percentile(known, 50), percentile(unknown, 50)
		fmt.Fprintf(&table, "%-62s %9.2f %9.2f %9.2f %9.2f %+9.2f\n", row.name, ms(kp50), ms(up50),
			ms(percentile(known, 95)), ms(percentile(unknown, 95)), ms(up50-kp50))
	}
	fmt.Print(table.String())
	env.Settle(t)
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100 // nearest rank
	return s[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
