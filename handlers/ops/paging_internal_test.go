package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPageLinks(t *testing.T) {
	tests := []struct {
		name                      string
		filters                   map[string]string
		page, offset, size, total int
		prev, next                string
	}{
		{"one page", nil, 0, 0, 50, 10, "", ""},
		{"first of two", map[string]string{"status": ""}, 0, 0, 50, 51, "", "/ops/x?page=1"},
		{"second of two, filtered", map[string]string{"status": "1", "operator": ""}, 1, 50, 50, 51, "/ops/x?status=1", ""},
		{"middle", map[string]string{"object": "invoice", "object_id": "7"}, 2, 100, 50, 500,
			"/ops/x?object=invoice&object_id=7&page=1", "/ops/x?object=invoice&object_id=7&page=3"},
	}
	for _, tt := range tests {
		prev, next := pageLinks("/ops/x", tt.filters, tt.page, tt.offset, tt.size, tt.total)
		assert.Equal(t, tt.prev, prev, tt.name)
		assert.Equal(t, tt.next, next, tt.name)
	}
}
