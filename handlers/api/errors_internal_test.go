package api

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"

	"cardpay/handlers/web"
)

// An unexpected failure, or a panic, answers 500 internal_error and tells the caller
// nothing of what went wrong; the log does.
func TestUnexpectedErrorsAnswer500AndTellNothing(t *testing.T) {
	var logs bytes.Buffer
	s := newServer(web.New(web.Deps{Logger: slog.New(slog.NewTextHandler(&logs, nil)), SecretKey: "test"}))
	e := echo.New()
	e.GET("/fails", func(*echo.Context) error { return errors.New("NTA API timed out") }, s.jsonErrors)
	e.GET("/panics", func(*echo.Context) error { panic("NTA client is nil") }, s.jsonErrors)
	for _, path := range []string{"/fails", "/panics"} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusInternalServerError, rec.Code, path)
		assert.JSONEq(t, `{"status":"internal_error","message":"`+msgInternal+`"}`, rec.Body.String(), path)
	}
	assert.Contains(t, logs.String(), "NTA API timed out")
	assert.Contains(t, logs.String(), "NTA client is nil")
}
