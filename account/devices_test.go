package account_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/mail/mailtest"
)

const (
	wrongCredentials = "メールアドレスまたはパスワードが正しくありません"
	lockSubject      = "アカウントの一時ロックのお知らせ"
	// attemptGap is more than the throttle's longest delay (30 s), so that every
	// attempt of a test is checked rather than asked to wait.
	attemptGap = 31 * time.Second
)

var testDeviceKey = auth.DeriveKey("k", account.DeviceKeyInfo)

// deviceService is newService with device tokens and a settable clock.
func deviceService(t *testing.T) (*account.Service, *mailtest.Server, *secClock) {
	t.Helper()
	s, box := newService(t)
	clk := newSecClock(time.Now().Truncate(time.Second))
	s.Now = clk.Now
	s.DeviceKey = testDeviceKey
	return s, box, clk
}

// refusal asserts that err is a *Refusal with message and returns it.
func refusal(t *testing.T, err error, message string, msgAndArgs ...any) *account.Refusal {
	t.Helper()
	r, ok := account.AsRefusal(err)
	require.True(t, ok, "want a *Refusal, got %v; %v", err, msgAndArgs)
	assert.Equal(t, message, r.Message, msgAndArgs...)
	return r
}

// sha256Hex is the hash in an address's throttle key ("address:<hash>").
func sha256Hex(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return hex.EncodeToString(sum[:])
}

// lockMails are the lock notices box received for address.
func lockMails(t *testing.T, box *mailtest.Server, address string) int {
	t.Helper()
	settle(t)
	n := 0
	for _, m := range box.Messages() {
		if strings.Contains(strings.ToLower(m.To), strings.ToLower(address)) && strings.Contains(m.Subject, lockSubject) {
			n++
		}
	}
	return n
}

// failTen makes ten wrong attempts attemptGap apart from cl and returns the lock's end,
// checking that the first nine are the plain answer and the tenth the lock.
func failTen(t *testing.T, s *account.Service, clk *secClock, email string, cl account.Client) time.Time {
	t.Helper()
	ctx := context.Background()
	for i := 1; i <= 9; i++ {
		clk.Add(attemptGap)
		_, err := s.SignIn(ctx, email, "wrong password "+strconv.Itoa(i), cl)
		r := refusal(t, err, wrongCredentials, "attempt %d", i)
		assert.Zero(t, r.RetryAfter, "attempt %d", i)
	}
	clk.Add(attemptGap)
	until := clk.Now().Add(15 * time.Minute)
	_, err := s.SignIn(ctx, email, "wrong password 10", cl)
	r := refusal(t, err, auth.LockedMessage(until), "the tenth failure locks")
	assert.Equal(t, 15*time.Minute, r.RetryAfter)
	return until
}

var deviceTokenRe = regexp.MustCompile(`^d1\.([0-9]+)\.([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{43})$`)

func TestDeviceTokens(t *testing.T) {
	ctx := context.Background()
	s, _, clk := deviceService(t)
	u := newUser(t, "known@devices.example")
	cl := account.Client{IP: "192.0.2.1", UserAgent: "test"}

	first, err := s.SignIn(ctx, u.EmailAddress, accountPassword, cl)
	require.NoError(t, err)
	m := deviceTokenRe.FindStringSubmatch(first.DeviceToken)
	require.NotNil(t, m, "d1.<user id>.<nonce>.<HMAC>: %q", first.DeviceToken)
	assert.Equal(t, strconv.FormatInt(u.ID, 10), m[1])
	mac := hmac.New(sha256.New, testDeviceKey)
	mac.Write([]byte("d1." + m[1] + "." + m[2]))
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), m[3], "the HMAC of d1.<user id>.<nonce> under DeviceKey")
	assert.NotZero(t, first.DeviceID)
	var nonceHash string
	require.NoError(t, db.Store.DB.Get(&nonceHash, `SELECT nonce_hash FROM devices WHERE id = $1`, first.DeviceID))
	assert.NotContains(t, first.DeviceToken, nonceHash, "only the nonce's hash is stored")
	assert.NotEqual(t, m[2], nonceHash)

	clk.Add(time.Hour)
	again, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.1", DeviceToken: first.DeviceToken})
	require.NoError(t, err)
	assert.Equal(t, first.DeviceID, again.DeviceID, "the same device")
	assert.Equal(t, first.DeviceToken, again.DeviceToken, "the same token is handed back")
	var expires time.Time
	require.NoError(t, db.Store.DB.Get(&expires, `SELECT expires_at FROM devices WHERE id = $1`, first.DeviceID))
	assert.WithinDuration(t, clk.Now().Add(account.DeviceLifetime), expires, time.Second, "each sign-in keeps the device known longer")

	// Another browser without the token is a new device.
	other, err := s.SignIn(ctx, u.EmailAddress, accountPassword, cl)
	require.NoError(t, err)
	assert.NotEqual(t, first.DeviceID, other.DeviceID)
	assert.NotEqual(t, first.DeviceToken, other.DeviceToken)

	// Without a DeviceKey no token is handed out.
	s.DeviceKey = nil
	none, err := s.SignIn(ctx, u.EmailAddress, accountPassword, cl)
	require.NoError(t, err)
	assert.Empty(t, none.DeviceToken)
	assert.Zero(t, none.DeviceID)
}

// Ten wrong passwords from unknown devices lock the address for every unknown device,
// never for a device the owner already used; the owner is mailed once per lock.
func TestUnknownDevicesLockTheAddressNotTheKnownDevice(t *testing.T) {
	ctx := context.Background()
	s, box, clk := deviceService(t)
	u := newUser(t, "victim@devices.example")
	owner, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.10"})
	require.NoError(t, err)
	ownerCl := account.Client{IP: "192.0.2.10", DeviceToken: owner.DeviceToken}

	// The attacker: many clients, no token.
	until := failTen(t, s, clk, u.EmailAddress, account.Client{IP: "198.51.100.1", UserAgent: "attacker"})
	th, err := db.Store.SignInThrottle(ctx, "address:"+sha256Hex(u.EmailAddress))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures)
	require.NotNil(t, th.LockedUntil)
	assert.True(t, until.Equal(*th.LockedUntil))

	// While locked every unknown device is refused, even with the right password and
	// whatever spelling of the address; nothing more is counted.
	for i, email := range []string{u.EmailAddress, strings.ToUpper(u.EmailAddress), "  " + u.EmailAddress + " "} {
		clk.Add(10 * time.Second)
		_, err := s.SignIn(ctx, email, accountPassword, account.Client{IP: "198.51.100.2"})
		r := refusal(t, err, auth.LockedMessage(until), "unknown device %d", i)
		assert.Equal(t, until.Sub(clk.Now()), r.RetryAfter)
	}
	th, err = db.Store.SignInThrottle(ctx, "address:"+sha256Hex(u.EmailAddress))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures, "refused attempts are not checked or counted")

	// The owner's device gets in.
	res, err := s.SignIn(ctx, u.EmailAddress, accountPassword, ownerCl)
	require.NoError(t, err, "a lock of the unknown devices never keeps out a known one")
	assert.Equal(t, owner.DeviceID, res.DeviceID)
	assert.Equal(t, owner.DeviceToken, res.DeviceToken)
	// ... and that does not unlock the unknown devices.
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "198.51.100.3"})
	refusal(t, err, auth.LockedMessage(until))

	assert.Equal(t, 1, lockMails(t, box, u.EmailAddress), "one mail for the lock")
	for _, msg := range box.Messages() {
		if strings.Contains(msg.Subject, lockSubject) {
			assert.Contains(t, msg.Text, "/password/sendemail", "the mail shows the way back in")
		}
	}

	// After the lock the next failure locks again (the count goes on): one more mail.
	clk.Set(until.Add(time.Second))
	again := clk.Now().Add(15 * time.Minute)
	_, err = s.SignIn(ctx, u.EmailAddress, "wrong password 11", account.Client{IP: "198.51.100.4"})
	refusal(t, err, auth.LockedMessage(again), "the 11th failure locks at once")
	assert.Equal(t, 2, lockMails(t, box, u.EmailAddress), "once per lock")
}

// A known device's wrong passwords count for that device alone: ten lock it, while
// the unknown devices of the address keep their own count.
func TestKnownDeviceFailuresCountOnItsOwnKey(t *testing.T) {
	ctx := context.Background()
	s, box, clk := deviceService(t)
	u := newUser(t, "own-key@devices.example")
	dev, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.20"})
	require.NoError(t, err)
	devCl := account.Client{IP: "192.0.2.20", DeviceToken: dev.DeviceToken}
	until := failTen(t, s, clk, u.EmailAddress, devCl)

	th, err := db.Store.SignInThrottle(ctx, "device:"+strconv.FormatInt(dev.DeviceID, 10))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures)
	th, err = db.Store.SignInThrottle(ctx, "address:"+sha256Hex(u.EmailAddress))
	require.NoError(t, err)
	assert.Zero(t, th.Failures, "the address's unknown devices counted nothing")

	clk.Add(time.Minute)
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, devCl)
	refusal(t, err, auth.LockedMessage(until), "the device is locked, even with the right password")

	// Another, unknown device signs in: the address is not locked.
	fresh, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.21"})
	require.NoError(t, err)
	require.NotEqual(t, dev.DeviceID, fresh.DeviceID)
	assert.Equal(t, 0, lockMails(t, box, u.EmailAddress), "a known device's lock mails nobody")

	// Unknown devices lock the address on their own count; the fresh device, now known,
	// still gets in, and the locked device stays locked.
	addressUntil := failTen(t, s, clk, u.EmailAddress, account.Client{IP: "198.51.100.20"})
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "198.51.100.21"})
	refusal(t, err, auth.LockedMessage(addressUntil))
	res, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{IP: "192.0.2.21", DeviceToken: fresh.DeviceToken})
	require.NoError(t, err)
	assert.Equal(t, fresh.DeviceID, res.DeviceID)
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, devCl)
	refusal(t, err, auth.LockedMessage(until))
	assert.Equal(t, 1, lockMails(t, box, u.EmailAddress), "the address's lock mails the owner")

	// A success clears the device's own count only.
	clk.Set(until.Add(time.Minute))
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, devCl)
	require.NoError(t, err, "the device's lock ended")
	th, err = db.Store.SignInThrottle(ctx, "device:"+strconv.FormatInt(dev.DeviceID, 10))
	require.NoError(t, err)
	assert.Zero(t, th.Failures)
	th, err = db.Store.SignInThrottle(ctx, "address:"+sha256Hex(u.EmailAddress))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures)
}

// A token that is forged, someone else's, for an expired device, or presented when the
// service has no DeviceKey is an unknown device: the address's lock applies to it.
func TestBadDeviceTokensAreUnknownDevices(t *testing.T) {
	ctx := context.Background()
	s, _, clk := deviceService(t)
	u := newUser(t, "tokens@devices.example")
	other := newUser(t, "other@devices.example")
	keep, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{})
	require.NoError(t, err)
	expiring, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{})
	require.NoError(t, err)
	others, err := s.SignIn(ctx, other.EmailAddress, accountPassword, account.Client{})
	require.NoError(t, err)

	until := failTen(t, s, clk, u.EmailAddress, account.Client{IP: "198.51.100.30"})

	parts := strings.Split(keep.DeviceToken, ".")
	require.Len(t, parts, 4)
	flip := func(s string) string {
		b := []byte(s)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		return string(b)
	}
	otherKey := hmac.New(sha256.New, []byte("another key"))
	otherKey.Write([]byte("d1." + parts[1] + "." + parts[2]))
	foreignParts := strings.Split(others.DeviceToken, ".")
	_, err = db.Store.DB.Exec(`UPDATE devices SET expires_at = $2 WHERE id = $1`, expiring.DeviceID, clk.Now().Add(-time.Second))
	require.NoError(t, err)

	bad := []struct{ name, token string }{
		{"forged HMAC", parts[0] + "." + parts[1] + "." + parts[2] + "." + flip(parts[3])},
		{"another nonce under the same HMAC", parts[0] + "." + parts[1] + "." + flip(parts[2]) + "." + parts[3]},
		{"signed with another key", parts[0] + "." + parts[1] + "." + parts[2] + "." + base64.RawURLEncoding.EncodeToString(otherKey.Sum(nil))},
		{"another version", "d2." + parts[1] + "." + parts[2] + "." + parts[3]},
		{"too few parts", parts[0] + "." + parts[1] + "." + parts[2]},
		{"garbage", "not a token"},
		{"another user's token", others.DeviceToken},
		{"another user's token with this user's id", "d1." + parts[1] + "." + foreignParts[2] + "." + foreignParts[3]},
		{"this token under another user's id", "d1." + foreignParts[1] + "." + parts[2] + "." + parts[3]},
		{"an expired device", expiring.DeviceToken},
	}
	for _, tc := range bad {
		clk.Add(time.Second)
		_, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{DeviceToken: tc.token})
		refusal(t, err, auth.LockedMessage(until), tc.name)
	}

	s.DeviceKey = nil
	_, err = s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{DeviceToken: keep.DeviceToken})
	refusal(t, err, auth.LockedMessage(until), "no DeviceKey: every token is unknown")
	s.DeviceKey = testDeviceKey

	res, err := s.SignIn(ctx, u.EmailAddress, accountPassword, account.Client{DeviceToken: keep.DeviceToken})
	require.NoError(t, err, "the genuine token still gets in")
	assert.Equal(t, keep.DeviceID, res.DeviceID)

	// Another user's genuine token signs that user in on their own device only.
	res, err = s.SignIn(ctx, other.EmailAddress, accountPassword, account.Client{DeviceToken: others.DeviceToken})
	require.NoError(t, err)
	assert.Equal(t, others.DeviceID, res.DeviceID)
}

// An address without an account is counted, throttled and locked exactly like one with
// an account, and its lock mails nobody.
func TestUnknownAddressIsAnsweredLikeAKnownOne(t *testing.T) {
	ctx := context.Background()
	s, box, clk := deviceService(t)
	u := newUser(t, "exists@devices.example")
	const nobody = "nobody@devices.example"
	cl := account.Client{IP: "198.51.100.40"}

	try := func(email, password string) *account.Refusal {
		t.Helper()
		_, err := s.SignIn(ctx, email, password, cl)
		r, ok := account.AsRefusal(err)
		require.True(t, ok, "%s: want a *Refusal, got %v", email, err)
		return r
	}
	for i := 1; i <= 10; i++ {
		clk.Add(attemptGap)
		known, unknown := try(u.EmailAddress, "wrong password"), try(nobody, "wrong password")
		assert.Equal(t, *known, *unknown, "attempt %d", i)
		if i < 10 {
			assert.Equal(t, wrongCredentials, unknown.Message, "attempt %d", i)
		} else {
			assert.Equal(t, auth.LockedMessage(clk.Now().Add(15*time.Minute)), unknown.Message, "the tenth locks")
			assert.Equal(t, 15*time.Minute, unknown.RetryAfter)
		}
		if i == 4 {
			// Straight after the 4th failure, both must wait 2 s.
			known, unknown := try(u.EmailAddress, accountPassword), try(nobody, accountPassword)
			assert.Equal(t, *known, *unknown, "the wait")
			assert.Equal(t, auth.SlowDownMessage(2*time.Second), unknown.Message)
			assert.Equal(t, 2*time.Second, unknown.RetryAfter)
		}
	}
	clk.Add(time.Minute)
	known, unknown := try(u.EmailAddress, accountPassword), try(nobody, accountPassword)
	assert.Equal(t, *known, *unknown, "both locked")
	assert.Equal(t, 14*time.Minute, unknown.RetryAfter)

	th, err := db.Store.SignInThrottle(ctx, "address:"+sha256Hex(nobody))
	require.NoError(t, err)
	assert.Equal(t, 10, th.Failures)
	assert.NotNil(t, th.LockedUntil)

	assert.Equal(t, 1, lockMails(t, box, u.EmailAddress))
	assert.Len(t, box.Messages(), 1, "the unknown address's lock mailed nobody")
}
