package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var exampleCopyText = CopyTextProps{Text: "r-ab12cd34ef56gh78@inbox.example", Label: "受付メールアドレス", IconHref: "/static/icons.svg"}

const copyTextPropsFile = "../../islands/copy-text/example-props.json"

// TestCopyTextExampleProps keeps islands/copy-text/example-props.json equal to what Go
// marshals; run with UPDATE_EXAMPLES=1 to rewrite it.
func TestCopyTextExampleProps(t *testing.T) {
	want, err := json.Marshal(exampleCopyText)
	require.NoError(t, err)
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(copyTextPropsFile, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(copyTextPropsFile)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestCopyTextHasNoFallback(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, CopyText(exampleCopyText, "n").Render(context.Background(), &buf))
	assert.Contains(t, buf.String(), `<div data-island="copy-text" data-props="`)
	assert.Contains(t, buf.String(), `></div>`, "nothing without JavaScript: the text beside it is selectable")
}
