package auth

import (
	"fmt"
	"time"
)

// Sign-in throttling, per account.
//
// DefaultThrottle limits online password guessing against one account:
//   - the first 3 consecutive failures cost nothing (typos happen);
//   - from the 3rd consecutive failure on, the next attempt must wait 1 s, then 2 s, 4 s,
//     8 s, 16 s, and 30 s from the 8th failure on (doubling, capped at 30 s), counted
//     from the last failure;
//   - the 10th consecutive failure locks the account for 15 minutes; once the lock ends
//     every further failure locks it again for 15 minutes, until a success;
//   - a successful sign-in (or a password reset) sets the failure count to 0 and clears
//     the lock.
//
// An attacker therefore gets 10 guesses in the first 91 seconds, then one per 15 minutes
// (96 a day). The price is that anyone who knows an e-mail address can keep that account
// locked; the password reset mail remains a way in, and per-IP rate limiting in front of
// the handlers limits how many accounts one source can lock.
//
// Decide and AfterFailure only compute. The store must record a failure with one atomic
// UPDATE (failures = failures + 1, last_failure_at, locked_until) so that parallel
// requests cannot each see the old count.
type Throttle struct {
	FailuresBeforeDelay int                              // failures at which delays start; 0 disables delays
	FailuresBeforeLock  int                              // failures at which the account locks; 0 disables locking
	Delay               func(failures int) time.Duration // wait after the failures-th consecutive failure; nil means none
	LockFor             time.Duration
}

const (
	defaultFailuresBeforeDelay = 3
	defaultFailuresBeforeLock  = 10
	defaultMaxDelay            = 30 * time.Second
	defaultLockFor             = 15 * time.Minute
)

// DefaultThrottle is the policy described above.
var DefaultThrottle = Throttle{
	FailuresBeforeDelay: defaultFailuresBeforeDelay,
	FailuresBeforeLock:  defaultFailuresBeforeLock,
	Delay:               defaultDelay,
	LockFor:             defaultLockFor,
}

// defaultDelay doubles from 1 s at the 3rd failure and stops at 30 s.
func defaultDelay(failures int) time.Duration {
	n := failures - defaultFailuresBeforeDelay
	if n < 0 {
		return 0
	}
	if n >= 5 { // 2^5 s already exceeds the cap; also keeps the shift from overflowing
		return defaultMaxDelay
	}
	return min(time.Second<<n, defaultMaxDelay)
}

// ThrottleDecision says whether a sign-in attempt may be checked at all. When Allowed is
// false, the handler answers without looking at the password, with LockedMessage(Until)
// if Locked, else SlowDownMessage(RetryAfter).
type ThrottleDecision struct {
	Allowed    bool
	RetryAfter time.Duration // how long until an attempt would be allowed (also for Retry-After)
	Locked     bool
	Until      time.Time // end of the lock, when Locked
}

// Decide judges an attempt at now for an account with failures consecutive failures,
// the last at lastFailure, and locked until lockedUntil (nil if never locked).
func (t Throttle) Decide(failures int, lastFailure time.Time, lockedUntil *time.Time, now time.Time) ThrottleDecision {
	if lockedUntil != nil && now.Before(*lockedUntil) {
		return ThrottleDecision{RetryAfter: lockedUntil.Sub(now), Locked: true, Until: *lockedUntil}
	}
	if t.Delay != nil && t.FailuresBeforeDelay > 0 && failures >= t.FailuresBeforeDelay {
		delay := t.Delay(failures)
		// Cap at delay: if another server's clock put lastFailure in our future, the
		// wait must still not exceed the policy.
		if wait := min(lastFailure.Add(delay).Sub(now), delay); wait > 0 {
			return ThrottleDecision{RetryAfter: wait}
		}
	}
	return ThrottleDecision{Allowed: true}
}

// AfterFailure returns the state to store after a failed attempt at now: the new count
// and, when the count reaches FailuresBeforeLock, the end of the lock, else nil. The
// count is not reset by a lock, so after the lock ends the next failure locks again.
func (t Throttle) AfterFailure(failures int, now time.Time) (newFailures int, lockUntil *time.Time) {
	newFailures = failures + 1
	if t.FailuresBeforeLock > 0 && newFailures >= t.FailuresBeforeLock {
		until := now.Add(t.LockFor)
		return newFailures, &until
	}
	return newFailures, nil
}

// jst is fixed rather than loaded with time.LoadLocation, so the message needs no tzdata
// in the container; Japan has no daylight saving time.
var jst = time.FixedZone("JST", 9*60*60)

// LockedMessage tells a locked-out user when to come back, in Japan time. The minute is
// rounded up so that trying at the time shown always works.
func LockedMessage(until time.Time) string {
	t := until.In(jst)
	if r := t.Truncate(time.Minute); !r.Equal(t) {
		t = r.Add(time.Minute)
	}
	return "ログインの失敗が続いたため、アカウントを一時的にロックしました。" +
		t.Format("2006年1月2日 15:04") + " 以降にもう一度お試しください。"
}

// SlowDownMessage asks the user to wait d, in whole seconds rounded up (at least 1).
func SlowDownMessage(d time.Duration) string {
	return fmt.Sprintf("ログインの失敗が続いています。%d秒ほど待ってからもう一度お試しください。", WaitSeconds(d))
}

// WaitSeconds is a wait in whole seconds, rounded up and at least 1: what Retry-After
// and the messages say, so that trying again then always works.
func WaitSeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}
