package myaccount_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

const (
	cardEntryExamplePropsFile    = "../../islands/card-entry/example-props.json"
	cardEntryExampleFallbackFile = "../../islands/card-entry/example-fallback.html"
	// exampleSprite stands for the hashed sprite URL, so a rebuilt sprite does not
	// change the example files.
	exampleSprite = "/static/icons.svg"
)

// exampleCardEntryProps are what the card-entry island's own test renders: the add page
// of handlers/myaccount/creditcard_add.go with the sandbox PSP on its default port.
func exampleCardEntryProps() pages.CardEntryProps {
	p := pages.CardEntryProps{
		PSP: "sandbox", Action: "/myaccount/creditcards/new", Setup: "setup_example",
		PSPOrigin: "http://localhost:8081", FieldsURL: "http://localhost:8081/fields/setup_example", IconHref: exampleSprite,
	}
	for _, b := range pay.AcceptedBrands {
		p.AcceptedBrands = append(p.AcceptedBrands, string(b))
	}
	return p
}

// TestCardEntryExample keeps islands/card-entry/example-props.json and
// example-fallback.html (the server's no-JavaScript form for the same page, which the
// island replaces) equal to what Go produces. Run with UPDATE_EXAMPLES=1 to rewrite both
// after changing CardEntryProps or the form.
func TestCardEntryExample(t *testing.T) {
	p := exampleCardEntryProps()
	want, err := json.MarshalIndent(p, "", "  ")
	require.NoError(t, err)
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(cardEntryExamplePropsFile, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(cardEntryExamplePropsFile)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	v := pages.AddCreditCardView{
		Base:  views.Base{ServiceName: "請求書カード払い", CurrentPath: "/myaccount/creditcards/new"},
		Props: p, Island: true, HostedAction: "/myaccount/creditcards/new/hosted", AcceptedLabels: "JCB、VISA、Mastercard",
		CanAdd: true, MaxCards: pay.MaxSavedCards,
	}
	var buf bytes.Buffer
	require.NoError(t, pages.AddCreditCardPage(v).Render(context.Background(), &buf))
	page := buf.String()
	start := strings.Index(page, `<form method="post" action="/myaccount/creditcards/new/hosted"`)
	require.Positive(t, start)
	end := strings.Index(page[start:], "</form>")
	require.Positive(t, end)
	fallback := page[start:start+end+len("</form>")] + "\n"
	if sprite := static.URL("dist/icons.svg"); sprite != "" {
		fallback = strings.ReplaceAll(fallback, sprite, exampleSprite)
	}
	assert.NotContains(t, fallback, "cc-number", "the fallback never asks for a card on our page")
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(cardEntryExampleFallbackFile, []byte(fallback), 0o644))
	}
	gotFallback, err := os.ReadFile(cardEntryExampleFallbackFile)
	require.NoError(t, err)
	assert.Equal(t, fallback, string(gotFallback), "run with UPDATE_EXAMPLES=1 after changing the form")
}
