package webtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/handlers/webtest"
)

// The check every handler test's pages pass (Client.Do): an id on two elements is found,
// once however often it repeats; a <template>'s content is not the page's.
func TestRepeatedIDs(t *testing.T) {
	assert.Empty(t, webtest.RepeatedIDs(`<p id="a">x</p><p id="b"></p><input id=c>`))
	assert.Equal(t, []string{"supplier-hint"}, webtest.RepeatedIDs(
		`<fieldset aria-describedby="supplier-hint"><p id="supplier-hint">x</p><input id="supplier"><p id="supplier-hint">y</p><p id="supplier-hint"></p></fieldset>`))
	assert.Equal(t, []string{"b", "a"}, webtest.RepeatedIDs(`<i id="a"></i><i id="b"></i><i id="b"></i><br id="a"/>`))
	assert.Empty(t, webtest.RepeatedIDs(`<div id="row"></div><template><div id="row"></div></template>`))
	assert.Empty(t, webtest.RepeatedIDs(`<p>id="a" id="a"</p><script>const s = '<p id="a">';</script><p id="a"></p>`))
}
