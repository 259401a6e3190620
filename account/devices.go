package account

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/store"
)

// Device tokens (OWASP's "device cookies"): a browser or API client that signed in
// successfully gets "d1.<user id>.<nonce>.<HMAC>" — the browser as the cardpay_device
// cookie, the API client as device_token. Failed sign-ins are counted per address for
// every unknown device together, and per device for each known one, so an attacker who
// locks the unknown devices out never locks out a device the owner already used.

// DeviceLifetime is how long a device stays known after its last sign-in.
const DeviceLifetime = 180 * 24 * time.Hour

// DeviceKeyInfo derives the device tokens' key from SECRET_KEY (auth.DeriveKey).
const DeviceKeyInfo = "cardpay device token v1"

// Client is who is asking: the client's IP, its user agent and the device token it
// presented ("" when none).
type Client struct {
	IP          string
	UserAgent   string
	DeviceToken string
}

func (s *Service) deviceMAC(userID int64, nonce string) string {
	m := hmac.New(sha256.New, s.DeviceKey)
	m.Write([]byte("d1." + strconv.FormatInt(userID, 10) + "." + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func nonceHash(nonce string) string {
	sum := sha256.Sum256([]byte(nonce))
	return hex.EncodeToString(sum[:])
}

// knownDevice is the id of u's device that token names, or 0 when the token is
// missing, forged, someone else's or expired.
func (s *Service) knownDevice(ctx context.Context, userID int64, token string) (int64, error) {
	if token == "" || len(s.DeviceKey) == 0 {
		return 0, nil
	}
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != "d1" || parts[1] != strconv.FormatInt(userID, 10) {
		return 0, nil
	}
	if !hmac.Equal([]byte(parts[3]), []byte(s.deviceMAC(userID, parts[2]))) {
		return 0, nil
	}
	d, err := s.Store.Device(ctx, userID, nonceHash(parts[2]), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return d.ID, nil
}

// rememberDevice makes the device known after a successful sign-in: a known device's end
// moves on, an unknown one gets a new token. It returns the token to hand out and the
// device's id.
func (s *Service) rememberDevice(ctx context.Context, userID, deviceID int64, token string) (string, int64, error) {
	now := s.now()
	if deviceID != 0 {
		return token, deviceID, s.Store.UseDevice(ctx, deviceID, now, now.Add(DeviceLifetime))
	}
	if len(s.DeviceKey) == 0 {
		return "", 0, nil
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", 0, err
	}
	nonce := base64.RawURLEncoding.EncodeToString(b)
	id, err := s.Store.CreateDevice(ctx, userID, nonceHash(nonce), now, now.Add(DeviceLifetime))
	if err != nil {
		return "", 0, err
	}
	return "d1." + strconv.FormatInt(userID, 10) + "." + nonce + "." + s.deviceMAC(userID, nonce), id, nil
}

// throttleKey is whose failures an attempt counts towards: the known device's own, or
// the address's (every unknown device of it together, whether or not it has an account).
func throttleKey(email string, deviceID int64) string {
	if deviceID != 0 {
		return "device:" + strconv.FormatInt(deviceID, 10)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "address:" + hex.EncodeToString(sum[:])
}

// allowed refuses an attempt while key is locked or must wait (auth.Throttle), on field:
// the form's field the refusal is shown by.
func (s *Service) allowed(ctx context.Context, key, field string) error {
	t, err := s.Store.SignInThrottle(ctx, key)
	if err != nil {
		return err
	}
	now := s.now()
	d := s.Throttle.Decide(t.Failures, t.LastFailedAt, t.LockedUntil, now)
	switch {
	case d.Locked:
		return &Refusal{Field: field, Message: auth.LockedMessage(d.Until), RetryAfter: d.Until.Sub(now)}
	case !d.Allowed:
		return &Refusal{Field: field, Message: auth.SlowDownMessage(d.RetryAfter), RetryAfter: d.RetryAfter}
	}
	return nil
}

// failed counts a failure of key and returns the refusal to show: r, or the lock's
// message when this failure locked. When an address's unknown devices lock, its owner
// (if the address has an account) is mailed once for that lock, with the way to reset
// the password; an address without an account does the same work with a mail to nobody.
func (s *Service) failed(ctx context.Context, u *store.User, key string, cl Client, r *Refusal) error {
	now := s.now()
	var attempt store.FailedSignIn
	if u != nil {
		attempt = store.FailedSignIn{UserID: u.ID, IP: cl.IP, UserAgent: cl.UserAgent}
	}
	n, err := s.Store.AddSignInFailure(ctx, key, now, attempt)
	if err != nil {
		return err
	}
	_, lock := s.Throttle.AfterFailure(n-1, now)
	if lock == nil {
		return r
	}
	var notice store.NewJob
	if u != nil && strings.HasPrefix(key, "address:") {
		notice, err = s.notice(mail.AccountLocked(u.EmailAddress, s.ServiceName, *lock, s.BaseURL+"/password/sendemail"))
	} else {
		notice, err = s.mailJob(mail.AccountLocked("", s.ServiceName, *lock, ""), mailNowhere)
	}
	if err != nil {
		return err
	}
	if _, err := s.Store.LockSignIns(ctx, key, *lock, now, notice); err != nil {
		return err
	}
	return &Refusal{Field: r.Field, Message: auth.LockedMessage(*lock), RetryAfter: lock.Sub(now)}
}

// checkCurrentPassword is the message for a wrong or missing current password, or "".
// Changes to how the user signs in ask for it, so that a session left open on a shared
// computer is not enough to take the account over; a wrong one counts like a failed
// sign-in of the session's device, so a stolen session cannot guess the password
// either. While that device must wait or is locked, the answer is the throttle's
// *Refusal on the field (429 with Retry-After), whatever was typed.
func (s *Service) checkCurrentPassword(ctx context.Context, u store.User, password string) (string, error) {
	if password == "" {
		return msgCurrentPasswordRequired, nil
	}
	key := throttleKey(u.EmailAddress, CallerOf(ctx).DeviceID)
	if err := s.allowed(ctx, key, "current_password"); err != nil {
		return "", err
	}
	if auth.CheckPassword(u.PasswordHash, password) != nil {
		err := s.failed(ctx, &u, key, CallerOf(ctx).Client, &Refusal{Field: "current_password", Message: msgCurrentPasswordWrong})
		if r, ok := AsRefusal(err); ok && r.RetryAfter == 0 {
			return r.Message, nil
		}
		return "", err // the lock this failure set, on the same field
	}
	return "", nil
}
