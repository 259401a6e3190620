package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
)

// doc is openapi.json, parsed once.
var doc = func() map[string]any {
	var d map[string]any
	if err := json.Unmarshal(api.OpenAPI, &d); err != nil {
		panic(fmt.Sprintf("openapi.json is not JSON: %v", err))
	}
	return d
}()

// documentedOperations lists "METHOD /path" of the document, paths as echo writes them.
func documentedOperations() []string {
	var ops []string
	for p, item := range doc["paths"].(map[string]any) {
		for m := range item.(map[string]any) {
			ops = append(ops, strings.ToUpper(m)+" "+p)
		}
	}
	sort.Strings(ops)
	return ops
}

func TestOpenAPIListsEveryRouteAndNoOther(t *testing.T) {
	e := newEnv(t).Echo
	undocumented, unserved, err := webtest.APIDocumentationGaps(e.Router().Routes())
	require.NoError(t, err)
	assert.Empty(t, undocumented, "every route of the API is in openapi.json")
	assert.Empty(t, unserved, "openapi.json lists only the API's routes")
	assert.Len(t, documentedOperations(), 88, "26 calls of SPEC.md §7 Users, users/stats, openapi.json, postal_codes; "+
		"9 of Suppliers, 4 of Cards, and banks2, banks/closed_day, accounts/holder_kana, v_result_message, system/time of Invoices; "+
		"invoices/files: upload, upload/url, the signed PUT, {id}, download/url, the signed GET; "+
		"invoices: POST, GET, commission, promotion, {id} GET and PUT, {id}/cancel, {id}/receipts/download/url and the signed receipt GET; "+
		"drafts: POST, GET, DELETE, {id} GET and PUT; "+
		"14 of Collections: request_sellers GET and POST, {id}/request_seller, its cancel, request_keys GET and POST, {id}/requestbuyer, "+
		"buyers/{id}/accounts GET and POST, invoice_request_drafts POST, GET, DELETE, {id} GET and PUT; "+
		"6 of the received invoices (issue 29): receipt_invoices GET, upload, {id}, {id}/mark, address GET and POST; books/export (issue 30)")
}

func TestOpenAPIDocument(t *testing.T) {
	assert.Equal(t, "3.1.0", doc["openapi"])
	for _, op := range documentedOperations() {
		method, path, _ := strings.Cut(op, " ")
		o := operation(method, path)
		require.NotNil(t, o, op)
		assert.NotEmpty(t, o["summary"], "%s has a summary", op)
		assert.Contains(t, o, "security", "%s says whether it needs a sign-in", op)
		resp := o["responses"].(map[string]any)
		assert.NotEmpty(t, resp, op)
		for code, r := range resp {
			_, err := strconv.Atoi(code)
			assert.NoError(t, err, "%s: response %q is a status code", op, code)
			if code == "204" {
				assert.Nil(t, deref(r.(map[string]any))["content"], "%s 204 has no body", op)
				continue
			}
			assert.NotNil(t, responseSchema(r), "%s %s has a JSON schema", op, code)
		}
		if strings.Contains(path, "{") {
			assert.NotEmpty(t, o["parameters"], "%s documents its path parameters", op)
		}
	}
	// Every $ref resolves.
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				assert.NotNil(t, resolve(r), "$ref %s resolves", r)
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
}

func TestOpenAPIIsServed(t *testing.T) {
	c := newEnv(t).client(t)
	r := c.get("/openapi.json")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "3.1.0", r.str("openapi"))
}

// operation finds the documented operation for a method and a template path.
func operation(method, path string) map[string]any {
	item, _ := doc["paths"].(map[string]any)[path].(map[string]any)
	o, _ := item[strings.ToLower(method)].(map[string]any)
	return o
}

// templateOf matches a concrete path (/users/notices/12?x=1) to a documented template; a
// literal segment wins over a parameter (/invoices/files/upload is not /invoices/files/{id}).
func templateOf(path string) string {
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(path, "/")
	best, bestParams := "", -1
	for tpl := range doc["paths"].(map[string]any) {
		ts := strings.Split(tpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		ok := true
		for i := range ts {
			if ts[i] != segs[i] && !strings.HasPrefix(ts[i], "{") {
				ok = false
				break
			}
		}
		if params := strings.Count(tpl, "{"); ok && (bestParams < 0 || params < bestParams) {
			best, bestParams = tpl, params
		}
	}
	return best
}

func resolve(ref string) map[string]any {
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

func deref(v map[string]any) map[string]any {
	for v != nil {
		r, ok := v["$ref"].(string)
		if !ok {
			return v
		}
		v = resolve(r)
	}
	return v
}

func responseSchema(r any) map[string]any {
	resp := deref(r.(map[string]any))
	content, _ := resp["content"].(map[string]any)
	js, ok := content["application/json"].(map[string]any)
	if !ok {
		// A file download: one schema per media type it may send.
		for _, c := range content {
			js, _ = c.(map[string]any)
		}
	}
	s, _ := js["schema"].(map[string]any)
	return s
}

// checkDocumented fails the test when an answer of a documented operation has a status
// the document does not list, or a body its schema does not allow. 404 and 405 of the
// fallback routes are checked against the Error schema.
func checkDocumented(t *testing.T, method, path string, r result) {
	t.Helper()
	tpl := templateOf(path)
	o := operation(method, tpl)
	if o == nil {
		if r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed {
			assert.Empty(t, problems(resolve("#/components/schemas/Error"), r.Body, "body"), "%s %s: %s", method, path, r)
		}
		return
	}
	resp, ok := o["responses"].(map[string]any)[strconv.Itoa(r.Status)]
	if !assert.True(t, ok, "%s %s answered %d, which openapi.json does not list: %s", method, tpl, r.Status, r) {
		return
	}
	if tpl == "/openapi.json" || r.Status == http.StatusNoContent {
		return
	}
	assert.Empty(t, problems(responseSchema(resp), r.Body, "body"), "%s %s %d: the answer does not match openapi.json: %s", method, tpl, r.Status, r)
}

// problems checks v against the subset of JSON Schema the document uses: type (or a
// list of types), enum, properties with required and additionalProperties false,
// items, oneOf and $ref.
func problems(schema map[string]any, v any, at string) []string {
	schema = deref(schema)
	if schema == nil {
		return []string{at + ": no schema"}
	}
	if one, ok := schema["oneOf"].([]any); ok {
		var all []string
		for _, s := range one {
			p := problems(s.(map[string]any), v, at)
			if len(p) == 0 {
				return nil
			}
			all = append(all, p...)
		}
		return []string{fmt.Sprintf("%s: matches none of oneOf: %v", at, all)}
	}
	var types []string
	switch ty := schema["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			types = append(types, x.(string))
		}
	}
	if len(types) > 0 && !slices.Contains(types, jsonType(v)) && !(jsonType(v) == "integer" && slices.Contains(types, "number")) {
		return []string{fmt.Sprintf("%s: %s, want %v", at, jsonType(v), types)}
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			return []string{fmt.Sprintf("%s: %v is not one of %v", at, v, enum)}
		}
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, req := range asStrings(schema["required"]) {
			if _, ok := x[req]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: required but missing", at, req))
			}
		}
		for k, val := range x {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if schema["additionalProperties"] == false {
					out = append(out, fmt.Sprintf("%s.%s: not in the schema", at, k))
				}
				continue
			}
			out = append(out, problems(ps, val, at+"."+k)...)
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, val := range x {
				out = append(out, problems(items, val, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return out
}

func asStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}
