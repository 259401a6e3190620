package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleNotice is the notice the snackbar island's own test renders: the Go struct
// and the TypeScript props must agree on every key.
var exampleNotice = NoticeProps{Color: "success", Title: "ログインしました", Text: "ようこそ、デモ株式会社さん", Duration: 5000, IconHref: "/static/icons.svg"}

const examplePropsFile = "../../islands/snackbar/example-props.json"

// TestSnackbarExampleProps keeps islands/snackbar/example-props.json equal to what Go
// marshals; run with UPDATE_EXAMPLES=1 to rewrite it after changing NoticeProps.
func TestSnackbarExampleProps(t *testing.T) {
	want, err := json.Marshal(exampleNotice)
	require.NoError(t, err)
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(examplePropsFile, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(examplePropsFile)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestNoticeFallback(t *testing.T) {
	tests := []struct {
		color, icon, class string
	}{
		{"success", "check_circle", "snackbar--success"},
		{"error", "warning", "snackbar--error"},
		{"info", "info", "snackbar--info"},
		{"", "info", "snackbar--info"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		p := exampleNotice
		p.Color = tt.color
		require.NoError(t, Notice(p, "/payments/create", "n0nce").Render(context.Background(), &buf))
		html := buf.String()
		assert.Contains(t, html, `data-island="snackbar"`)
		assert.Contains(t, html, `role="status"`)
		assert.Contains(t, html, tt.class)
		assert.Contains(t, html, "#"+tt.icon+`"`, tt.color)
		assert.Contains(t, html, `<a class="snackbar__close" href="/payments/create">閉じる</a>`)
		assert.Contains(t, html, "&#34;title&#34;:&#34;ログインしました&#34;", "props travel as escaped JSON in an attribute")
		if strings.Contains(html, "<script") {
			assert.Contains(t, html, `nonce="n0nce"`, "the island script carries the nonce")
		}
	}
}

func TestButton(t *testing.T) {
	tests := []struct {
		opts ButtonOpts
		want []string
	}{
		{ButtonOpts{Label: "保存"}, []string{`type="button"`, "btn--sm", "btn--primary", "<span>保存</span>"}},
		{ButtonOpts{Label: "送信", Type: "submit", Size: "md"}, []string{`type="submit"`, "btn--md"}},
		{ButtonOpts{Label: "削除", Size: "xs", Variant: "secondary", Icon: "delete"}, []string{"btn--xs", "btn--secondary", "#delete"}},
		{ButtonOpts{Label: "不可", Icon: "add", Disabled: true}, []string{"disabled", "icon--gray"}},
		{ButtonOpts{Label: "x", Size: "huge", Type: "weird"}, []string{"btn--sm", `type="button"`}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		require.NoError(t, Button(tt.opts).Render(context.Background(), &buf))
		for _, w := range tt.want {
			assert.Contains(t, buf.String(), w, tt.opts.Label)
		}
	}
}

func TestIconColours(t *testing.T) {
	for _, c := range []string{"primary", "primaryDark", "secondary", "dark", "white", "gray", "success", "attention"} {
		assert.Equal(t, "icon--"+c, iconColor(c))
	}
	assert.Equal(t, "", iconColor("inherit"))
	assert.Equal(t, "", iconColor("purple"))
}
