package securitysuite_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// 1,000 wrong passwords on one account from 50 unknown devices (each its own browser
// and IP) lock the address's unknown devices after the 10th; every later attempt is
// refused without the password being looked at; the owner's browser and API client,
// known devices from an earlier sign-in, still get in, and the owner is mailed once.
func TestLockoutCannotBeTurnedAgainstTheOwner(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := attackEnv(t, account.DefaultLimits, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")

	// The owner used this browser and this API client before the attack.
	owner := newVisitor(t, env)
	owner.signIn(u.EmailAddress)
	require.NotEmpty(t, owner.c.Cookie(web.DeviceCookie), "a successful sign-in makes the browser a known device")
	require.Equal(t, http.StatusSeeOther, owner.form("/signout", nil).StatusCode)
	ownerAPI := newVisitor(t, env)
	deviceToken := ownerAPI.login(u.EmailAddress, "")
	require.NotEmpty(t, deviceToken)

	const attempts, devices = 1000, 50
	attackers := make([]*visitor, devices)
	for i := range attackers {
		attackers[i] = newVisitor(t, env)
	}
	wrong := url.Values{"email_address": {u.EmailAddress}}
	var checked, refusedAfterLock, otherAfterLock, noRetryAfter int
	lockedAt := 0
	for i := range attempts {
		// The first attempts wait out the growing delay, as a patient attacker would;
		// after the lock the attacker hammers on (half a second apart).
		if lockedAt == 0 {
			clk.Add(31 * time.Second)
		} else {
			clk.Add(500 * time.Millisecond)
		}
		wrong.Set("password", fmt.Sprintf("guess-%04d-pass", i))
		res := attackers[i%devices].form("/signin", wrong)
		switch {
		case lockedAt == 0 && res.StatusCode == http.StatusUnprocessableEntity:
			checked++
		case lockedAt == 0 && res.StatusCode == http.StatusTooManyRequests && strings.Contains(res.Body, "ロックしました"):
			checked++
			lockedAt = i + 1
		case lockedAt != 0 && res.StatusCode == http.StatusTooManyRequests:
			refusedAfterLock++
			if res.Header.Get("Retry-After") == "" {
				noRetryAfter++
			}
		default:
			otherAfterLock++
			t.Logf("attempt %d: %d", i+1, res.StatusCode)
		}
	}
	after := attempts - lockedAt
	record(t, "lockout", "1,000 wrong passwords from 50 unknown devices (50 IPs)",
		fmt.Sprintf("password checked %d times; locked at attempt %d", checked, lockedAt), lockedAt == 10 && checked == 10)
	record(t, "lockout", "every attempt after the lock refused",
		fmt.Sprintf("%d of %d answered 429 with Retry-After (%d without it, %d other answers)", refusedAfterLock-noRetryAfter, after, noRetryAfter, otherAfterLock),
		refusedAfterLock == after && noRetryAfter == 0 && otherAfterLock == 0)

	// During the lock: a new device with the right password is refused too…
	stranger := newVisitor(t, env)
	res := stranger.form("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	record(t, "lockout", "the right password from a new device during the lock",
		fmt.Sprintf("%d", res.StatusCode), res.StatusCode == http.StatusTooManyRequests)

	// …while the owner's known devices sign in.
	res = owner.form("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	record(t, "lockout", "the owner's known browser during the lock",
		fmt.Sprintf("%d → %s", res.StatusCode, res.Header.Get("Location")), res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") != "/signin")
	api := ownerAPI.call(http.MethodPost, "/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password, "device_token": deviceToken})
	record(t, "lockout", "the owner's known API client during the lock",
		fmt.Sprintf("%d", api.StatusCode), api.StatusCode == http.StatusOK && strings.Contains(api.Body, "access_token"))

	// The owner is told once, with the way back in.
	env.Settle(t)
	var mails int
	var withLink bool
	for _, m := range env.Mail.Messages() {
		if strings.EqualFold(m.To, u.EmailAddress) && strings.Contains(m.Subject, "ロック") {
			mails++
			withLink = strings.Contains(m.Text, "/password/sendemail")
		}
	}
	record(t, "lockout", "lock mails to the owner", fmt.Sprintf("%d (reset link: %v)", mails, withLink), mails == 1 && withLink)
}
