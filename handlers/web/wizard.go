package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v5"
)

// Workflow is a create workflow (SPEC.md §2): the pages under Prefix, whose saved
// answers live under SessionKey.
type Workflow struct {
	Prefix, SessionKey string
	// Also are more path prefixes inside the workflow (the payment journey starts on the
	// upload pages under /payments/create).
	Also []string
}

// Inside reports whether path is one of the workflow's pages.
func (w Workflow) Inside(path string) bool {
	if strings.HasPrefix(path, w.Prefix) {
		return true
	}
	for _, p := range w.Also {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// Wizard keeps a create workflow's answers (any JSON-able T) in the server session
// between its pages, one question per page (DESIGN.md §2 wizards). The check-answers
// page validates them again before the final POST commits them.
type Wizard[T any] struct {
	Workflow
}

// Load is the answers so far; the zero T when there are none (or they cannot be read,
// as after a deploy that changed T).
func (w Wizard[T]) Load(s *scs.SessionManager, c *echo.Context) T {
	var v T
	if raw := s.GetString(c.Request().Context(), w.SessionKey); raw != "" {
		_ = json.Unmarshal([]byte(raw), &v)
	}
	return v
}

// Save keeps v for the next page.
func (w Wizard[T]) Save(s *scs.SessionManager, c *echo.Context, v T) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.Put(c.Request().Context(), w.SessionKey, string(b))
	return nil
}

// Clear forgets the answers (after the final POST).
func (w Wizard[T]) Clear(s *scs.SessionManager, c *echo.Context) {
	s.Remove(c.Request().Context(), w.SessionKey)
}

// LeaveWorkflows clears a create workflow's answers when a signed-in page outside it is
// opened (SPEC.md §2 "Leaving a create workflow clears its saved in-progress data").
// Only GET requests count, and only of the page groups it is put on (handlers/routes.go):
// the API (its own routes) and form posts never clear anything.
func (a *App) LeaveWorkflows(workflows ...Workflow) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			r := c.Request()
			if r.Method == http.MethodGet {
				for _, w := range workflows {
					if !w.Inside(r.URL.Path) && a.Sessions.Exists(r.Context(), w.SessionKey) {
						a.Sessions.Remove(r.Context(), w.SessionKey)
					}
				}
			}
			return next(c)
		}
	}
}
