package store

import "testing"

func TestWithoutJIT(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://app@db/cardpay?sslmode=disable", "postgres://app@db/cardpay?jit=off&sslmode=disable"},
		{"postgresql://app:pw@db:5432/cardpay", "postgresql://app:pw@db:5432/cardpay?jit=off"},
		{"host=/tmp port=5432 dbname=cardpay", "host=/tmp port=5432 dbname=cardpay jit=off"},
		{"postgres://app@db/cardpay?jit=on", "postgres://app@db/cardpay?jit=on"}, // the operator's choice stands
	} {
		if got := withoutJIT(tc.in); got != tc.want {
			t.Errorf("withoutJIT(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
