package pay_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestFieldErrors(t *testing.T) {
	var errs pay.FieldErrors
	assert.NoError(t, errs.Err())
	assert.Nil(t, errs.Err(), "an untyped nil, so err == nil holds")
	assert.Equal(t, "", errs.For("corporate_name"))

	errs.Add("corporate_name", "")
	assert.Empty(t, errs, "an empty message means the field is fine")

	errs.Add("corporate_name", "法人名を入力してください")
	errs.Add("corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください")
	errs.Add("corporate_name", "法人名は50文字以内で入力してください")

	assert.Equal(t, pay.FieldErrors{
		{Field: "corporate_name", Message: "法人名を入力してください"},
		{Field: "corporate_number", Message: "法人番号が正しくありません。13桁の数字をご確認ください"},
	}, errs, "order kept, first message per field wins")
	assert.Equal(t, "法人名を入力してください", errs.For("corporate_name"))
	assert.Equal(t, "", errs.For("postal_code"))

	err := errs.Err()
	require.Error(t, err)
	var got pay.FieldErrors
	require.True(t, errors.As(err, &got))
	assert.Equal(t, errs, got)
	assert.Contains(t, err.Error(), "corporate_name: 法人名を入力してください")
	assert.Contains(t, err.Error(), "2件")
}

func TestFieldErrorJSON(t *testing.T) {
	b, err := json.Marshal(pay.FieldErrors{{Field: "postal_code", Message: "m"}})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"field":"postal_code","message":"m"}]`, string(b))
}
