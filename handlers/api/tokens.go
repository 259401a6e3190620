package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/web"
	"cardpay/store"
)

// Tokens (DESIGN.md §4 "API auth"):
//   - access_token: opaque, 256 random bits, stored hashed, 15 minutes. Sent as
//     X-Access-Token. It is what the server revokes and expires.
//   - id_token: a compact JWT (HS256) saying who the caller is: iss, sub (user id),
//     buyer_id, email, sid (the sign-in's family id), iat, exp (= the access token's
//     end). Sent as Authorization: Bearer. The key is derived from SECRET_KEY and never
//     leaves the server, so clients may read the claims but cannot mint one. A call
//     needs both, and both must come from the same sign-in.
//   - refresh_token: opaque, stored hashed, 30 days, single use: POST users/token
//     exchanges it for a new triple; presenting it a second time revokes the sign-in.

// tokenSet is the answer of login, login_2auth and users/token.
type tokenSet struct {
	AccessToken      string `json:"access_token"`
	IDToken          string `json:"id_token"`
	RefreshToken     string `json:"refresh_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int    `json:"expires_in"`
	RefreshExpiresIn int    `json:"refresh_expires_in"`
	// DeviceToken makes this client a known device at its next login (send it back as
	// device_token); only login answers it.
	DeviceToken string `json:"device_token,omitempty"`
}

const idTokenIssuer = "cardpay"

// idClaims are the id_token's claims.
type idClaims struct {
	Issuer   string `json:"iss"`
	Subject  string `json:"sub"`
	BuyerID  int64  `json:"buyer_id"`
	Email    string `json:"email"`
	FamilyID string `json:"sid"`
	IssuedAt int64  `json:"iat"`
	Expires  int64  `json:"exp"`
}

// deriveIDTokenKey gives the id_token its own key, as auth does for codes and sealing.
func deriveIDTokenKey(secretKey string) []byte {
	return auth.DeriveKey(secretKey, "cardpay api id_token")
}

var (
	b64 = base64.RawURLEncoding
	// jwtHeader is the only header we issue and the only one we accept: no "alg":"none",
	// no RS/HS confusion, no key ids to look up.
	jwtHeader = b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

	errBadJWT = errors.New("api: malformed or forged id_token")
)

// maxJWTLen bounds what is parsed from a header; ours are about 300 bytes.
const maxJWTLen = 2048

func signJWT(key []byte, c idClaims) string {
	payload, _ := json.Marshal(c)
	signing := jwtHeader + "." + b64.EncodeToString(payload)
	return signing + "." + b64.EncodeToString(mac(key, signing))
}

func mac(key []byte, s string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return h.Sum(nil)
}

// verifyJWT checks the signature and returns the claims; expiry is the caller's call,
// because an expired id_token with a live sign-in means "refresh", not "sign in".
func verifyJWT(key []byte, tok string) (idClaims, error) {
	if len(tok) > maxJWTLen {
		return idClaims{}, errBadJWT
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] != jwtHeader {
		return idClaims{}, errBadJWT
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, mac(key, parts[0]+"."+parts[1])) {
		return idClaims{}, errBadJWT
	}
	payload, err := b64.DecodeString(parts[1])
	if err != nil {
		return idClaims{}, errBadJWT
	}
	var c idClaims
	if err := json.Unmarshal(payload, &c); err != nil || c.Issuer != idTokenIssuer || c.Subject == "" {
		return idClaims{}, errBadJWT
	}
	return c, nil
}

// newTokens draws an access and a refresh token and says when each ends.
func (s *server) newTokens() (access, refresh string, newAccess, newRefresh store.NewAPIToken, err error) {
	now := s.Now()
	access, accessHash, err := auth.NewToken()
	if err != nil {
		return
	}
	refresh, refreshHash, err := auth.NewToken()
	if err != nil {
		return
	}
	return access, refresh,
		store.NewAPIToken{Hash: accessHash, ExpiresAt: now.Add(s.accessTokenTTL)},
		store.NewAPIToken{Hash: refreshHash, ExpiresAt: now.Add(refreshTokenTTL)}, nil
}

// tokenSetFor completes a triple with the id_token of u in family f.
func (s *server) tokenSetFor(u store.User, f store.APITokenFamily, access, refresh string, accessEnd time.Time) tokenSet {
	now := s.Now()
	id := signJWT(s.idKey, idClaims{
		Issuer: idTokenIssuer, Subject: strconv.FormatInt(u.ID, 10), BuyerID: u.BuyerID, Email: u.EmailAddress,
		FamilyID: strconv.FormatInt(f.ID, 10), IssuedAt: now.Unix(), Expires: accessEnd.Unix(),
	})
	return tokenSet{
		AccessToken: access, IDToken: id, RefreshToken: refresh, TokenType: "Bearer",
		ExpiresIn: int(s.accessTokenTTL / time.Second), RefreshExpiresIn: int(refreshTokenTTL / time.Second),
	}
}

// signIn starts a new sign-in (family) for the user of res, recorded as a session of the
// security page, and returns its first tokens with the client's device token. Tokens of
// the user's earlier sign-ins that ended long ago are cleared on the way.
func (s *server) signIn(c *echo.Context, res account.SignInResult) (tokenSet, error) {
	ctx := c.Request().Context()
	u := res.User
	if err := s.Store.PruneAPITokens(ctx, u.BuyerID, u.ID, s.Now().Add(-24*time.Hour)); err != nil {
		return tokenSet{}, err
	}
	access, refresh, na, nr, err := s.newTokens()
	if err != nil {
		return tokenSet{}, err
	}
	f, err := s.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, na, nr)
	if err != nil {
		return tokenSet{}, err
	}
	sid, err := s.Account.StartSession(ctx, u, store.SessionAPI, res.DeviceID, web.ClientOf(c))
	if err != nil {
		return tokenSet{}, err
	}
	if err := s.Store.SetFamilySession(ctx, f.ID, sid); err != nil {
		return tokenSet{}, err
	}
	if res.FactorGiven {
		if err := s.Account.MarkFactor(ctx, u, sid); err != nil {
			return tokenSet{}, err
		}
	}
	ts := s.tokenSetFor(u, f, access, refresh, na.ExpiresAt)
	ts.DeviceToken = res.DeviceToken
	return ts, nil
}
