package oauth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"cardpay/oauth"
)

func TestClientInputCheck(t *testing.T) {
	ok := oauth.ClientInput{Name: "会計クラウド", LogoText: "会", RedirectURIs: "https://app.example.jp/callback\n\n http://127.0.0.1:8765/cb ",
		Scopes: []string{"payments:read"}}
	for _, tc := range []struct {
		name   string
		change func(*oauth.ClientInput)
		fields []string
	}{
		{"good", func(*oauth.ClientInput) {}, nil},
		{"no name", func(in *oauth.ClientInput) { in.Name = " " }, []string{"name"}},
		{"a long logo", func(in *oauth.ClientInput) { in.LogoText = "会計会計会" }, []string{"logo_text"}},
		{"no redirect URI", func(in *oauth.ClientInput) { in.RedirectURIs = "\n" }, []string{"redirect_uris"}},
		{"plain http elsewhere", func(in *oauth.ClientInput) { in.RedirectURIs = "http://app.example.jp/cb" }, []string{"redirect_uris"}},
		{"a fragment", func(in *oauth.ClientInput) { in.RedirectURIs = "https://app.example.jp/cb#x" }, []string{"redirect_uris"}},
		{"a relative URI", func(in *oauth.ClientInput) { in.RedirectURIs = "/callback" }, []string{"redirect_uris"}},
		{"credentials in it", func(in *oauth.ClientInput) { in.RedirectURIs = "https://u:p@app.example.jp/cb" }, []string{"redirect_uris"}},
		{"http to localhost by name", func(in *oauth.ClientInput) { in.RedirectURIs = "http://localhost:8765/cb" }, []string{"redirect_uris"}},
		{"no scope", func(in *oauth.ClientInput) { in.Scopes = nil }, []string{"scopes"}},
		{"an https webhook", func(in *oauth.ClientInput) { in.WebhookURL = "https://app.example.jp/hooks" }, nil},
		{"a plain http webhook", func(in *oauth.ClientInput) { in.WebhookURL = "http://app.example.jp/hooks" }, []string{"webhook_url"}},
		{"an unknown scope", func(in *oauth.ClientInput) { in.Scopes = []string{"payments:submit"} }, []string{"scopes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ok
			tc.change(&in)
			uris, errs := in.Check()
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			assert.ElementsMatch(t, tc.fields, got)
			if tc.fields == nil {
				assert.Equal(t, []string{"https://app.example.jp/callback", "http://127.0.0.1:8765/cb"}, uris)
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	in := oauth.ClientInput{Name: " 会計クラウド ", Scopes: []string{"suppliers:read", "payments:read"}}
	c, secret, err := oauth.NewClient(in, []string{"https://app.example.jp/cb"}, 7)
	require.NoError(t, err)
	assert.Regexp(t, `^app-[a-z0-9]{16}$`, c.ID)
	assert.Equal(t, "会計クラウド", c.Name)
	assert.Equal(t, []string{"payments:read", "suppliers:read"}, []string(c.Scopes), "in the scopes' order")
	require.NotEmpty(t, secret)
	assert.NoError(t, bcrypt.CompareHashAndPassword(c.SecretHash, []byte(secret)), "only the hash is kept")
	assert.NotContains(t, string(c.SecretHash), secret)
	in.Public = true
	c, secret, err = oauth.NewClient(in, []string{"http://127.0.0.1:9/cb"}, 7)
	require.NoError(t, err)
	assert.Empty(t, secret)
	assert.True(t, c.Public())
}

func TestValidClientID(t *testing.T) {
	for id, want := range map[string]bool{"app-abcdefgh12345678": true, "demo-accounting": true, "test-app-0001": true,
		"short": false, "\x00": false, "app-\x00abcdefgh": false, "APP-UPPERCASE": false, "app/../x": false, "<script>alert": false} {
		assert.Equal(t, want, oauth.ValidClientID(id), "%q", id)
	}
}
