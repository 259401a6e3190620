package api

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDTokenSignsAndVerifies(t *testing.T) {
	key := deriveIDTokenKey("secret")
	assert.NotEqual(t, deriveIDTokenKey("other"), key)
	c := idClaims{Issuer: idTokenIssuer, Subject: "7", BuyerID: 3, Email: "a@b.jp", FamilyID: "9", IssuedAt: 1, Expires: 2}
	tok := signJWT(key, c)
	got, err := verifyJWT(key, tok)
	require.NoError(t, err)
	assert.Equal(t, c, got)

	_, err = verifyJWT(deriveIDTokenKey("other"), tok)
	assert.Error(t, err, "another key")

	parts := strings.Split(tok, ".")
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	for name, bad := range map[string]string{
		"alg none":          none + "." + parts[1] + ".",
		"alg none, signed":  none + "." + parts[1] + "." + parts[2],
		"changed claims":    parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"cardpay","sub":"8"}`)) + "." + parts[2],
		"no signature":      parts[0] + "." + parts[1],
		"padding":           tok + "=",
		"empty":             "",
		"too long":          tok + strings.Repeat("A", maxJWTLen),
		"four parts":        tok + ".x",
		"signature garbage": parts[0] + "." + parts[1] + ".!!!",
	} {
		_, err := verifyJWT(key, bad)
		assert.Error(t, err, name)
	}
	wrongIssuer := signJWT(key, idClaims{Issuer: "someone", Subject: "7"})
	_, err = verifyJWT(key, wrongIssuer)
	assert.Error(t, err)
}

func TestRouteTableHasNoDuplicates(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range routes() {
		k := r.method + " " + r.path
		assert.False(t, seen[k], k)
		seen[k] = true
	}
}
