package auth

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"time"

	"github.com/boombuler/barcode/qr"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// TOTP (RFC 6238) second factor.
//
// Parameters are the ones Google Authenticator and Microsoft Authenticator assume and
// some of them ignore when told otherwise: HMAC-SHA1, 6 digits, 30-second steps, a
// 160-bit secret (the size RFC 4226 recommends). ValidateTOTP accepts the previous,
// current and next step (±30 s of clock skew) and refuses any step at or before the last
// one accepted, so each code works once.
const (
	totpPeriod     = 30
	totpSkew       = 1
	totpSecretSize = 20

	// TOTPQRCodeSize is the width and height in pixels of TOTPQRCodeDataURL's image.
	TOTPQRCodeSize = 256
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPKey is a new TOTP enrolment. Secret is base32 and must be stored sealed (see
// Sealer); URL is the otpauth:// URI the authenticator app reads from the QR code.
type TOTPKey struct {
	Secret string
	URL    string
}

// NewTOTP creates a secret for account (the user's e-mail address) shown under issuer
// (the service name) in the authenticator app.
func NewTOTP(issuer, account string) (TOTPKey, error) {
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer:      issuer,
		AccountName: account,
		Period:      totpPeriod,
		SecretSize:  totpSecretSize,
		Digits:      otp.DigitsSix,
		Algorithm:   otp.AlgorithmSHA1,
	})
	if err != nil {
		return TOTPKey{}, fmt.Errorf("auth: new totp: %w", err)
	}
	return TOTPKey{Secret: key.Secret(), URL: key.URL()}, nil
}

// totpQuietZone is the white margin, in modules, that ISO/IEC 18004 asks around a QR
// code. boombuler/barcode draws none, and on a dark page a phone camera may then fail
// to find the code, so it is part of the image.
const totpQuietZone = 4

const maxQRCodeSize = 2048

// TOTPQRCodePNG renders url as a size×size black-on-white PNG QR code with its quiet
// zone. Modules are scaled by a whole factor so they stay sharp; the rest is margin.
func TOTPQRCodePNG(url string, size int) ([]byte, error) {
	// Level M (15% recovery) keeps the code small enough to scan from a screen.
	code, err := qr.Encode(url, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("auth: qr code: %w", err)
	}
	// The image is size² bytes before compression; refuse sizes no page needs.
	if size > maxQRCodeSize {
		return nil, fmt.Errorf("auth: qr code size %d exceeds %d pixels", size, maxQRCodeSize)
	}
	modules := code.Bounds().Dx()
	scale := size / (modules + 2*totpQuietZone)
	if scale < 1 {
		return nil, fmt.Errorf("auth: qr code needs at least %d pixels, got %d", modules+2*totpQuietZone, size)
	}
	// A two-colour palette makes a 1-bit PNG: a few hundred bytes in a data: URL.
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.White, color.Black})
	offset := (size - modules*scale) / 2
	for y := 0; y < modules; y++ {
		for x := 0; x < modules; x++ {
			if c := color.GrayModel.Convert(code.At(x, y)).(color.Gray); c.Y >= 128 {
				continue
			}
			for dy := 0; dy < scale; dy++ {
				row := img.PixOffset(offset+x*scale, offset+y*scale+dy)
				for dx := 0; dx < scale; dx++ {
					img.Pix[row+dx] = 1
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("auth: qr code png: %w", err)
	}
	return buf.Bytes(), nil
}

// TOTPQRCodeDataURL renders url as a data:image/png;base64 URL for an <img src>. Inlining
// keeps the secret out of any server log or cache that a separate image request would
// pass through; the CSP allows img-src data:.
func TOTPQRCodeDataURL(url string) (string, error) {
	b, err := TOTPQRCodePNG(url, TOTPQRCodeSize)
	if err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b), nil
}

// ValidateTOTP checks code against secret at now. It accepts the codes of the steps
// now-30s, now and now+30s, but only for a step after lastUsedStep (0 if none yet).
// On success it returns the matched step, which the caller must store as the new
// lastUsedStep in the same transaction, so the same code cannot be used twice, neither
// by the user double-submitting nor by someone who watched it being typed.
func ValidateTOTP(secret, code string, now time.Time, lastUsedStep int64) (ok bool, step int64) {
	code = normalizeInput(code)
	if !isDigits(code, int(otp.DigitsSix)) {
		return false, 0
	}
	current := floorDiv(now.Unix(), totpPeriod)
	// Try the current step first, so that in the one-in-a-million case where a code
	// matches two steps the expected one is recorded. Every candidate is computed and
	// compared in constant time, whichever matches.
	for _, s := range []int64{current, current - totpSkew, current + totpSkew} {
		if s < 0 {
			continue
		}
		want, err := hotp.GenerateCodeCustom(secret, uint64(s), totpOpts)
		if err != nil {
			return false, 0 // not base32: a corrupt stored secret
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && s > lastUsedStep && !ok {
			ok, step = true, s
		}
	}
	return ok, step
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
