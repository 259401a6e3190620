package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDefaultThrottleDelay(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{0, 0}, {1, 0}, {2, 0},
		{3, 1 * time.Second},
		{4, 2 * time.Second},
		{5, 4 * time.Second},
		{6, 8 * time.Second},
		{7, 16 * time.Second},
		{8, 30 * time.Second},
		{9, 30 * time.Second},
		{70, 30 * time.Second},
		{1 << 40, 30 * time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DefaultThrottle.Delay(tt.failures), "failures=%d", tt.failures)
	}
	assert.Equal(t, 3, DefaultThrottle.FailuresBeforeDelay)
	assert.Equal(t, 10, DefaultThrottle.FailuresBeforeLock)
	assert.Equal(t, 15*time.Minute, DefaultThrottle.LockFor)
}

func TestThrottleDecide(t *testing.T) {
	now := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	allowed := ThrottleDecision{Allowed: true}
	wait := func(d time.Duration) ThrottleDecision { return ThrottleDecision{RetryAfter: d} }
	locked := func(until *time.Time) ThrottleDecision {
		return ThrottleDecision{RetryAfter: until.Sub(now), Locked: true, Until: *until}
	}

	tests := []struct {
		name        string
		throttle    Throttle
		failures    int
		sinceLast   time.Duration
		lockedUntil *time.Time
		want        ThrottleDecision
	}{
		{"no failures", DefaultThrottle, 0, 0, nil, allowed},
		{"2 failures, no delay yet", DefaultThrottle, 2, 0, nil, allowed},
		{"3 failures, just now", DefaultThrottle, 3, 0, nil, wait(time.Second)},
		{"3 failures, 500 ms ago", DefaultThrottle, 3, 500 * time.Millisecond, nil, wait(500 * time.Millisecond)},
		{"3 failures, 1 s ago", DefaultThrottle, 3, time.Second, nil, allowed},
		{"4 failures, 1 s ago", DefaultThrottle, 4, time.Second, nil, wait(time.Second)},
		{"4 failures, 2 s ago", DefaultThrottle, 4, 2 * time.Second, nil, allowed},
		{"5 failures, just now", DefaultThrottle, 5, 0, nil, wait(4 * time.Second)},
		{"7 failures, just now", DefaultThrottle, 7, 0, nil, wait(16 * time.Second)},
		{"8 failures, just now (cap)", DefaultThrottle, 8, 0, nil, wait(30 * time.Second)},
		{"9 failures, 29 s ago", DefaultThrottle, 9, 29 * time.Second, nil, wait(time.Second)},
		{"9 failures, 30 s ago", DefaultThrottle, 9, 30 * time.Second, nil, allowed},
		{"last failure in the future is capped", DefaultThrottle, 3, -10 * time.Second, nil, wait(time.Second)},
		{"locked, just now", DefaultThrottle, 10, 0, at(15 * time.Minute), locked(at(15 * time.Minute))},
		{"locked, 1 s left", DefaultThrottle, 10, 15*time.Minute - time.Second, at(time.Second), locked(at(time.Second))},
		{"lock ends exactly now", DefaultThrottle, 10, 15 * time.Minute, at(0), allowed},
		{"lock ended a minute ago", DefaultThrottle, 10, 16 * time.Minute, at(-time.Minute), allowed},
		{"old lock, counter reset by a success", DefaultThrottle, 0, 0, at(-time.Hour), allowed},
		{"lock wins over delay", DefaultThrottle, 11, 0, at(time.Minute), locked(at(time.Minute))},
		{"zero throttle never limits", Throttle{}, 1000, 0, nil, allowed},
		{"no Delay func", Throttle{FailuresBeforeDelay: 1}, 5, 0, nil, allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.throttle.Decide(tt.failures, now.Add(-tt.sinceLast), tt.lockedUntil, now)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestThrottleAfterFailure(t *testing.T) {
	now := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		throttle     Throttle
		failures     int
		wantFailures int
		wantLock     bool
	}{
		{"first failure", DefaultThrottle, 0, 1, false},
		{"third failure", DefaultThrottle, 2, 3, false},
		{"ninth failure", DefaultThrottle, 8, 9, false},
		{"tenth failure locks", DefaultThrottle, 9, 10, true},
		{"failure after a lock ended locks again", DefaultThrottle, 10, 11, true},
		{"locking disabled", Throttle{}, 50, 51, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, until := tt.throttle.AfterFailure(tt.failures, now)
			assert.Equal(t, tt.wantFailures, n)
			if tt.wantLock {
				if assert.NotNil(t, until) {
					assert.Equal(t, now.Add(15*time.Minute), *until)
				}
			} else {
				assert.Nil(t, until)
			}
		})
	}
}

// TestThrottleGuessingRate plays a guesser who tries as soon as allowed, against
// the documented limits: 10 guesses in 91 seconds, then one per 15 minutes.
func TestThrottleGuessingRate(t *testing.T) {
	start := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	now := start
	var failures int
	var last time.Time
	var lockedUntil *time.Time
	var guesses []time.Duration
	for now.Sub(start) < time.Hour {
		d := DefaultThrottle.Decide(failures, last, lockedUntil, now)
		if !d.Allowed {
			now = now.Add(d.RetryAfter)
			continue
		}
		guesses = append(guesses, now.Sub(start))
		var lock *time.Time
		failures, lock = DefaultThrottle.AfterFailure(failures, now)
		last = now
		if lock != nil {
			lockedUntil = lock
		}
	}
	s := time.Second
	assert.Equal(t, []time.Duration{
		0, 0, 0, // free
		1 * s, 3 * s, 7 * s, 15 * s, 31 * s, 61 * s, 91 * s, // 1, 2, 4, 8, 16, 30, 30 s apart; the 10th locks
		91*s + 15*time.Minute, 91*s + 30*time.Minute, 91*s + 45*time.Minute,
	}, guesses)
}

func TestLockedMessage(t *testing.T) {
	jstLoc := time.FixedZone("Asia/Tokyo", 9*3600)
	tests := []struct {
		name  string
		until time.Time
		want  string
	}{
		{"on the minute, UTC", time.Date(2026, 12, 25, 0, 5, 0, 0, time.UTC), "2026年12月25日 09:05"},
		{"rounded up to the next minute", time.Date(2026, 12, 25, 0, 4, 30, 0, time.UTC), "2026年12月25日 09:05"},
		{"one nanosecond past rounds up", time.Date(2026, 12, 25, 0, 4, 0, 1, time.UTC), "2026年12月25日 09:05"},
		{"already in Japan time", time.Date(2026, 12, 25, 9, 5, 0, 0, jstLoc), "2026年12月25日 09:05"},
		{"crosses midnight into the next day in Japan", time.Date(2027, 1, 4, 23, 59, 1, 0, time.UTC), "2027年1月5日 09:00"},
		{"from another zone", time.Date(2026, 12, 24, 19, 5, 0, 0, time.FixedZone("EST", -5*3600)), "2026年12月25日 09:05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, "ログインの失敗が続いたため、アカウントを一時的にロックしました。"+tt.want+" 以降にもう一度お試しください。", LockedMessage(tt.until))
		})
	}
}

func TestSlowDownMessage(t *testing.T) {
	tests := []struct {
		d    time.Duration
		secs string
	}{
		{time.Second, "1"},
		{1500 * time.Millisecond, "2"},
		{100 * time.Millisecond, "1"},
		{0, "1"},
		{-time.Second, "1"},
		{30 * time.Second, "30"},
	}
	for _, tt := range tests {
		assert.Equal(t, "ログインの失敗が続いています。"+tt.secs+"秒ほど待ってからもう一度お試しください。", SlowDownMessage(tt.d), tt.d.String())
	}
}
