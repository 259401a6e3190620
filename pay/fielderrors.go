package pay

import (
	"fmt"
	"strings"
)

// Validation failures are values, not Go errors (DESIGN §2): the page re-renders with an
// error summary linking to each field, and the API answers 422 with the same list. The
// pages (views.Base.Errors), the API and the rules all use this one type.

// FieldError is one problem with one form field. Field is the field's JSON
// name, which is also the id of its HTML input, so the error summary can
// link to "#"+Field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors are a form's problems in the order its fields appear on the
// page, the order the error summary lists them in.
type FieldErrors []FieldError

// Add records message for field. An empty message means the field is fine
// and is ignored, so results of ValidateEmail and account.ValidatePassword can be
// added directly. Only a field's first message is kept: it names the most
// basic problem (empty before malformed), and one message per field is what
// the page shows.
func (e *FieldErrors) Add(field, message string) {
	if message == "" || e.For(field) != "" {
		return
	}
	*e = append(*e, FieldError{Field: field, Message: message})
}

// For is field's message, or "" when the field has none; templates call it
// to show the inline message under each input.
func (e FieldErrors) For(field string) string {
	for _, fe := range e {
		if fe.Field == field {
			return fe.Message
		}
	}
	return ""
}

// Err returns e as an error, or nil when there are no problems. It returns
// an untyped nil, avoiding the non-nil interface holding a nil slice that
// `var err error = FieldErrors(nil)` would give.
func (e FieldErrors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Error lists the fields and messages, for logs and test failures.
func (e FieldErrors) Error() string {
	parts := make([]string, len(e))
	for i, fe := range e {
		parts[i] = fe.Field + ": " + fe.Message
	}
	return fmt.Sprintf("入力内容に誤りがあります（%d件）: %s", len(e), strings.Join(parts, "; "))
}
