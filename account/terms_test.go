package account_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
)

func TestAcceptTerms(t *testing.T) {
	ctx := context.Background()
	s, _ := newService(t)
	u := newUser(t, "terms@terms.example")
	require.True(t, account.NeedsTerms(u), "a user who accepted no version is asked")
	require.NoError(t, s.AcceptTerms(ctx, u))
	got := reload(t, u)
	assert.Equal(t, account.TermsVersion, got.TermsVersion)
	assert.False(t, account.NeedsTerms(got))
}

func TestTermsText(t *testing.T) {
	require.NotEmpty(t, account.Terms)
	for _, a := range account.Terms {
		assert.True(t, strings.HasPrefix(a.Heading, "第"), a.Heading)
		assert.NotEmpty(t, a.Paragraphs, a.Heading)
	}
}
