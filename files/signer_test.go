package files_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/files"
)

func TestSigner(t *testing.T) {
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	s := files.Signer{Key: []byte("test-secret-key-0123456789abcdef")}
	exp := now.Add(5 * time.Minute)
	tok := s.Sign("download", 41, 7, exp)
	require.Regexp(t, `^41\.7\.[0-9]+\.[A-Za-z0-9_-]+$`, tok, "safe in a URL path")

	b, f, err := s.Verify("download", tok, now)
	require.NoError(t, err)
	require.Equal(t, [2]int64{41, 7}, [2]int64{b, f})

	parts := strings.Split(tok, ".")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	sig := []byte(parts[3])
	if sig[3] == 'A' {
		sig[3] = 'B'
	} else {
		sig[3] = 'A'
	}

	for _, tc := range []struct {
		name, purpose, token string
		signer               files.Signer
	}{
		{"another file", "download", with(1, "8"), s},
		{"another buyer", "download", with(0, "42"), s},
		{"a later expiry written in", "download", with(2, "9999999999"), s},
		{"a download token used to upload", "upload", tok, s},
		{"one character of the signature changed", "download", with(3, string(sig)), s},
		{"signature cut short", "download", with(3, parts[3][:len(parts[3])-2]), s},
		{"no signature", "download", strings.Join(parts[:3], "."), s},
		{"an extra part", "download", tok + ".x", s},
		{"the same number spelled otherwise", "download", with(1, "07"), s},
		{"a signed number spelled with +", "download", with(0, "+41"), s},
		{"empty", "download", "", s},
		{"another key (another deployment)", "download", tok, files.Signer{Key: []byte("another-secret")}},
		{"no key at all", "download", tok, files.Signer{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.signer.Verify(tc.purpose, tc.token, now)
			require.ErrorIs(t, err, files.ErrURLInvalid)
		})
	}

	t.Run("valid until the second before expiry, then expired", func(t *testing.T) {
		_, _, err := s.Verify("download", tok, exp.Add(-time.Second))
		require.NoError(t, err)
		_, _, err = s.Verify("download", tok, exp)
		require.ErrorIs(t, err, files.ErrURLExpired)
		_, _, err = s.Verify("download", tok, exp.Add(time.Hour))
		require.ErrorIs(t, err, files.ErrURLExpired)
		// An expired token that was also altered is invalid, not merely expired.
		_, _, err = s.Verify("download", with(1, "8"), exp.Add(time.Hour))
		require.ErrorIs(t, err, files.ErrURLInvalid)
	})

	t.Run("an upload slot is bound to its buyer", func(t *testing.T) {
		up := s.Sign("upload", 41, 0, now.Add(10*time.Minute))
		b, f, err := s.Verify("upload", up, now)
		require.NoError(t, err)
		require.Equal(t, [2]int64{41, 0}, [2]int64{b, f})
		_, _, err = s.Verify("upload", strings.Replace(up, "41.", "42.", 1), now)
		require.ErrorIs(t, err, files.ErrURLInvalid)
	})
}

// The kernel (handlers/web) names the signer by this interface (web.URLSigner).
var _ interface {
	Sign(purpose string, buyerID, fileID int64, expires time.Time) string
	Verify(purpose, token string, now time.Time) (buyerID, fileID int64, err error)
} = files.Signer{}
