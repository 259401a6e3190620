package files

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signer makes and checks the app's own short-lived URL tokens for invoice
// files: a download of one file (5 minutes) or an upload slot (10 minutes; the
// file is a random number there, so that every upload URL differs and takes
// its own one upload). The token carries the buyer, the file and the expiry, and an
// HMAC-SHA256 with the app's SECRET_KEY over them and the purpose, so it works
// for one purpose on one file of one buyer until it expires, whichever
// backend keeps the bytes, and without a session (outside clients may use
// it). It is URL-path safe: "<buyer>.<file>.<expiry unix>.<base64url mac>".
type Signer struct {
	Key []byte
}

// URLKeyInfo names the signing key derived from SECRET_KEY (auth.DeriveKey) for these
// URLs, so that every instance signs and checks them alike.
const URLKeyInfo = "cardpay invoice file urls"

var (
	// ErrURLExpired: the token was genuine but its time is up.
	ErrURLExpired = errors.New("files: signed URL expired")
	// ErrURLInvalid: the token was not made by us for this purpose (altered,
	// truncated, for another file or another buyer, or another deployment).
	ErrURLInvalid = errors.New("files: signed URL invalid")
)

func (s Signer) mac(purpose string, buyerID, fileID, expires int64) []byte {
	h := hmac.New(sha256.New, s.Key)
	// Newline-separated: no field can run into the next.
	fmt.Fprintf(h, "cardpay-file-url\n%s\n%d\n%d\n%d", purpose, buyerID, fileID, expires)
	return h.Sum(nil)
}

// Sign returns the token letting buyerID use purpose ("download", "upload")
// on fileID (a random number for an upload) until expires (whole seconds).
func (s Signer) Sign(purpose string, buyerID, fileID int64, expires time.Time) string {
	if len(s.Key) == 0 {
		panic("files: Signer.Key is empty")
	}
	exp := expires.Unix()
	return fmt.Sprintf("%d.%d.%d.%s", buyerID, fileID, exp,
		base64.RawURLEncoding.EncodeToString(s.mac(purpose, buyerID, fileID, exp)))
}

// Verify checks a token for purpose at now and returns the buyer and file it
// was made for. The caller must still load the file as that buyer's
// (store.InvoiceFile scopes by buyer). The MAC is checked first and in
// constant time, so an altered token is ErrURLInvalid whatever its expiry says.
func (s Signer) Verify(purpose, token string, now time.Time) (buyerID, fileID int64, err error) {
	parts := strings.Split(token, ".")
	if len(s.Key) == 0 || len(parts) != 4 {
		return 0, 0, ErrURLInvalid
	}
	buyerID, err1 := strconv.ParseInt(parts[0], 10, 64)
	fileID, err2 := strconv.ParseInt(parts[1], 10, 64)
	exp, err3 := strconv.ParseInt(parts[2], 10, 64)
	sig, err4 := base64.RawURLEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || buyerID <= 0 || fileID < 0 ||
		// Only the canonical spelling: "+7" or "07" would verify the same MAC.
		parts[0] != strconv.FormatInt(buyerID, 10) || parts[1] != strconv.FormatInt(fileID, 10) ||
		parts[2] != strconv.FormatInt(exp, 10) ||
		// Base64's last character has spare bits a lenient decoder ignores: a token has
		// one spelling, so that its use can be recorded by its text (one-use uploads).
		parts[3] != base64.RawURLEncoding.EncodeToString(sig) {
		return 0, 0, ErrURLInvalid
	}
	if !hmac.Equal(sig, s.mac(purpose, buyerID, fileID, exp)) {
		return 0, 0, ErrURLInvalid
	}
	if !now.Before(time.Unix(exp, 0)) {
		return 0, 0, ErrURLExpired
	}
	return buyerID, fileID, nil
}
