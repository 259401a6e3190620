package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSystemTime(t *testing.T) {
	env := newEnv(t)
	c := env.client(t) // public: no sign-in
	for _, tc := range []struct {
		now               time.Time
		stamp, date, next string
		businessDay       bool
	}{
		// 23:30 UTC on 12/30 is the morning of 12/31 in Tokyo: the banks' year-end.
		{time.Date(2026, 12, 30, 23, 30, 0, 0, time.UTC), "2026-12-31T08:30:00+09:00", "2026-12-31", "2027-01-04", false},
		{time.Date(2027, 1, 4, 1, 0, 0, 0, time.UTC), "2027-01-04T10:00:00+09:00", "2027-01-04", "2027-01-05", true},
		// Friday before Golden Week.
		{time.Date(2027, 4, 30, 6, 59, 59, 0, time.UTC), "2027-04-30T15:59:59+09:00", "2027-04-30", "2027-05-06", true},
		// Saturday.
		{time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC), "2026-11-22T00:00:00+09:00", "2026-11-22", "2026-11-24", false},
	} {
		env.clock.Set(tc.now)
		r := c.get("/system/time")
		require.Equal(t, http.StatusOK, r.Status, r.String())
		assert.Equal(t, map[string]any{
			"now": tc.stamp, "date": tc.date, "bank_business_day": tc.businessDay, "next_bank_business_day": tc.next,
		}, r.Body, tc.now)
	}
}
