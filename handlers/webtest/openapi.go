package webtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/api"
)

// APIDocumentationGaps compares the /api/v1 routes registered on an echo instance with
// openapi.json: undocumented are routes the document lacks, unserved are documented
// operations no route serves. A test of the whole app should find both empty.
func APIDocumentationGaps(registered []echo.RouteInfo) (undocumented, unserved []string, err error) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI, &doc); err != nil {
		return nil, nil, fmt.Errorf("webtest: openapi.json: %w", err)
	}
	documented := map[string]bool{}
	for p, item := range doc.Paths {
		for m := range item {
			documented[strings.ToUpper(m)+" "+p] = true
		}
	}
	served := map[string]bool{}
	for _, r := range registered {
		if !strings.HasPrefix(r.Path, api.Prefix+"/") || r.Name == api.FallbackRouteName || r.Method == echo.RouteNotFound {
			continue
		}
		op := r.Method + " " + echoParam.ReplaceAllString(strings.TrimPrefix(r.Path, api.Prefix), "{$1}")
		served[op] = true
		if !documented[op] {
			undocumented = append(undocumented, op)
		}
	}
	for op := range documented {
		if !served[op] {
			unserved = append(unserved, op)
		}
	}
	sort.Strings(undocumented)
	sort.Strings(unserved)
	return undocumented, unserved, nil
}

var echoParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)
