package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
)

// maxBody bounds every request body: the largest call, a registration, is about 3 KB.
const maxBody = 64 << 10

// nulEscape finds a \u0000 escape that is not itself escaped (\\u0000 is the text
// "\u0000"). PostgreSQL text cannot hold NUL, so such a value would fail deep in the
// store as a 500 instead of a clear answer here.
var nulEscape = regexp.MustCompile(`(?i)(^|[^\\])(\\\\)*\\u0000`)

// decode reads a JSON object into dst. Bad input is the client's mistake, answered with
// a Japanese message and never a 500:
//   - a body over maxBody: 413;
//   - a Content-Type other than JSON: 415;
//   - bytes that are not UTF-8, a NUL character, malformed JSON, something other than
//     an object, or data after the object: 400;
//   - a value of the wrong type for a field ("consent": "yes"): 422 naming the field.
//
// An empty body is an empty object. Unknown fields are ignored.
func decode(c *echo.Context, dst any) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type: application/json で送信してください。")
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errTooLarge
		}
		return newError(http.StatusBadRequest, "bad_request", "送信内容を読み取れませんでした。もう一度お試しください。")
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if !utf8.Valid(body) {
		return newError(http.StatusBadRequest, "invalid_encoding", "送信内容の文字コードが正しくありません。UTF-8で送信してください。")
	}
	if nulEscape.Match(body) {
		return newError(http.StatusBadRequest, "bad_request", "送信内容に使用できない文字（NUL）が含まれています。")
	}
	if body[0] != '{' {
		return newError(http.StatusBadRequest, "invalid_json", "送信内容はJSONオブジェクト（{…}）で送信してください。")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(http.StatusBadRequest, "invalid_json", "JSONオブジェクトの後に余分なデータがあります。")
	}
	return nil
}

// checked is a request that finds its own problems: the fields its call requires, and
// anything else that needs nothing but the request to judge.
type checked interface {
	check() pay.FieldErrors
}

// decodeChecked decodes the body into req as decode does, then answers 422
// validation_error with every problem req.check finds, before any work is done.
func decodeChecked(c *echo.Context, req checked) error {
	if err := decode(c, req); err != nil {
		return err
	}
	return asError(req.check(), nil)
}

// asError is the outcome of a call that judges the input, such as the account
// service's: its error when it failed, else 422 validation_error when it found
// problems, else nil.
func asError(problems pay.FieldErrors, err error) error {
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return validationError(problems)
	}
	return nil
}

// msgMissing is the message for a field a client program sends by itself (a token
// from an earlier answer), named as in the JSON.
func msgMissing(field string) string { return field + "を指定してください" }

// checkTokenAndCode checks a code step's request: the token of the step (tokenField)
// and the code the person types.
func checkTokenAndCode(tokenField, token, code string) (errs pay.FieldErrors) {
	if token == "" {
		errs.Add(tokenField, msgMissing(tokenField))
	}
	if strings.TrimSpace(code) == "" {
		errs.Add("code", "確認コードを入力してください")
	}
	return errs
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		return fieldError(typ.Field, fmt.Sprintf("%sは%sで指定してください", typ.Field, kindName(typ.Type)))
	case errors.As(err, &syntax):
		return newError(http.StatusBadRequest, "invalid_json", fmt.Sprintf("JSONの形式が正しくありません（%d文字目付近）。", syntax.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newError(http.StatusBadRequest, "invalid_json", "JSONが途中で終わっています。")
	}
	return newError(http.StatusBadRequest, "invalid_json", "JSONの形式が正しくありません。")
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "文字列"
	case reflect.Bool:
		return "真偽値（true または false）"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "整数"
	case reflect.Slice, reflect.Array:
		return "配列"
	case reflect.Pointer:
		return kindName(t.Elem())
	}
	return "正しい形式"
}

// pathID is the :id of a path as a positive number; anything else is not found, like
// an id of another buyer.
func pathID(c *echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errNotFound
	}
	return id, nil
}

// queryInt reads an optional whole-number query parameter within [min, max].
func queryInt(c *echo.Context, name string, def, min, max int, errs *pay.FieldErrors) int {
	v := c.QueryParam(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		errs.Add(name, fmt.Sprintf("%sは%dから%dまでの整数で指定してください", name, min, max))
		return def
	}
	return n
}
