package auth

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/boombuler/barcode/qr"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTOTP(t *testing.T) {
	key, err := NewTOTP("cardpay", "keiri@example.co.jp")
	require.NoError(t, err)

	secret, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(key.Secret)
	require.NoError(t, err)
	assert.Len(t, secret, 20, "160-bit secret")

	u, err := url.Parse(key.URL)
	require.NoError(t, err)
	assert.Equal(t, "otpauth", u.Scheme)
	assert.Equal(t, "totp", u.Host)
	assert.Equal(t, "/cardpay:keiri@example.co.jp", u.Path)
	q := u.Query()
	assert.Equal(t, key.Secret, q.Get("secret"))
	assert.Equal(t, "cardpay", q.Get("issuer"))
	assert.Equal(t, "SHA1", q.Get("algorithm"))
	assert.Equal(t, "6", q.Get("digits"))
	assert.Equal(t, "30", q.Get("period"))

	other, err := NewTOTP("cardpay", "keiri@example.co.jp")
	require.NoError(t, err)
	assert.NotEqual(t, key.Secret, other.Secret)

	// The secret we return is one the authenticator and ValidateTOTP agree on.
	now := time.Date(2026, 12, 25, 9, 0, 10, 0, time.UTC)
	code, err := totp.GenerateCode(key.Secret, now)
	require.NoError(t, err)
	ok, _ := ValidateTOTP(key.Secret, code, now, 0)
	assert.True(t, ok)

	for _, missing := range [][2]string{{"", "a@example.com"}, {"cardpay", ""}} {
		_, err := NewTOTP(missing[0], missing[1])
		assert.Error(t, err, "%q", missing)
	}
}

func TestValidateTOTP(t *testing.T) {
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	at := time.Date(2026, 12, 25, 9, 0, 15, 0, time.UTC) // 15 s into its step
	step := at.Unix() / 30
	opts := totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	code, err := totp.GenerateCodeCustom(secret, at, opts)
	require.NoError(t, err)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	fullWidth := strings.Map(func(r rune) rune { return r + ('０' - '0') }, code)

	tests := []struct {
		name     string
		secret   string
		code     string
		now      time.Time
		lastUsed int64
		wantOK   bool
		wantStep int64
	}{
		{"same time", secret, code, at, 0, true, step},
		{"same step, end", secret, code, at.Add(14 * time.Second), 0, true, step},
		{"30 s later (previous step)", secret, code, at.Add(30 * time.Second), 0, true, step},
		{"30 s earlier (next step)", secret, code, at.Add(-30 * time.Second), 0, true, step},
		{"60 s later", secret, code, at.Add(60 * time.Second), 0, false, 0},
		{"60 s earlier", secret, code, at.Add(-60 * time.Second), 0, false, 0},
		{"90 s later", secret, code, at.Add(90 * time.Second), 0, false, 0},
		{"90 s earlier", secret, code, at.Add(-90 * time.Second), 0, false, 0},
		{"replay of the same step", secret, code, at, step, false, 0},
		{"replay 30 s later", secret, code, at.Add(30 * time.Second), step, false, 0},
		{"older step already used", secret, code, at, step + 1, false, 0},
		{"previous step used", secret, code, at, step - 1, true, step},
		{"full-width digits", secret, fullWidth, at, 0, true, step},
		{"with space and hyphen", secret, code[:3] + " - " + code[3:], at, 0, true, step},
		{"lower-case secret", strings.ToLower(secret), code, at, 0, true, step},
		{"wrong code", secret, wrong, at, 0, false, 0},
		{"five digits", secret, code[:5], at, 0, false, 0},
		{"seven digits", secret, code + "0", at, 0, false, 0},
		{"empty", secret, "", at, 0, false, 0},
		{"corrupt secret", "not base32!", code, at, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, gotStep := ValidateTOTP(tt.secret, tt.code, tt.now, tt.lastUsed)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantStep, gotStep)
		})
	}
}

// TestValidateTOTPRFC6238 checks against the RFC 6238 appendix B vectors (SHA1, ASCII
// secret "12345678901234567890"), truncated to the 6 digits we use.
func TestValidateTOTPRFC6238(t *testing.T) {
	secret := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	tests := []struct {
		unix int64
		code string
	}{
		{59, "287082"},
		{1111111109, "081804"},
		{1111111111, "050471"},
		{1234567890, "005924"},
		{2000000000, "279037"},
		{20000000000, "353130"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			ok, step := ValidateTOTP(secret, tt.code, time.Unix(tt.unix, 0), 0)
			assert.True(t, ok)
			assert.Equal(t, tt.unix/30, step)
		})
	}
}

func TestTOTPQRCodePNG(t *testing.T) {
	key, err := NewTOTP("cardpay", "keiri@example.co.jp")
	require.NoError(t, err)

	for _, size := range []int{200, 256, 401} {
		b, err := TOTPQRCodePNG(key.URL, size)
		require.NoError(t, err)
		img, format, err := image.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Equal(t, "png", format)
		assert.Equal(t, image.Rect(0, 0, size, size), img.Bounds())
		assertQRPixels(t, key.URL, img)
	}

	_, err = TOTPQRCodePNG(key.URL, 40)
	assert.ErrorContains(t, err, "pixels")
	_, err = TOTPQRCodePNG(key.URL, 0)
	assert.Error(t, err)
	_, err = TOTPQRCodePNG(key.URL, 100_000)
	assert.ErrorContains(t, err, "exceeds")
}

// assertQRPixels checks, without a QR decoder, that img draws the same modules as
// boombuler's encoder inside a white quiet zone of at least 4 modules.
func assertQRPixels(t *testing.T, content string, img image.Image) {
	t.Helper()
	code, err := qr.Encode(content, qr.M, qr.Auto)
	require.NoError(t, err)
	n := code.Bounds().Dx()
	size := img.Bounds().Dx()
	scale := size / (n + 2*totpQuietZone)
	offset := (size - n*scale) / 2
	require.GreaterOrEqual(t, offset, totpQuietZone*scale)

	dark := func(c color.Color) bool { return color.GrayModel.Convert(c).(color.Gray).Y < 128 }
	for i := 0; i < size; i++ {
		for _, p := range []image.Point{{i, 0}, {0, i}, {i, size - 1}, {size - 1, i}, {i, offset - 1}, {offset - 1, i}} {
			require.False(t, dark(img.At(p.X, p.Y)), "quiet zone at %v", p)
		}
	}
	for y := range n {
		for x := range n {
			// Check the middle and a corner of every module's square.
			for _, d := range []int{0, scale / 2, scale - 1} {
				got := dark(img.At(offset+x*scale+d, offset+y*scale+d))
				require.Equal(t, dark(code.At(x, y)), got, "module %d,%d", x, y)
			}
		}
	}
}

func TestTOTPQRCodeDataURL(t *testing.T) {
	key, err := NewTOTP("cardpay", "keiri@example.co.jp")
	require.NoError(t, err)
	u, err := TOTPQRCodeDataURL(key.URL)
	require.NoError(t, err)

	const prefix = "data:image/png;base64,"
	require.True(t, strings.HasPrefix(u, prefix), u[:min(40, len(u))])
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(u, prefix))
	require.NoError(t, err)
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, TOTPQRCodeSize, cfg.Width)
	assert.Equal(t, TOTPQRCodeSize, cfg.Height)
	assert.Less(t, len(u), 4096, "1-bit PNG keeps the page small")
}

func TestFloorDiv(t *testing.T) {
	tests := []struct{ a, b, want int64 }{
		{0, 30, 0}, {29, 30, 0}, {30, 30, 1}, {-1, 30, -1}, {-30, 30, -1}, {-31, 30, -2},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, floorDiv(tt.a, tt.b), "%d/%d", tt.a, tt.b)
	}
}
