package pay

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInquiryCheck(t *testing.T) {
	long := strings.Repeat("あ", MaxInquiryBody)
	cases := []struct {
		name string
		in   InquiryInput
		want map[string]string // field → message; nil: no errors
		body string            // the tidied text, when checked
	}{
		{"signed out, complete", InquiryInput{Name: " 山田　太郎 ", Email: "ＴＡＲＯ@Example.JP", Company: "", Category: "card", Body: "\r\n 一行目\r\n二行目 \r\n"},
			nil, "一行目\n二行目"},
		{"signed in needs no contact", InquiryInput{SignedIn: true, Category: "other", Body: "質問です"}, nil, "質問です"},
		{"the longest text", InquiryInput{SignedIn: true, Category: "receipt", Body: long}, nil, long},
		{"everything missing", InquiryInput{},
			map[string]string{"name": "お名前を入力してください", "email_address": "メールアドレスを入力してください",
				"category": "お問い合わせの種類を選択してください", "body": "お問い合わせ内容を入力してください"}, ""},
		{"only white space", InquiryInput{SignedIn: true, Category: "card", Body: " \r\n\t "},
			map[string]string{"body": "お問い合わせ内容を入力してください"}, ""},
		{"one character too long", InquiryInput{SignedIn: true, Category: "card", Body: long + "あ"},
			map[string]string{"body": "お問い合わせ内容は4000文字以内で入力してください"}, ""},
		{"a control character", InquiryInput{SignedIn: true, Category: "card", Body: "a\x00b"},
			map[string]string{"body": "お問い合わせ内容に使用できない文字が含まれています"}, ""},
		{"a bidi override", InquiryInput{SignedIn: true, Category: "card", Body: "a\u202eb"},
			map[string]string{"body": "お問い合わせ内容に使用できない文字が含まれています"}, ""},
		{"not UTF-8", InquiryInput{SignedIn: true, Category: "card", Body: "a\xffb"},
			map[string]string{"body": "お問い合わせ内容に読み取れない文字が含まれています。入力し直してください"}, ""},
		{"an unknown category", InquiryInput{SignedIn: true, Category: "refund", Body: "x"},
			map[string]string{"category": "お問い合わせの種類を一覧から選択してください"}, ""},
		{"a bad address and a long name", InquiryInput{Name: strings.Repeat("名", MaxInquiryName+1), Email: "taro@", Category: "card", Body: "x"},
			map[string]string{"name": "お名前は60文字以内で入力してください", "email_address": "メールアドレスの形式が正しくありません"}, ""},
		{"a control character in the company", InquiryInput{Name: "山田", Email: "a@example.jp", Company: "株式会社\x07", Category: "card", Body: "x"},
			map[string]string{"company": "会社名に使用できない文字が含まれています"}, ""},
		{"a company too long", InquiryInput{Name: "山田", Email: "a@example.jp", Company: strings.Repeat("社", MaxInquiryCompany+1), Category: "card", Body: "x"},
			map[string]string{"company": "会社名は100文字以内で入力してください"}, ""},
		{"signed in ignores contact fields", InquiryInput{SignedIn: true, Name: "\x00", Email: "bad", Category: "card", Body: "x"}, nil, "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs := tc.in.Check()
			got := map[string]string{}
			for _, e := range errs {
				got[e.Field] = e.Message
			}
			if tc.want == nil {
				assert.Empty(t, errs)
				assert.Equal(t, tc.body, out.Body)
				return
			}
			for f, msg := range tc.want {
				if f == "email_address" {
					assert.NotEmpty(t, got[f], f)
					continue
				}
				assert.Equal(t, msg, got[f], f)
			}
			assert.Len(t, got, len(tc.want))
		})
	}
	out, _ := InquiryInput{Name: " 山田　太郎 ", Email: "ＴＡＲＯ@Example.JP", Category: "card", Body: "x"}.Check()
	assert.Equal(t, "山田　太郎", out.Name)
	assert.Equal(t, "TARO@example.jp", out.Email)
	assert.Equal(t, InquiryCard, out.Category)
}

func TestInquiryErrorsFollowTheFormsOrder(t *testing.T) {
	_, errs := InquiryInput{}.Check()
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	assert.Equal(t, []string{"name", "email_address", "category", "body"}, fields)
}

func TestInquiryCategoriesAndStatuses(t *testing.T) {
	labels := map[string]bool{}
	for _, c := range InquiryCategories {
		assert.True(t, c.Valid(), c)
		assert.NotEmpty(t, c.Label(), c)
		labels[c.Label()] = true
	}
	assert.Len(t, labels, 8, "each category its own label")
	assert.False(t, InquiryCategory("").Valid())
	assert.False(t, InquiryCategory("x").Valid())
	cases := []struct {
		s     InquiryStatus
		label string
	}{{InquiryOpen, "受付"}, {InquiryAnswered, "回答済み"}, {InquiryClosed, "対応終了"}, {"x", ""}}
	for _, tc := range cases {
		assert.Equal(t, tc.label, tc.s.Label())
		assert.Equal(t, tc.label != "", tc.s.Valid())
	}
	assert.Equal(t, "Q-00000042", InquiryNumber(42))
}

func TestCheckInquiryText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ご回答します。\n\tよろしくお願いします。", ""},
		{"", "回答を入力してください"},
		{"\x1b[31m", "回答に使用できない文字が含まれています"},
		{strings.Repeat("x", MaxInquiryBody+1), "回答は4000文字以内で入力してください"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, CheckInquiryText("回答", TidyInquiryText(tc.in)), tc.in)
	}
}
