package geom

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHomographyMapsTheCorners(t *testing.T) {
	from := [4][2]float64{{120, 90}, {1700, 140}, {1650, 2300}, {80, 2250}}
	to := [4][2]float64{{0, 0}, {1240, 0}, {1240, 1754}, {0, 1754}}
	h := Homography(from, to)
	for i := range 4 {
		u, v := Apply(h, from[i][0], from[i][1])
		assert.InDelta(t, to[i][0], u, 1e-6)
		assert.InDelta(t, to[i][1], v, 1e-6)
	}
	// The identity.
	id := Homography(to, to)
	u, v := Apply(id, 300, 400)
	assert.InDelta(t, 300, u, 1e-9)
	assert.InDelta(t, 400, v, 1e-9)
}
