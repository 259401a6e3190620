package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v5"
)

// OpenAPI is the OpenAPI 3.1 description of every route in routes(), served at
// GET /api/v1/openapi.json. A test checks that the two list the same operations.
//
//go:embed openapi.json
var OpenAPI []byte

func (s *server) openAPI(c *echo.Context) error {
	return c.Blob(http.StatusOK, "application/json", OpenAPI)
}
