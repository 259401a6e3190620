package pay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestInvitedEachOther(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	const checker, completer, other = 1, 2, 3
	tests := []struct {
		name        string
		invitations []pay.Invitation
		want        bool
	}{
		{"no invitation", nil, false},
		{"checker invited completer yesterday", []pay.Invitation{{Inviter: checker, Invitee: completer, At: now.Add(-day)}}, true},
		{"completer invited checker yesterday", []pay.Invitation{{Inviter: completer, Invitee: checker, At: now.Add(-day)}}, true},
		{"29 days 23 hours ago", []pay.Invitation{{Inviter: checker, Invitee: completer, At: now.Add(-30*day + time.Hour)}}, true},
		{"exactly 30 days ago", []pay.Invitation{{Inviter: checker, Invitee: completer, At: now.Add(-30 * day)}}, false},
		{"31 days ago", []pay.Invitation{{Inviter: completer, Invitee: checker, At: now.Add(-31 * day)}}, false},
		{"a third operator invited the completer", []pay.Invitation{{Inviter: other, Invitee: completer, At: now}}, false},
		{"the checker invited a third operator", []pay.Invitation{{Inviter: checker, Invitee: other, At: now}}, false},
		{"an old and a new invitation", []pay.Invitation{
			{Inviter: checker, Invitee: completer, At: now.Add(-40 * day)},
			{Inviter: completer, Invitee: checker, At: now.Add(-2 * day)}}, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pay.InvitedEachOther(checker, completer, tt.invitations, now), tt.name)
	}
}
